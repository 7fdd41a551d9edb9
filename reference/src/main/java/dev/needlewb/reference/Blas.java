package dev.needlewb.reference;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Float64 matrix products through ND4J (OpenBLAS dgemm). Everything else in the reference is plain
 * Java loops; only the products that dominate the run time go through BLAS. The thread count is
 * {@code -Dneedlewb.reference.threads=N} (default: the available processors), applied to both the
 * ND4J environment and OpenBLAS once, when this class loads.
 */
final class Blas {
    static final int THREADS = Integer.getInteger("needlewb.reference.threads",
            Runtime.getRuntime().availableProcessors());

    static {
        Nd4j.getEnvironment().setMaxThreads(THREADS);
        Nd4j.getEnvironment().setMaxMasterThreads(THREADS);
        Nd4j.factory().blas().setMaxThreads(THREADS);
    }

    private Blas() {}

    /** An off-heap row-major copy of {@code values} with shape [rows, cols]. */
    static INDArray matrix(double[] values, int rows, int cols) {
        if ((long) rows * cols != values.length) {
            throw new IllegalArgumentException("matrix [" + rows + ", " + cols + "] needs "
                    + (long) rows * cols + " values, got " + values.length);
        }
        return Nd4j.create(values, new long[] {rows, cols}, DataType.DOUBLE);
    }

    /**
     * {@code a [m, k] @ b} where b is [k, n], or [n, k] used transposed when {@code transposeB};
     * returns the row-major [m, n] product.
     */
    static double[] multiply(double[] a, int m, int k, INDArray b, boolean transposeB) {
        if ((long) m * k != a.length) {
            throw new IllegalArgumentException("left operand [" + m + ", " + k + "] needs "
                    + (long) m * k + " values, got " + a.length);
        }
        long inner = transposeB ? b.size(1) : b.size(0);
        long n = transposeB ? b.size(0) : b.size(1);
        if (inner != k) {
            throw new IllegalArgumentException("inner sizes differ: " + k + " vs " + inner);
        }
        if (m == 0) return new double[0];
        INDArray left = Nd4j.create(a, new long[] {m, k}, DataType.DOUBLE);
        INDArray out = Nd4j.createUninitialized(DataType.DOUBLE, new long[] {m, n}, 'c');
        Nd4j.gemm(left, b, out, false, transposeB, 1.0, 0.0);
        return out.data().asDouble();
    }
}
