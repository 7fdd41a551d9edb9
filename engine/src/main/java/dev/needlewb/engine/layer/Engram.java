package dev.needlewb.engine.layer;

import dev.needlewb.converter.model.EngramHash;
import dev.needlewb.engine.kernel.Activation;
import dev.needlewb.engine.kernel.NumericMode;
import dev.needlewb.engine.kernel.PackedCqMatrix;
import dev.needlewb.engine.kernel.RowPool;

/**
 * One engram site during decoding. Per position: hash the n-grams ending there, decode only the
 * gathered table rows (zero when the n-gram reaches before the start), {@code k = e Wkey},
 * {@code v0 = e Wvalue}, then the dilated causal conv {@code v = sum_j taps[j] * v0[pos - dil*j]}
 * over a ring of past {@code v0}.
 */
public final class Engram {
    /** The weights of a site: tables [tables * slots, subDim], key/value [d, tables * subDim], taps [taps, d]. */
    public record Weights(PackedCqMatrix tables, PackedCqMatrix key, PackedCqMatrix value, float[] taps) {}

    private final Weights w;
    private final int[] orders;
    private final int heads;
    private final int slots;
    private final int subDim;
    private final int taps;
    private final int dilation;
    private final int d;
    private final float[] e;
    private final float[] scratch;
    private final Activation act;
    private final float[][] v0Ring;
    private final float[] v0;
    private final PackedCqMatrix[] projections;
    private final float[][] projected;

    public Engram(Weights w, int[] orders, int heads, int slots, int taps, int dilation, NumericMode mode) {
        this.w = w;
        this.orders = orders.clone();
        this.heads = heads;
        this.slots = slots;
        this.subDim = w.tables().cols();
        this.taps = taps;
        this.dilation = dilation;
        this.d = w.key().rows();
        this.e = new float[w.key().cols()];
        this.scratch = new float[w.tables().decodeScratchLength()];
        this.act = w.key().newActivation(mode);
        this.v0Ring = new float[(taps - 1) * dilation + 1][d];
        this.v0 = new float[d];
        this.projections = new PackedCqMatrix[] {w.key(), w.value()};
        this.projected = new float[2][];
    }

    /** The gathered slot of every table at {@code pos} ({@code -1} where the n-gram is not whole). */
    public int[] slots(TokenHistory tokens, int pos) {
        int[] out = new int[orders.length * heads];
        for (int oi = 0; oi < orders.length; oi++) {
            for (int h = 0; h < heads; h++) {
                int t = oi * heads + h;
                out[t] = pos - (orders[oi] - 1) < 0 ? -1 : EngramHash.slot(tokens::at, pos, orders[oi], t, slots);
            }
        }
        return out;
    }

    /** Engram key and (conv-mixed) value of the token at {@code pos}; positions must come in order. */
    public void step(TokenHistory tokens, int pos, RowPool pool, float[] k, float[] v) {
        int[] gathered = slots(tokens, pos);
        for (int t = 0; t < gathered.length; t++) {
            if (gathered[t] < 0) java.util.Arrays.fill(e, t * subDim, (t + 1) * subDim, 0f);
            else w.tables().decodeRow(t * slots + gathered[t], e, t * subDim, scratch);
        }
        act.prepare(e, 0);
        projected[0] = k;
        projected[1] = v0;
        pool.matvec(act, projections, projected);
        System.arraycopy(v0, 0, v0Ring[pos % v0Ring.length], 0, d);
        java.util.Arrays.fill(v, 0, d, 0f);
        for (int j = 0; j < taps; j++) {
            int p = pos - j * dilation;
            if (p < 0) break;
            float[] past = v0Ring[p % v0Ring.length];
            for (int i = 0; i < d; i++) v[i] += w.taps()[j * d + i] * past[i];
        }
    }
}
