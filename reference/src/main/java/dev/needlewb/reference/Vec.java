package dev.needlewb.reference;

import dev.needlewb.core.simd.VectorWidth;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The two inner loops of attention (dot product, scaled accumulate) on float64 vectors, with the same
 * bits at every vector width. A dot product has {@value #LANES} logical lanes: lane j chains the fused
 * multiply-adds of elements j, j + 8, ... below the largest multiple of 8, the lanes are then added in
 * order 0..7, then the scalar tail. The lanes are 1, 2 or 4 physical vectors (512, 256, 128 bits), run
 * one after the other. {@code reduceLanes(ADD)} is not used: it may associate differently when
 * intrinsified than when interpreted.
 */
public final class Vec {
    /** Logical lanes of a dot product: a 512-bit vector's doubles, the width these loops were written for. */
    public static final int LANES = 8;
    private static final VectorSpecies<Double> S = VectorWidth.DOUBLES;
    /** Physical lanes: 2, 4 or 8. */
    private static final int W = S.length();

    private Vec() {}

    public static double dot(double[] a, int aOff, double[] b, int bOff, int n) {
        int body = n & -LANES;
        double s = 0;
        for (int part = 0; part < LANES; part += W) {
            DoubleVector acc = DoubleVector.zero(S);
            for (int i = part; i < body; i += LANES) {
                acc = DoubleVector.fromArray(S, a, aOff + i).fma(DoubleVector.fromArray(S, b, bOff + i), acc);
            }
            for (int l = 0; l < W; l++) s += acc.lane(l);
        }
        for (int i = body; i < n; i++) s += a[aOff + i] * b[bOff + i];
        return s;
    }

    /** {@code y[yOff, yOff+n) += alpha * x[xOff, xOff+n)}: fused below the largest multiple of 8, then not. */
    public static void axpy(double alpha, double[] x, int xOff, double[] y, int yOff, int n) {
        int body = n & -LANES;
        DoubleVector a = DoubleVector.broadcast(S, alpha);
        for (int i = 0; i < body; i += W) {
            DoubleVector.fromArray(S, x, xOff + i).fma(a, DoubleVector.fromArray(S, y, yOff + i))
                    .intoArray(y, yOff + i);
        }
        for (int i = body; i < n; i++) y[yOff + i] += alpha * x[xOff + i];
    }
}
