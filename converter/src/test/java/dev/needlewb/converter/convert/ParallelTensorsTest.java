package dev.needlewb.converter.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
        Map<Long, List<Integer>> startedByThread = new ConcurrentHashMap<>();
        ParallelTensors.map(COUNT, ParallelTensorsTest::cost,
                i -> startedByThread.computeIfAbsent(Thread.currentThread().threadId(), t -> new ArrayList<>()).add(i), n -> {});
        // Each worker claims the next largest task when it finishes one, so every worker meets its
        // tasks in falling cost. (Positions across workers are not compared: a worker preempted
        // between its claim and its start, as on a loaded machine, starts late whatever the order.)
        assertEquals(COUNT, startedByThread.values().stream().mapToInt(List::size).sum());
        for (List<Integer> tasks : startedByThread.values()) {
            for (int k = 1; k < tasks.size(); k++) {
                assertTrue(cost(tasks.get(k - 1)) >= cost(tasks.get(k)), "task " + tasks.get(k) + " started after the smaller " + tasks.get(k - 1));
            }
        }
    }

    @Test
    void theFailureOfTheLowestIndexIsThrown() {
        WorkbenchException e = assertThrows(WorkbenchException.class, () -> ParallelTensors.map(COUNT, ParallelTensorsTest::cost, i -> {
            if (i % 7 == 3) throw new WorkbenchException(ErrorKind.NON_FINITE, "task " + i);
            return i;
        }, n -> {}));
        assertEquals("task 3", e.getMessage());
    }
}
