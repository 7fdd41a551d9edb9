package dev.needlewb.engine.kernel;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs the split work of the engine's forward (a decode step's products and attention heads, a batch
 * prefill's GEMM panels and row passes) over a fixed set of threads: the caller plus
 * {@code threads - 1} workers. A job is a number of tickets that the threads claim one at a time
 * from a shared counter, so a thread that starts late (or is descheduled on a busy machine) simply
 * takes fewer: the caller returns as soon as every ticket is done, never waiting for a worker that
 * had nothing left to do. For CQ matrix-vector products a matrix with at least {@link #SPLIT_ROWS}
 * rows is cut into tickets of a multiple of 16 rows ({@link #ticketRows}: every block of four rows, and
 * every 16-row block of the int8 block kernel, then runs whole on one thread, whatever the split); a
 * smaller matrix is cut into whole kernel blocks of at least {@link #MIN_SMALL_TICKET_WORK}
 * multiply-adds ({@link #smallTicketRows}; the mHC projections, 4 to 16 rows of 2048 columns, were a
 * tenth of a 2-thread decode step on the caller alone), or is one ticket. A job with nothing
 * to split runs on the caller without waking anyone.
 *
 * <p>A decode step issues a few hundred short jobs, so idle workers spin briefly (a park/unpark
 * round trip per job would cost more than the job), then yield (on an oversubscribed machine the
 * thread holding the work needs the core), and finally park. One caller at a time: the pool
 * belongs to one engine, which runs one forward at a time.
 */
public final class RowPool implements AutoCloseable {
    /** Matrices with fewer rows than this are not split. */
    public static final int SPLIT_ROWS = 128;
    /**
     * Bounds of a split matrix's rows per ticket. Claiming and completing a ticket cost about 0.2 us
     * (two contended counters), as much as 16 rows of a 512-column CQ2 matrix at 512 bits, so a thread
     * should claim few tickets; the lower bound keeps a share of work free for a late thread.
     */
    private static final int MIN_TICKET_ROWS = 64, MAX_TICKET_ROWS = 256;
    /**
     * Least multiply-adds in a ticket of a matrix below {@link #SPLIT_ROWS} rows: 4 rows of 2048 columns
     * per 4 float lanes of the machine's vectors, about 1.3 us of the 4-bit int8 kernel at any width
     * (its rate grows with the lanes), six times a ticket's claim. At 512 bits that keeps the mHC
     * projections whole: split into 4-row tickets there, they made a 2-thread decode 5% slower.
     */
    static final int MIN_SMALL_TICKET_WORK = 4 * 2048 * (Lanes.W / 4);
    /** Tickets start on whole kernel blocks: the int8 block kernel's 16 rows (a multiple of the others' four). */
    private static final int TICKET_ALIGN = RowBlocks.ROWS;
    private static final int SPINS = 1 << 10;
    private static final int YIELDS_BEFORE_PARK = 1 << 12;

    /** Work cut into tickets; {@code thread} (0 = the caller) identifies per-thread scratch. */
    @FunctionalInterface
    public interface Tickets {
        void run(int ticket, int thread);
    }

    /** Work on the items {@code [from, to)} of a {@link #ranges} split; {@code thread} as in {@link Tickets}. */
    @FunctionalInterface
    public interface Ranges {
        void run(int from, int to, int thread);
    }

    /** Ranges each thread claims in a {@link #ranges} split, at an even pace. */
    private static final int CLAIMS_PER_THREAD = 4;
    private static final int[] NO_OFFSETS = new int[16];

    private final int threads;
    private final Thread[] workers;
    private final AtomicIntegerArray parked;
    /** The job's generation (high 32 bits) and its next unclaimed ticket (low 32 bits). */
    private final AtomicLong next = new AtomicLong();
    private final AtomicInteger done = new AtomicInteger();
    private volatile long generation;
    private volatile boolean closed;
    private int jobTickets;
    private Tickets jobTask;

    private Activation mvActivation;
    private PackedCqMatrix[] mvMatrices;
    private float[][] mvOutputs;
    private final int[] mvFirstTicket = new int[16];
    private final int[] mvTicketRows = new int[16];
    private final Tickets matvecTicket = (ticket, thread) -> matvecTicket(ticket);
    private int[] mvOffsets;
    private final PackedCqMatrix[] oneMatrix = new PackedCqMatrix[1];
    private final float[][] oneOutput = new float[1][];
    private Ranges rangeBody;
    private int rangeLength, rangeEnd;
    private final Tickets rangeTicket = this::rangeTicket;

    public RowPool(int threads) {
        if (threads < 1) throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        this.threads = threads;
        this.workers = new Thread[threads - 1];
        this.parked = new AtomicIntegerArray(threads - 1);
        for (int i = 0; i < workers.length; i++) {
            int thread = i + 1;
            workers[i] = Thread.ofPlatform().daemon().name("cq-rows-" + thread).start(() -> work(thread));
        }
    }

    public int threads() {
        return threads;
    }

    /** {@code out = m x} (rows split over the threads when {@code m} is big enough). */
    public void matvec(Activation a, PackedCqMatrix m, float[] out) {
        oneMatrix[0] = m;
        oneOutput[0] = out;
        matvec(a, oneMatrix, oneOutput);
    }

    /**
     * {@code outs[i] = ms[i] x} for matrices that share one prepared input, as one job: the threads
     * work through every matrix's tickets, so the input is read while hot and the threads meet once.
     */
    public void matvec(Activation a, PackedCqMatrix[] ms, float[][] outs) {
        matvec(a, ms, outs, NO_OFFSETS);
    }

    /** {@link #matvec(Activation, PackedCqMatrix[], float[][])} writing {@code ms[i] x} from {@code outs[i][offsets[i]]}. */
    public void matvec(Activation a, PackedCqMatrix[] ms, float[][] outs, int[] offsets) {
        if (ms.length >= mvFirstTicket.length) throw new IllegalArgumentException(ms.length + " matrices in one job");
        int tickets = 0;
        for (int i = 0; i < ms.length; i++) {
            mvFirstTicket[i] = tickets;
            mvTicketRows[i] = matrixTicketRows(ms[i], a.mode());
            tickets += Math.ceilDiv(ms[i].rows(), mvTicketRows[i]);
        }
        mvFirstTicket[ms.length] = tickets;
        if (threads == 1 || tickets == ms.length) {
            for (int i = 0; i < ms.length; i++) ms[i].matvec(a, outs[i], offsets[i]);
            return;
        }
        for (PackedCqMatrix m : ms) m.bind(a);
        mvActivation = a;
        mvMatrices = ms;
        mvOutputs = outs;
        mvOffsets = offsets;
        run(tickets, matvecTicket);
    }

    private void matvecTicket(int ticket) {
        int i = 0;
        while (mvFirstTicket[i + 1] <= ticket) i++;
        PackedCqMatrix m = mvMatrices[i];
        int from = (ticket - mvFirstTicket[i]) * mvTicketRows[i];
        m.rows(mvActivation, mvOutputs[i], mvOffsets[i], from, Math.min(m.rows(), from + mvTicketRows[i]));
    }

    private int matrixTicketRows(PackedCqMatrix m, NumericMode mode) {
        int rows = m.rows();
        if (threads == 1) return rows;
        return rows >= SPLIT_ROWS ? ticketRows(rows, threads) : smallTicketRows(rows, m.cols(), m.kernelRows(mode));
    }

    /**
     * Rows per ticket of a matrix below {@link #SPLIT_ROWS} rows: whole blocks of its kernel
     * ({@code kernelRows}) holding at least {@link #MIN_SMALL_TICKET_WORK} multiply-adds, or all its rows.
     */
    static int smallTicketRows(int rows, int cols, int kernelRows) {
        int blocks = Math.ceilDiv(Math.ceilDiv(MIN_SMALL_TICKET_WORK, cols), kernelRows);
        return Math.min(rows, blocks * kernelRows);
    }

    /**
     * Rows per ticket of a matrix of {@code rows} rows: a share of one thread, rounded down to a multiple
     * of 16 (so that every thread still finds a ticket) and held within [{@link #MIN_TICKET_ROWS}, {@link #MAX_TICKET_ROWS}], so each thread can
     * take a ticket and none pays the claims of many small ones.
     */
    static int ticketRows(int rows, int threads) {
        int share = Math.ceilDiv(rows, threads) / TICKET_ALIGN * TICKET_ALIGN;
        return Math.min(MAX_TICKET_ROWS, Math.max(MIN_TICKET_ROWS, share));
    }

    /** Whether {@link #ranges} spreads {@code n} items over the threads: two at least per thread. */
    public boolean spreads(int n) {
        return threads > 1 && n >= 2 * threads;
    }

    /**
     * Runs {@code body} over the items {@code [0, n)}: on the caller alone unless {@link #spreads}, else
     * in contiguous ranges of about a {@value #CLAIMS_PER_THREAD}th of a thread's share, claimed as
     * tickets, so a thread that starts late or shares its core takes fewer ranges instead of the
     * others waiting for its part.
     */
    public void ranges(int n, Ranges body) {
        if (!spreads(n)) {
            body.run(0, n, 0);
            return;
        }
        rangeBody = body;
        rangeLength = Math.max(1, n / (CLAIMS_PER_THREAD * threads));
        rangeEnd = n;
        run(Math.ceilDiv(n, rangeLength), rangeTicket);
    }

    private void rangeTicket(int ticket, int thread) {
        int from = ticket * rangeLength;
        rangeBody.run(from, Math.min(rangeEnd, from + rangeLength), thread);
    }

    /** Runs tickets {@code 0 .. tickets - 1} of {@code task} on the caller and the workers; returns when all are done. */
    public void run(int tickets, Tickets task) {
        if (threads == 1 || tickets == 1) {
            for (int t = 0; t < tickets; t++) task.run(t, 0);
            return;
        }
        long gen = generation + 1;
        // Close the previous job's counter before its fields change: a worker still holding the
        // old generation fails its claim from here on.
        next.set(gen << 32);
        done.set(0);
        jobTickets = tickets;
        jobTask = task;
        generation = gen;
        for (int i = 0; i < workers.length; i++) {
            if (parked.get(i) != 0) LockSupport.unpark(workers[i]);
        }
        claim(gen, 0);
        for (int spins = 0; done.get() != tickets; spins++) {
            if (spins < SPINS) Thread.onSpinWait();
            else Thread.yield();
        }
    }

    /** Claims and runs tickets of job {@code gen} until none is left (or the job is over). */
    private void claim(long gen, int thread) {
        int tickets = jobTickets;
        Tickets task = jobTask;
        while (true) {
            long cur = next.get();
            if (cur >>> 32 != gen || (int) cur >= tickets) return;
            if (next.compareAndSet(cur, cur + 1)) {
                task.run((int) cur, thread);
                done.incrementAndGet();
            }
        }
    }

    private void work(int thread) {
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
                    parked.set(thread - 1, 1);
                    if (generation == seen && !closed) LockSupport.park(this);
                    parked.set(thread - 1, 0);
                    spins = 0;
                }
            }
            seen = generation;
            claim(seen, thread);
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
