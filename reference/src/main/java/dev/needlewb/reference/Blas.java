package dev.needlewb.reference;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Float64 matrix products through OpenBLAS dgemm/dgemv (the build ND4J ships, loaded by its JavaCPP
 * preset). ND4J's own INDArray operations cost about 0.25 ms of CPU per call in overhead here, which
 * made a decode step of the released geometry (about 170 products) far too slow; calling BLAS
 * directly costs microseconds. Everything else in the reference is plain Java loops.
 *
 * <p>The calls are FFM downcalls marked critical with heap access: OpenBLAS reads the weights and
 * operands and writes the product in their Java arrays, with no off-heap copy. The copy had cost
 * 330 MB of fresh memory (and over a second of page faults on a cold virtual machine) for the
 * released geometry's weights, and a copy of both operands per call.
 *
 * <p>Threads: {@code -Dneedlewb.reference.threads=N}, default 1, set once when this class loads.
 * OpenBLAS worker threads spin while they wait; on a 2-core machine that also runs the JIT, the GC
 * and other jobs, a second BLAS thread was measured to make decode steps several times slower,
 * and it gains little on 512-wide matrices.
 */
public final class Blas {
    static final int THREADS = Integer.getInteger("needlewb.reference.threads", 1);
    private static final int ROW_MAJOR = 101, NO_TRANS = 111, TRANS = 112;
    private static final MethodHandle DGEMM, DGEMV;

    static {
        // loads libopenblas through JavaCPP, which makes its symbols visible to this class loader
        org.bytedeco.openblas.presets.openblas_nolapack.blas_set_num_threads(THREADS);
        Linker linker = Linker.nativeLinker();
        SymbolLookup blas = SymbolLookup.loaderLookup();
        ValueLayout i = ValueLayout.JAVA_INT, d = ValueLayout.JAVA_DOUBLE, p = ValueLayout.ADDRESS;
        Linker.Option heap = Linker.Option.critical(true);
        DGEMM = linker.downcallHandle(blas.findOrThrow("cblas_dgemm"),
                FunctionDescriptor.ofVoid(i, i, i, i, i, i, d, p, i, p, i, d, p, i), heap);
        DGEMV = linker.downcallHandle(blas.findOrThrow("cblas_dgemv"),
                FunctionDescriptor.ofVoid(i, i, i, i, d, p, i, p, i, d, p, i), heap);
    }

    private Blas() {}

    /**
     * {@code a [m, k] @ b} where b is row-major [k, n], or [n, k] used transposed when
     * {@code transposeB}; returns the row-major [m, n] product. Rows go to {@link RowChunks}.
     */
    public static double[] multiply(double[] a, int m, int k, double[] b, int n, boolean transposeB) {
        if ((long) k * n != b.length) {
            throw new IllegalArgumentException("right operand of " + k + " x " + n + " needs " + (long) k * n
                    + " values, got " + b.length);
        }
        return product(a, m, k, b, 0, n, transposeB, true);
    }

    /**
     * The same product in one call on this thread, for a caller already working on one row chunk
     * (the bits are those of a {@link #multiply} of at most {@link RowChunks#ROWS} rows), with b's
     * k x n values starting at {@code b[bFrom]} (rows of a cache, read in place).
     */
    public static double[] multiplyHere(double[] a, int m, int k, double[] b, int bFrom, int n, boolean transposeB) {
        if (bFrom < 0 || bFrom + (long) k * n > b.length) {
            throw new IllegalArgumentException("right operand of " + k + " x " + n + " from " + bFrom + " runs past "
                    + b.length + " values");
        }
        return product(a, m, k, b, bFrom, n, transposeB, false);
    }

    private static double[] product(double[] a, int m, int k, double[] b, int bFrom, int n, boolean transposeB, boolean chunked) {
        if ((long) m * k != a.length) {
            throw new IllegalArgumentException("left operand [" + m + ", " + k + "] needs " + (long) m * k
                    + " values, got " + a.length);
        }
        double[] out = new double[Math.multiplyExact(m, n)];
        if (m == 0 || n == 0) return out;
        MemorySegment left = MemorySegment.ofArray(a), product = MemorySegment.ofArray(out);
        MemorySegment right = MemorySegment.ofArray(b).asSlice(8L * bFrom, 8L * k * n);
        try {
            if (m == 1) {
                // a single row (a decode step): dgemv streams the matrix once, where dgemm would pack it first
                DGEMV.invokeExact(ROW_MAJOR, transposeB ? NO_TRANS : TRANS, transposeB ? n : k, transposeB ? k : n,
                        1.0, right, transposeB ? k : n, left, 1, 0.0, product, 1);
            } else if (chunked) {
                RowChunks.forEach(m, (from, to) -> dgemm(left.asSlice(8L * from * k), to - from, k, right, n, transposeB,
                        product.asSlice(8L * from * n)));
            } else {
                dgemm(left, m, k, right, n, transposeB, product);
            }
        } catch (Throwable e) {
            throw new IllegalStateException("OpenBLAS call failed", e);
        }
        return out;
    }

    private static void dgemm(MemorySegment left, int m, int k, MemorySegment right, int n, boolean transposeB,
                              MemorySegment product) {
        try {
            DGEMM.invokeExact(ROW_MAJOR, NO_TRANS, transposeB ? TRANS : NO_TRANS, m, n, k,
                    1.0, left, k, right, transposeB ? k : n, 0.0, product, n);
        } catch (Throwable e) {
            throw new IllegalStateException("OpenBLAS call failed", e);
        }
    }
}
