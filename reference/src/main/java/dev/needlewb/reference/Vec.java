package dev.needlewb.reference;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The two inner loops of attention (dot product, scaled accumulate) on float64 vectors. Results do
 * not depend on the JIT tier: the lanes of the dot product are summed in a fixed order here, since
 * {@code reduceLanes(ADD)} may associate differently when intrinsified than when interpreted.
 */
final class Vec {
    private static final VectorSpecies<Double> S = DoubleVector.SPECIES_PREFERRED;

    private Vec() {}

    static double dot(double[] a, int aOff, double[] b, int bOff, int n) {
        int i = 0;
        DoubleVector acc = DoubleVector.zero(S);
        for (int bound = S.loopBound(n); i < bound; i += S.length()) {
            acc = DoubleVector.fromArray(S, a, aOff + i).fma(DoubleVector.fromArray(S, b, bOff + i), acc);
        }
        double[] lanes = acc.toArray();
        double s = 0;
        for (double lane : lanes) s += lane;
        for (; i < n; i++) s += a[aOff + i] * b[bOff + i];
        return s;
    }

    /** {@code y[yOff, yOff+n) += alpha * x[xOff, xOff+n)}. */
    static void axpy(double alpha, double[] x, int xOff, double[] y, int yOff, int n) {
        int i = 0;
        DoubleVector a = DoubleVector.broadcast(S, alpha);
        for (int bound = S.loopBound(n); i < bound; i += S.length()) {
            DoubleVector.fromArray(S, x, xOff + i).fma(a, DoubleVector.fromArray(S, y, yOff + i))
                    .intoArray(y, yOff + i);
        }
        for (; i < n; i++) y[yOff + i] += alpha * x[xOff + i];
    }
}
