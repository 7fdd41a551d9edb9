package dev.needlewb.reference;

import org.bytedeco.javacpp.DoublePointer;
import org.bytedeco.openblas.global.openblas_nolapack;

/**
 * Float64 matrix products through OpenBLAS dgemm/dgemv (its JavaCPP binding, the BLAS that ND4J
 * ships). ND4J's own INDArray operations cost about 0.25 ms of CPU per call in overhead here, which
 * made a decode step of the released geometry (about 170 products) far too slow; calling BLAS
 * directly costs microseconds. Everything else in the reference is plain Java loops.
 *
 * <p>Threads: {@code -Dneedlewb.reference.threads=N}, default 1, set once when this class loads.
 * OpenBLAS worker threads spin while they wait; on a 2-core machine that also runs the JIT, the GC
 * and other jobs, a second BLAS thread was measured to make decode steps several times slower,
 * and it gains little on 512-wide matrices.
 */
final class Blas {
    static final int THREADS = Integer.getInteger("needlewb.reference.threads", 1);

    /** Per-thread off-heap operand and result buffers, grown on demand (allocating per call was 15% of a decode step). */
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    static {
        org.bytedeco.openblas.presets.openblas_nolapack.blas_set_num_threads(THREADS);
    }

    private Blas() {}

    /** An off-heap copy of {@code values}. */
    static DoublePointer offHeap(double[] values) {
        return new DoublePointer(values);
    }

    /**
     * {@code a [m, k] @ b} where the off-heap b is row-major [k, n], or [n, k] used transposed when
     * {@code transposeB}; returns the row-major [m, n] product.
     */
    static double[] multiply(double[] a, int m, int k, DoublePointer b, int n, boolean transposeB) {
        if ((long) m * k != a.length) {
            throw new IllegalArgumentException("left operand [" + m + ", " + k + "] needs " + (long) m * k
                    + " values, got " + a.length);
        }
        double[] out = new double[Math.multiplyExact(m, n)];
        if (m == 0 || n == 0) return out;
        Scratch s = SCRATCH.get();
        DoublePointer left = s.left(a.length).put(a, 0, a.length);
        DoublePointer product = s.product(out.length);
        if (m == 1) {
            // a single row (a decode step): dgemv streams the matrix once, where dgemm would pack it first
            openblas_nolapack.cblas_dgemv(openblas_nolapack.CblasRowMajor,
                    transposeB ? openblas_nolapack.CblasNoTrans : openblas_nolapack.CblasTrans,
                    transposeB ? n : k, transposeB ? k : n, 1.0, b, transposeB ? k : n, left, 1, 0.0, product, 1);
        } else {
            openblas_nolapack.cblas_dgemm(openblas_nolapack.CblasRowMajor, openblas_nolapack.CblasNoTrans,
                    transposeB ? openblas_nolapack.CblasTrans : openblas_nolapack.CblasNoTrans,
                    m, n, k, 1.0, left, k, b, transposeB ? k : n, 0.0, product, n);
        }
        product.get(out, 0, out.length);
        return out;
    }

    private static final class Scratch {
        private DoublePointer left = new DoublePointer(0L);
        private DoublePointer product = new DoublePointer(0L);

        DoublePointer left(long size) {
            if (left.capacity() < size) {
                left.close();
                left = new DoublePointer(size);
            }
            return left.position(0);
        }

        DoublePointer product(long size) {
            if (product.capacity() < size) {
                product.close();
                product = new DoublePointer(size);
            }
            return product.position(0);
        }
    }
}
