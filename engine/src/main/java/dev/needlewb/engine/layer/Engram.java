package dev.needlewb.engine.layer;

import dev.needlewb.core.model.EngramHash;
import dev.needlewb.engine.cache.TokenHistory;
import dev.needlewb.engine.kernel.Activation;
import dev.needlewb.engine.kernel.NumericMode;
import dev.needlewb.engine.kernel.PackedCqMatrix;
import dev.needlewb.engine.kernel.RowPool;
import java.util.function.IntUnaryOperator;

/**
 * One engram site (SPEC section 2): per position, hash the n-grams ending there, decode only the
 * gathered table rows (zero when the n-gram reaches before the start), {@code k = e Wkey},
 * {@code v0 = e Wvalue}, the dilated causal conv {@code v = sum_j taps[j] * v0[pos - dil j]}, and the
 * gate that injects {@code v} into the block input. The static parts ({@link #gather}, {@link #conv},
 * {@link #gate}) are the math of both cases of the forward; an instance is a decoding session's site, with a ring
 * of past {@code v0} and every buffer allocated once.
 */
public final class Engram {
    /** The weights of a site: tables [tables * slots, subDim], key/value [d, tables * subDim], taps [taps, d]. */
    public record Weights(PackedCqMatrix tables, PackedCqMatrix key, PackedCqMatrix value, float[] taps) {}

    /**
     * The hashing geometry: the n-gram orders, tables per order, the seed stride (table {@code oi * heads + h}
     * hashes with seed index {@code oi * seedStride + h}: Needle 3's engram_seed_heads, else heads), slots per table.
     */
    public record Tables(int[] orders, int heads, int seedStride, int slots) {
        public int count() {
            return orders.length * heads;
        }
    }

    private final Weights w;
    private final Tables tables;
    private final int taps;
    private final int dilation;
    private final int d;
    private final float[] e;
    private final float[] scratch;
    private final Activation act;
    /** The last {@code (taps - 1) dilation + 1} positions' {@code v0}, row {@code pos % rows}. */
    private final float[] v0Ring;
    private final int ringRows;
    private final IntUnaryOperator ringRow;
    private final float[] v0;
    private final PackedCqMatrix[] projections;
    private final float[][] projected;
    /** Where the key and {@code v0} go in {@link #projected}. */
    private final int[] offsets = new int[2];

    public Engram(Weights w, Tables tables, int taps, int dilation, NumericMode mode) {
        this.w = w;
        this.tables = tables;
        this.taps = taps;
        this.dilation = dilation;
        this.d = w.key().rows();
        this.e = new float[w.key().cols()];
        this.scratch = new float[w.tables().decodeScratchLength()];
        this.act = w.key().newActivation(mode);
        this.ringRows = reach(taps, dilation);
        this.v0Ring = new float[ringRows * d];
        this.ringRow = p -> (p % ringRows) * d;
        this.v0 = new float[d];
        this.projections = new PackedCqMatrix[] {w.key(), w.value()};
        this.projected = new float[2][];
    }

    /** How many positions the conv reads: the current one and {@code taps - 1} dilated steps back. */
    public static int reach(int taps, int dilation) {
        return (taps - 1) * dilation + 1;
    }

    /**
     * The concatenated table rows of the n-grams ending at {@code pos} into {@code e[eOff, + count *
     * subDim)}: row {@code slot} of table {@code t = order_index * heads + head}, zero where the n-gram
     * reaches before position 0.
     */
    public static void gather(PackedCqMatrix rows, Tables tables, IntUnaryOperator tokenAt, int pos, float[] e, int eOff,
            float[] scratch) {
        int sub = rows.cols();
        for (int oi = 0; oi < tables.orders().length; oi++) {
            int order = tables.orders()[oi];
            for (int h = 0; h < tables.heads(); h++) {
                int t = oi * tables.heads() + h;
                int at = eOff + t * sub;
                if (pos - (order - 1) < 0) {
                    java.util.Arrays.fill(e, at, at + sub, 0f);
                } else {
                    int slot = EngramHash.slot(tokenAt, pos, order, oi * tables.seedStride() + h, tables.slots());
                    rows.decodeRow(t * tables.slots() + slot, e, at, scratch);
                }
            }
        }
    }

    /**
     * {@code out[outOff + i] = sum_j taps[j d + i] * v0[pos - j dil][i]} over the taps whose position is
     * not before 0, in tap order from 0; row {@code p} of {@code v0} starts at {@code src[rowAt(p)]}.
     */
    public static void conv(float[] taps, int tapCount, int dilation, int d, float[] src, IntUnaryOperator rowAt, int pos,
            float[] out, int outOff) {
        java.util.Arrays.fill(out, outOff, outOff + d, 0f);
        for (int j = 0; j < tapCount; j++) {
            int p = pos - j * dilation;
            if (p < 0) break;
            int row = rowAt.applyAsInt(p);
            for (int i = 0; i < d; i++) out[outOff + i] += taps[j * d + i] * src[row + i];
        }
    }

    /**
     * The injection gate {@code sigmoid(dot(rms_unit(u), rms_unit(k)) / sqrt(d))}: each unit vector's
     * element rounded as {@link Norms#rmsUnit} rounds it, their products summed in index order.
     */
    public static float gate(float[] u, int uOff, float[] k, int kOff, int d, Arithmetic.Sums sums) {
        float invU = Norms.inverseRms(sums, u, uOff, d), invK = Norms.inverseRms(sums, k, kOff, d);
        float dot = 0f;
        for (int i = 0; i < d; i++) dot += (u[uOff + i] * invU) * (k[kOff + i] * invK);
        return Norms.sigmoid(dot / (float) Math.sqrt(d));
    }

    /**
     * Engram key {@code k[kOff, + d)} and (conv-mixed) value {@code v[vOff, + d)} of the token at {@code pos};
     * positions must come in order.
     */
    public void step(TokenHistory tokens, int pos, RowPool pool, float[] k, int kOff, float[] v, int vOff) {
        gather(w.tables(), tables, tokens.reader(), pos, e, 0, scratch);
        act.prepare(e, 0);
        projected[0] = k;
        projected[1] = v0;
        offsets[0] = kOff;
        pool.matvec(act, projections, projected, offsets);
        System.arraycopy(v0, 0, v0Ring, ringRow.applyAsInt(pos), d);
        conv(w.taps(), taps, dilation, d, v0Ring, ringRow, pos, v, vOff);
    }
}
