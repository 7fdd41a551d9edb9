package dev.needlewb.engine.kernel;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;

/**
 * Splits the rows of CQ matrix-vector products over a fixed set of threads: the caller plus
 * {@code threads - 1} workers. A matrix with at least {@link #SPLIT_ROWS} rows is cut into one
 * contiguous range per thread (boundaries on multiples of four, so every range but the last runs
 * the four-row kernel only); smaller matrices run whole on the caller. A decode step issues a few
 * hundred short jobs, so waiting threads spin briefly (a park/unpark round trip per job would cost
 * more than the job), then yield (on an oversubscribed machine the thread they wait for needs the
 * core), and idle workers finally park. A job with nothing to split runs on the caller without
 * waking anyone. Other per-step work that splits into independent parts (attention over kv heads)
 * runs through {@link #run}. One caller at a time: the pool belongs to one session.
 */
public final class RowPool implements AutoCloseable {
    /** Matrices with fewer rows than this run on the calling thread. */
    public static final int SPLIT_ROWS = 128;
    private static final int SPINS = 1 << 10;
    private static final int YIELDS_BEFORE_PARK = 1 << 12;

    private final int threads;
    private final Thread[] workers;
    private final AtomicIntegerArray parked;
    private final AtomicInteger pending = new AtomicInteger();
    private volatile long generation;
    private volatile boolean closed;
    private Activation jobActivation;
    private PackedCqMatrix[] jobMatrices;
    private float[][] jobOutputs;
    private Parts jobParts;

    /** Work split into {@code parts} pieces; piece {@code part} runs on one thread, concurrently with the others. */
    @FunctionalInterface
    public interface Parts {
        void run(int part, int parts);
    }

    public RowPool(int threads) {
        if (threads < 1) throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        this.threads = threads;
        this.workers = new Thread[threads - 1];
        this.parked = new AtomicIntegerArray(threads - 1);
        for (int i = 0; i < workers.length; i++) {
            int part = i + 1;
            workers[i] = Thread.ofPlatform().daemon().name("cq-rows-" + part).start(() -> work(part));
        }
    }

    public int threads() {
        return threads;
    }

    /** {@code out = m x} (rows split over the threads when {@code m} is big enough). */
    public void matvec(Activation a, PackedCqMatrix m, float[] out) {
        matvec(a, new PackedCqMatrix[] {m}, new float[][] {out});
    }

    /**
     * {@code outs[i] = ms[i] x} for matrices that share one prepared input, as one job: every
     * thread takes its part of every matrix, so the input is read while hot and the threads meet once.
     */
    public void matvec(Activation a, PackedCqMatrix[] ms, float[][] outs) {
        if (threads == 1 || !anySplit(ms)) {
            for (int i = 0; i < ms.length; i++) ms[i].matvec(a, outs[i], 0);
            return;
        }
        jobActivation = a;
        jobMatrices = ms;
        jobOutputs = outs;
        dispatch();
    }

    /** Runs {@code task} as {@link #threads()} parts, part 0 on the caller; returns when all are done. */
    public void run(Parts task) {
        if (threads == 1) {
            task.run(0, 1);
            return;
        }
        jobParts = task;
        try {
            dispatch();
        } finally {
            jobParts = null;
        }
    }

    private static boolean anySplit(PackedCqMatrix[] ms) {
        for (PackedCqMatrix m : ms) {
            if (m.rows() >= SPLIT_ROWS) return true;
        }
        return false;
    }

    private void dispatch() {
        pending.set(workers.length);
        generation = generation + 1;
        for (int i = 0; i < workers.length; i++) {
            if (parked.get(i) != 0) LockSupport.unpark(workers[i]);
        }
        runPart(0);
        for (int spins = 0; pending.get() != 0; spins++) {
            if (spins < SPINS) Thread.onSpinWait();
            else Thread.yield();
        }
    }

    private void runPart(int part) {
        Parts parts = jobParts;
        if (parts != null) {
            parts.run(part, threads);
            return;
        }
        for (int i = 0; i < jobMatrices.length; i++) {
            PackedCqMatrix m = jobMatrices[i];
            int rows = m.rows();
            if (rows < SPLIT_ROWS) {
                if (part == 0) m.rows(jobActivation, jobOutputs[i], 0, 0, rows);
                continue;
            }
            int step = Math.ceilDiv(Math.ceilDiv(rows, threads), 4) * 4;
            int from = Math.min(rows, part * step);
            int to = Math.min(rows, from + step);
            if (from < to) m.rows(jobActivation, jobOutputs[i], 0, from, to);
        }
    }

    private void work(int part) {
        long seen = 0;
        while (true) {
            int spins = 0;
            while (generation == seen) {
                if (closed) return;
                if (++spins < SPINS) {
                    Thread.onSpinWait();
                } else if (spins < SPINS + YIELDS_BEFORE_PARK) {
                    Thread.yield();
                } else {
                    parked.set(part - 1, 1);
                    if (generation == seen && !closed) LockSupport.park(this);
                    parked.set(part - 1, 0);
                    spins = 0;
                }
            }
            seen = generation;
            runPart(part);
            pending.decrementAndGet();
        }
    }

    @Override
    public void close() {
        closed = true;
        for (Thread w : workers) LockSupport.unpark(w);
        for (Thread w : workers) {
            try {
                w.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
