package dev.needlewb.converter.convert;

import dev.needlewb.converter.WorkbenchException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;

/**
 * Runs one task per tensor on the common fork-join pool and returns the results in tensor
 * order. If tasks fail, the failure of the lowest index is thrown, so errors do not depend on
 * thread timing.
 */
public final class ParallelTensors {
    /** One tensor's work. */
    @FunctionalInterface
    public interface Task<T> {
        T run(int index) throws WorkbenchException;
    }

    private ParallelTensors() {}

    /** @param progress called (serially) with the number of tasks finished so far */
    public static <T> List<T> map(int count, Task<T> task, IntConsumer progress) throws WorkbenchException {
        Object[] results = new Object[count];
        WorkbenchException[] failures = new WorkbenchException[count];
        int[] done = {0};
        IntStream.range(0, count).parallel().forEach(i -> {
            try {
                results[i] = task.run(i);
            } catch (WorkbenchException e) {
                failures[i] = e;
            }
            synchronized (done) {
                progress.accept(++done[0]);
            }
        });
        for (WorkbenchException f : failures) {
            if (f != null) throw f;
        }
        List<T> out = new ArrayList<>(count);
        for (Object r : results) {
            @SuppressWarnings("unchecked")
            T t = (T) r;
            out.add(t);
        }
        return out;
    }
}
