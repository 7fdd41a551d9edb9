package dev.needlewb.reference;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * A weight matrix whose every value is a float32, kept transposed as floats ([out][in]) for
 * single-row products: {@code y[o] = sum_i x[i] * W[i][o]} as float64 dot products over
 * float-widened weights. Widening is exact, so this is the same float64 arithmetic as dgemv on
 * doubles (up to summation order) while reading half the bytes: a decode step is bound by
 * streaming the weights. Lane sums are added in a fixed order, so results do not depend on the JIT tier.
 */
final class FloatRows {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> F =
            VectorSpecies.of(float.class, VectorShape.forBitSize(D.vectorBitSize() / 2));

    private final float[] transposed;
    private final int in;
    private final int out;

    private FloatRows(float[] transposed, int in, int out) {
        this.transposed = transposed;
        this.in = in;
        this.out = out;
    }

    /** The float copy of {@code w [in, out]}, or null if some value is not exactly a float. */
    static FloatRows ofExact(double[] w, int in, int out) {
        float[] t = new float[w.length];
        for (int i = 0; i < in; i++) {
            for (int o = 0; o < out; o++) {
                double v = w[i * out + o];
                float f = (float) v;
                if (f != v && !Double.isNaN(v)) return null;
                t[o * in + i] = f;
            }
        }
        return new FloatRows(t, in, out);
    }

    /** {@code x [in] @ W} as [out]. */
    double[] apply(double[] x) {
        double[] y = new double[out];
        double[] lanes = new double[D.length()];
        int o = 0;
        // four outputs at a time share each load of x and keep four independent FMA chains busy
        for (; o + 4 <= out; o += 4) {
            DoubleVector a0 = DoubleVector.zero(D), a1 = a0, a2 = a0, a3 = a0;
            int i = 0;
            for (int bound = D.loopBound(in); i < bound; i += D.length()) {
                DoubleVector xv = DoubleVector.fromArray(D, x, i);
                a0 = widen(o * in + i).fma(xv, a0);
                a1 = widen((o + 1) * in + i).fma(xv, a1);
                a2 = widen((o + 2) * in + i).fma(xv, a2);
                a3 = widen((o + 3) * in + i).fma(xv, a3);
            }
            y[o] = finish(a0, lanes, o, i, x);
            y[o + 1] = finish(a1, lanes, o + 1, i, x);
            y[o + 2] = finish(a2, lanes, o + 2, i, x);
            y[o + 3] = finish(a3, lanes, o + 3, i, x);
        }
        for (; o < out; o++) {
            DoubleVector acc = DoubleVector.zero(D);
            int i = 0;
            for (int bound = D.loopBound(in); i < bound; i += D.length()) {
                acc = widen(o * in + i).fma(DoubleVector.fromArray(D, x, i), acc);
            }
            y[o] = finish(acc, lanes, o, i, x);
        }
        return y;
    }

    private DoubleVector widen(int offset) {
        return (DoubleVector) FloatVector.fromArray(F, transposed, offset).convertShape(VectorOperators.F2D, D, 0);
    }

    /** The lanes of {@code acc} summed in order, plus the scalar tail of row {@code o} from {@code from}. */
    private double finish(DoubleVector acc, double[] lanes, int o, int from, double[] x) {
        acc.intoArray(lanes, 0);
        double s = 0;
        for (double lane : lanes) s += lane;
        for (int i = from; i < in; i++) s += transposed[o * in + i] * x[i];
        return s;
    }
}
