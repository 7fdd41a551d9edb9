package dev.needlewb.converter.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needlewb.core.WorkbenchException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ParallelTensorsTest {
    private static final int COUNT = 200;

    /** Cost of task i: largest in the middle, so neither index order nor its reverse is cost order. */
    private static long cost(int i) {
        return COUNT - Math.abs(COUNT / 2 - i);
    }

    @Test
    void resultsComeInTaskOrderAndProgressCountsEveryTask() throws WorkbenchException {
        List<Integer> progress = Collections.synchronizedList(new ArrayList<>());
        List<Integer> out = ParallelTensors.map(COUNT, ParallelTensorsTest::cost, i -> i * 3, progress::add);
        assertEquals(IntStream.range(0, COUNT).map(i -> i * 3).boxed().toList(), out);
        assertEquals(IntStream.rangeClosed(1, COUNT).boxed().toList(), progress);
    }

    @Test
    void theLargestTasksStartFirst() throws WorkbenchException {
        List<Integer> started = Collections.synchronizedList(new ArrayList<>());
        ParallelTensors.map(COUNT, ParallelTensorsTest::cost, i -> started.add(i), n -> {});
        int workers = ForkJoinPool.getCommonPoolParallelism() + 1;
        // each worker claims the next largest when it starts a task, so a task starts no later than
        // the workers' count of places after its rank by cost
        List<Integer> byCost = IntStream.range(0, COUNT).boxed()
                .sorted((a, b) -> Long.compare(cost(b), cost(a))).toList();
        for (int rank = 0; rank < COUNT; rank++) {
            int position = started.indexOf(byCost.get(rank));
            assertTrue(Math.abs(position - rank) <= workers, "task " + byCost.get(rank) + " of cost rank " + rank + " started at " + position);
        }
    }

    @Test
    void theFailureOfTheLowestIndexIsThrown() {
        WorkbenchException e = assertThrows(WorkbenchException.class, () -> ParallelTensors.map(COUNT, ParallelTensorsTest::cost, i -> {
            if (i % 7 == 3) throw new WorkbenchException("task " + i);
            return i;
        }, n -> {}));
        assertEquals("task 3", e.getMessage());
    }
}
