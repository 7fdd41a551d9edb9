package dev.needlewb.reference;

import dev.needlewb.core.simd.VectorWidth;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * A weight matrix whose every value is a float32, kept transposed as floats ([out][in]) for
 * single-row products: {@code y[o] = sum_i x[i] * W[i][o]} as float64 dot products over
 * float-widened weights. Widening is exact, so this is the same float64 arithmetic as dgemv on
 * doubles (up to summation order) while reading half the bytes: a decode step is bound by
 * streaming the weights. Each output sums in {@link Vec}'s order (8 logical lanes, added in order,
 * then the scalar tail), so results depend neither on the JIT tier nor on the vector width.
 */
final class FloatRows {
    private static final int LANES = Vec.LANES;
    private static final VectorSpecies<Double> D = VectorWidth.DOUBLES;
    /** Physical double lanes: 2, 4 or 8. */
    private static final int W = D.length();
    /** The floats one double vector widens: half its width. */
    private static final VectorSpecies<Float> F = VectorWidth.floatsFor(W);

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
        int body = in & -LANES;
        int o = 0;
        // four outputs at a time share each load of x and keep four independent FMA chains busy
        for (; o + 4 <= out; o += 4) {
            double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            for (int part = 0; part < LANES; part += W) {
                DoubleVector a0 = DoubleVector.zero(D), a1 = a0, a2 = a0, a3 = a0;
                for (int i = part; i < body; i += LANES) {
                    DoubleVector xv = DoubleVector.fromArray(D, x, i);
                    a0 = widen(o * in + i).fma(xv, a0);
                    a1 = widen((o + 1) * in + i).fma(xv, a1);
                    a2 = widen((o + 2) * in + i).fma(xv, a2);
                    a3 = widen((o + 3) * in + i).fma(xv, a3);
                }
                for (int l = 0; l < W; l++) {
                    s0 += a0.lane(l);
                    s1 += a1.lane(l);
                    s2 += a2.lane(l);
                    s3 += a3.lane(l);
                }
            }
            y[o] = withTail(s0, o, body, x);
            y[o + 1] = withTail(s1, o + 1, body, x);
            y[o + 2] = withTail(s2, o + 2, body, x);
            y[o + 3] = withTail(s3, o + 3, body, x);
        }
        for (; o < out; o++) {
            double s = 0;
            for (int part = 0; part < LANES; part += W) {
                DoubleVector acc = DoubleVector.zero(D);
                for (int i = part; i < body; i += LANES) acc = widen(o * in + i).fma(DoubleVector.fromArray(D, x, i), acc);
                for (int l = 0; l < W; l++) s += acc.lane(l);
            }
            y[o] = withTail(s, o, body, x);
        }
        return y;
    }

    private DoubleVector widen(int offset) {
        return (DoubleVector) FloatVector.fromArray(F, transposed, offset).convertShape(VectorOperators.F2D, D, 0);
    }

    /** {@code s} plus the scalar tail of row {@code o} from {@code from}, in order. */
    private double withTail(double s, int o, int from, double[] x) {
        for (int i = from; i < in; i++) s += transposed[o * in + i] * x[i];
        return s;
    }
}
