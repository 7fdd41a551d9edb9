package dev.needlewb.engine.layer;

import dev.needlewb.engine.kernel.Lanes;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The mHC lane algebra of one position (SPEC section 2), shared by the one-token and the
 * many-position forwards: the coefficients from the three projections of the normalized lanes,
 * the block input {@code u = sum_j hpre[j] X[j]}, the update {@code X' = P X + hpost (block(u) - u)}
 * and the final mean of the lanes. Each output element is one float32 expression evaluated in a fixed
 * order (products rounded, then added from 0 in lane order), the same on vector lanes as in the
 * scalar tail, so the forward's two cases agree bit for bit wherever their inputs do.
 */
public final class Mhc {
    private static final VectorSpecies<Float> F = Lanes.F;
    /** The selected lane's offsets: it is favoured as the block input (+4 vs -4) and as the block output's target (0 vs -4). */
    private static final float PRE_SELECTED = 4f, PRE_OTHER = -4f, POST_SELECTED = 0f, POST_OTHER = -4f;

    private Mhc() {}

    /**
     * Layer {@code l}'s coefficients from the projections of the lanes: {@code pre[preOff + i]},
     * {@code post[postOff + i]} ({@code i < lanes}) and {@code res[resOff + k]} ({@code k < lanes^2}),
     * each times {@code inv} (the normalization's 1/rms where it was moved past the product, else 1):
     * {@code hpre = sigmoid(a_pre p + b_pre +- 4)}, {@code hpost = 2 sigmoid(a_post p + b_post + 0 | -4)},
     * and the residual logits {@code a_res p + b_res} into {@code logits}, the selected lane being {@code l mod lanes}.
     */
    public static void coefficients(MhcWeights w, int l, float[] pre, int preOff, float[] post, int postOff, float[] res,
            int resOff, float inv, float[] hpre, int hpreOff, float[] hpost, int hpostOff, float[] logits, int logitsOff) {
        int n = w.lanes();
        int selected = l % n;
        for (int i = 0; i < n; i++) {
            boolean s = i == selected;
            hpre[hpreOff + i] = Norms.sigmoid(w.aPre()[l] * (pre[preOff + i] * inv) + w.bPre()[l * n + i] + (s ? PRE_SELECTED : PRE_OTHER));
            hpost[hpostOff + i] = 2f * Norms.sigmoid(
                    w.aPost()[l] * (post[postOff + i] * inv) + w.bPost()[l * n + i] + (s ? POST_SELECTED : POST_OTHER));
        }
        for (int k = 0; k < n * n; k++) logits[logitsOff + k] = w.aRes()[l] * (res[resOff + k] * inv) + w.bRes()[l * n * n + k];
    }

    /** {@code out[outOff + c] = sum_j weights[wOff + j] * x[xOff + j d + c]} for {@code c < d}. */
    public static void combine(float[] x, int xOff, int lanes, int d, float[] weights, int wOff, float[] out, int outOff) {
        int c = 0;
        for (int bound = Lanes.loopBound(d); c < bound; c += F.length()) {
            FloatVector sum = FloatVector.zero(F);
            for (int j = 0; j < lanes; j++) sum = sum.add(FloatVector.fromArray(F, x, xOff + j * d + c).mul(weights[wOff + j]));
            sum.intoArray(out, outOff + c);
        }
        for (; c < d; c++) {
            float sum = 0f;
            for (int j = 0; j < lanes; j++) sum += weights[wOff + j] * x[xOff + j * d + c];
            out[outOff + c] = sum;
        }
    }

    /**
     * The lanes' update: {@code out[i][c] = sum_j mix[i][j] X[j][c] + hpost[i] (bx[c] - u[c])}, {@code mix}
     * the Sinkhorn matrix [lanes, lanes] at {@code mixOff}, {@code bx} the block's output and {@code u} its input.
     */
    public static void update(float[] x, int xOff, int lanes, int d, float[] mix, int mixOff, float[] hpost, int hpostOff,
            float[] bx, float[] u, int rowOff, float[] out, int outOff) {
        for (int i = 0; i < lanes; i++) {
            int m = mixOff + i * lanes, o = outOff + i * d;
            float h = hpost[hpostOff + i];
            int c = 0;
            for (int bound = Lanes.loopBound(d); c < bound; c += F.length()) {
                FloatVector sum = FloatVector.zero(F);
                for (int j = 0; j < lanes; j++) sum = sum.add(FloatVector.fromArray(F, x, xOff + j * d + c).mul(mix[m + j]));
                FloatVector y = FloatVector.fromArray(F, bx, rowOff + c).sub(FloatVector.fromArray(F, u, rowOff + c));
                sum.add(y.mul(h)).intoArray(out, o + c);
            }
            for (; c < d; c++) {
                float sum = 0f;
                for (int j = 0; j < lanes; j++) sum += mix[m + j] * x[xOff + j * d + c];
                out[o + c] = sum + h * (bx[rowOff + c] - u[rowOff + c]);
            }
        }
    }

    /** {@code out[outOff + c] = (X[0][c] + ... + X[lanes-1][c]) / lanes}. */
    public static void mean(float[] x, int xOff, int lanes, int d, float[] out, int outOff) {
        int c = 0;
        for (int bound = Lanes.loopBound(d); c < bound; c += F.length()) {
            FloatVector sum = FloatVector.zero(F);
            for (int j = 0; j < lanes; j++) sum = sum.add(FloatVector.fromArray(F, x, xOff + j * d + c));
            sum.div(lanes).intoArray(out, outOff + c);
        }
        for (; c < d; c++) {
            float sum = 0f;
            for (int j = 0; j < lanes; j++) sum += x[xOff + j * d + c];
            out[outOff + c] = sum / lanes;
        }
    }
}
