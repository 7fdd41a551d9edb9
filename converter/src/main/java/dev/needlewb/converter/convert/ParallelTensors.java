package dev.needlewb.converter.convert;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.names.NameRow;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.function.IntToLongFunction;
import java.util.stream.IntStream;

/**
 * Runs one task per tensor on the common fork-join pool and returns the results in tensor
 * order. If tasks fail, the failure of the lowest index is thrown, so errors do not depend on
 * thread timing.
 *
 * <p>The workers claim tasks largest first (by element count):
 * no large tensor is left for the end while the other threads idle, and every kernel the large
 * tensors need (each CQ summation order, both code widths) is met, and compiled by the JIT, at the
 * start of a cold run rather than when the last engram table comes up in file order.
 */
public final class ParallelTensors {
    /** One tensor's work. */
    @FunctionalInterface
    public interface Task<T> {
        T run(int index) throws WorkbenchException;
    }

    private ParallelTensors() {}

    /**
     * One task per row, task i on {@code rows.get(i)}, largest first (rows without a shape, the
     * manifest and the tokenizer, last).
     *
     * @param progress called (serially) with the number of tasks finished so far
     */
    public static <T> List<T> map(List<NameRow> rows, Task<T> task, IntConsumer progress) throws WorkbenchException {
        return map(rows.size(), i -> {
            int[] shape = rows.get(i).shape();
            return shape == null ? 0 : NpyArray.elementCount(shape);
        }, task, progress);
    }

    /** @param cost how much work task i is, relative to the others (ties keep index order) */
    public static <T> List<T> map(int count, IntToLongFunction cost, Task<T> task, IntConsumer progress) throws WorkbenchException {
        int[] order = IntStream.range(0, count).boxed()
                .sorted(Comparator.comparingLong((Integer i) -> cost.applyAsLong(i)).reversed())
                .mapToInt(Integer::intValue).toArray();
        Object[] results = new Object[count];
        WorkbenchException[] failures = new WorkbenchException[count];
        AtomicInteger next = new AtomicInteger();
        int[] done = {0};
        // the caller takes part in a parallel stream, so it counts as one of the workers
        int workers = Math.min(count, ForkJoinPool.getCommonPoolParallelism() + 1);
        IntStream.range(0, workers).parallel().forEach(worker -> {
            for (int claimed; (claimed = next.getAndIncrement()) < count; ) {
                int i = order[claimed];
                try {
                    results[i] = task.run(i);
                } catch (WorkbenchException e) {
                    failures[i] = e;
                }
                synchronized (done) {
                    progress.accept(++done[0]);
                }
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
