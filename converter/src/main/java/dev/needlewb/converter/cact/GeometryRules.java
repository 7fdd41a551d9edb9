package dev.needlewb.converter.cact;

import dev.needlewb.converter.model.Geometry;
import java.util.Arrays;

/**
 * Consistency rules a header geometry must satisfy, each derived from how upstream
 * {@code export._geometry} / {@code _pack_cact} compute the fields. Engram orders/sites: the
 * {@link Geometry} holds the used entries; unused header slots are checked by the reader.
 */
public final class GeometryRules {
    /** Upstream ENGRAM_CONV_TAPS. */
    public static final int ENGRAM_CONV_TAPS = 4;

    /** A broken rule: the header byte offset of the field concerned and what is wrong. */
    public record Violation(int headerOffset, String problem) {}

    private GeometryRules() {}

    /** The first rule {@code g} breaks, or null if it is consistent. */
    public static Violation check(Geometry g) {
        int[][] positive = {
            {CactFormat.OFF_VOCAB, g.vocab()}, {CactFormat.OFF_D_MODEL, g.dModel()},
            {CactFormat.OFF_NUM_HEADS, g.numHeads()}, {CactFormat.OFF_NUM_KV_HEADS, g.numKvHeads()},
            {CactFormat.OFF_NUM_LAYERS, g.numLayers()}, {CactFormat.OFF_HEAD_DIM, g.headDim()},
            {CactFormat.OFF_MAX_SEQ_LEN, g.maxSeqLen()}, {CactFormat.OFF_MHC_LANES, g.mhcLanes()},
            {CactFormat.OFF_ENGRAM_SLOTS, g.engramSlots()},
        };
        String[] names = {"vocab", "d_model", "num_heads", "num_kv_heads", "num_layers", "head_dim", "max_seq_len",
            "mhc_lanes", "engram_slots"};
        for (int i = 0; i < positive.length; i++) {
            if (positive[i][1] <= 0) {
                return new Violation(positive[i][0], names[i] + " " + Integer.toUnsignedString(positive[i][1])
                        + " must be between 1 and 2^31-1");
            }
        }
        if (g.numHeads() % g.numKvHeads() != 0) {
            return new Violation(CactFormat.OFF_NUM_KV_HEADS, "num_heads " + g.numHeads()
                    + " is not a multiple of num_kv_heads " + g.numKvHeads() + " (grouped-query attention)");
        }
        if (g.headDim() % 2 != 0) {
            return new Violation(CactFormat.OFF_HEAD_DIM, "head_dim " + g.headDim() + " must be even (RoPE rotates halves)");
        }
        long hada = Long.highestOneBit(g.dModel()) == g.dModel() ? g.dModel() : Long.highestOneBit(g.dModel()) << 1;
        if (g.hadaN() != hada) {
            return new Violation(CactFormat.OFF_HADA_N, "hada_n " + Integer.toUnsignedString(g.hadaN())
                    + " must be " + hada + ", the smallest power of two >= d_model " + g.dModel());
        }
        int[] orders = g.engramOrders();
        if (orders.length < 1 || orders.length > Geometry.MAX_ORDERS) {
            return new Violation(CactFormat.OFF_NUM_ORDERS, "num_engram_orders " + orders.length
                    + " must be 1.." + Geometry.MAX_ORDERS + " (the dilation is the largest order)");
        }
        for (int i = 0; i < orders.length; i++) {
            if (orders[i] <= 0) {
                return new Violation(CactFormat.OFF_ORDERS + 4 * i, "engram order " + Integer.toUnsignedString(orders[i])
                        + " must be between 1 and 2^31-1");
            }
        }
        int[] sites = g.engramSites();
        if (sites.length > Geometry.MAX_SITES) {
            return new Violation(CactFormat.OFF_NUM_SITES, "num_engram_sites " + sites.length + " exceeds " + Geometry.MAX_SITES);
        }
        for (int i = 0; i < sites.length; i++) {
            if (sites[i] < 0 || sites[i] >= g.numLayers()) {
                return new Violation(CactFormat.OFF_SITES + 4 * i, "engram site " + Integer.toUnsignedString(sites[i])
                        + " is not a layer (num_layers " + g.numLayers() + ")");
            }
            for (int j = 0; j < i; j++) {
                if (sites[j] == sites[i]) {
                    return new Violation(CactFormat.OFF_SITES + 4 * i, "engram site " + sites[i] + " is listed twice");
                }
            }
        }
        int tables = g.numEngramTables();
        if (tables <= 0 || tables % orders.length != 0) {
            return new Violation(CactFormat.OFF_ENGRAM_TABLES, "num_engram_tables " + Integer.toUnsignedString(tables)
                    + " must be a positive multiple of num_engram_orders " + orders.length + " (tables = orders x heads)");
        }
        if (g.engramSubDim() <= 0 || g.engramSubDim() != g.dModel() / tables) {
            return new Violation(CactFormat.OFF_ENGRAM_SUB_DIM, "engram_sub_dim " + Integer.toUnsignedString(g.engramSubDim())
                    + " must be d_model / tables = " + g.dModel() + " / " + tables + " = " + g.dModel() / tables);
        }
        if (g.engramConvTaps() != ENGRAM_CONV_TAPS) {
            return new Violation(CactFormat.OFF_CONV_TAPS, "engram_conv_taps " + Integer.toUnsignedString(g.engramConvTaps())
                    + " must be " + ENGRAM_CONV_TAPS + " (upstream ENGRAM_CONV_TAPS)");
        }
        int maxOrder = Arrays.stream(orders).max().orElse(0);
        if (g.engramConvDilation() != maxOrder) {
            return new Violation(CactFormat.OFF_CONV_DILATION, "engram_conv_dilation "
                    + Integer.toUnsignedString(g.engramConvDilation()) + " must be the largest engram order " + maxOrder);
        }
        if (g.kvBits() != 8 && (g.kvBits() < 2 || g.kvBits() > 4)) {
            return new Violation(CactFormat.OFF_KV_BITS, "kv_bits " + Integer.toUnsignedString(g.kvBits())
                    + " must be 8 (int8) or 2, 3, 4 (CQ)");
        }
        if (g.kvWindow() < 0 || g.kvWindow() > g.maxSeqLen()) {
            return new Violation(CactFormat.OFF_KV_WINDOW, "kv_window " + Integer.toUnsignedString(g.kvWindow())
                    + " must be 0 (budget only) or at most max_seq_len " + g.maxSeqLen());
        }
        if (!(g.ropeTheta() > 0) || Float.isInfinite(g.ropeTheta())) {
            return new Violation(CactFormat.OFF_ROPE_THETA, "rope_theta " + g.ropeTheta() + " must be finite and positive");
        }
        return null;
    }
}
