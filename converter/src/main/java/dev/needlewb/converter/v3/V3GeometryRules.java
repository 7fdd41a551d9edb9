package dev.needlewb.converter.v3;

import static dev.needlewb.converter.v3.V3HeaderField.D_MODEL;
import static dev.needlewb.converter.v3.V3HeaderField.ENGRAM_CONV_DILATION;
import static dev.needlewb.converter.v3.V3HeaderField.ENGRAM_CONV_TAPS;
import static dev.needlewb.converter.v3.V3HeaderField.ENGRAM_ORDERS;
import static dev.needlewb.converter.v3.V3HeaderField.ENGRAM_SITES;
import static dev.needlewb.converter.v3.V3HeaderField.ENGRAM_SLOTS;
import static dev.needlewb.converter.v3.V3HeaderField.ENGRAM_SUB_DIM;
import static dev.needlewb.converter.v3.V3HeaderField.HADA_N;
import static dev.needlewb.converter.v3.V3HeaderField.KV_BITS;
import static dev.needlewb.converter.v3.V3HeaderField.MAX_SEQ_LEN;
import static dev.needlewb.converter.v3.V3HeaderField.MHC_LANES;
import static dev.needlewb.converter.v3.V3HeaderField.NUM_ENGRAM_ORDERS;
import static dev.needlewb.converter.v3.V3HeaderField.NUM_ENGRAM_SITES;
import static dev.needlewb.converter.v3.V3HeaderField.NUM_ENGRAM_TABLES;
import static dev.needlewb.converter.v3.V3HeaderField.NUM_HEADS;
import static dev.needlewb.converter.v3.V3HeaderField.NUM_KV_HEADS;
import static dev.needlewb.converter.v3.V3HeaderField.NUM_LAYERS;
import static dev.needlewb.converter.v3.V3HeaderField.OUT_VOCAB;
import static dev.needlewb.converter.v3.V3HeaderField.QKV_CONV_TAPS;
import static dev.needlewb.converter.v3.V3HeaderField.QK_HEAD_DIM;
import static dev.needlewb.converter.v3.V3HeaderField.ROPE_THETA;
import static dev.needlewb.converter.v3.V3HeaderField.V_HEAD_DIM;
import static dev.needlewb.converter.v3.V3HeaderField.VOCAB;

import dev.needlewb.converter.cact.HeaderViolation;
import dev.needlewb.core.v3.V3Geometry;
import java.util.Arrays;

/**
 * The rules a Needle 3 header geometry must satisfy. Each holds for every file upstream's v3
 * exporter ({@code usserwout/needle3} needle/model/export.py: {@code _geometry}, {@code _pack_cact})
 * writes from a config its {@code architecture.py} builds, and the comment on each names the
 * code that makes it hold (file:line at commit b01d9769); a few are the workbench's own limits
 * (reader safety) and say so. What upstream writes but is unusual (global-mask bits past the
 * stack, repeated engram sites, kv_bits other than 8) is a note ({@link V3Notes}), not a rule.
 * Unused order and site slots are checked by the header reader.
 */
public final class V3GeometryRules {
    /** export.py:133 {@code ENGRAM_CONV_TAPS}. */
    public static final int ENGRAM_CONV_TAPS_VALUE = 4;

    private V3GeometryRules() {}

    /** The first rule {@code g} breaks, or null if it is consistent. */
    public static HeaderViolation check(V3Geometry g) {
        // Zero sizes: no upstream model has them (architecture.py: nn.Embed(vocab_size, d_model);
        // the repeat of num_heads // num_kv_heads at 634 needs kv heads; Stack indexes its lanes;
        // _ladder_layer_order raises "models require at least one layer" at 174); sizes of 2^31
        // and more cannot be indexed by the reader (safety).
        V3HeaderField[] positive = {VOCAB, D_MODEL, NUM_HEADS, NUM_KV_HEADS, NUM_LAYERS, QK_HEAD_DIM, V_HEAD_DIM, MAX_SEQ_LEN, MHC_LANES};
        int[] values = {g.vocab(), g.dModel(), g.numHeads(), g.numKvHeads(), g.numLayers(), g.qkHeadDim(), g.vHeadDim(),
            g.maxSeqLen(), g.mhcLanes()};
        for (int i = 0; i < positive.length; i++) {
            // qk/v: head_dims (architecture.py:165-169) writes qk_head_dim or d_model // num_heads
            if (values[i] <= 0) return HeaderViolation.outOfRange(positive[i].offset(), positive[i].upstreamName(), values[i]);
        }
        // export.py:119-121: "cact global_mask holds 64 layers"
        if (g.numLayers() > V3Geometry.MAX_LAYERS) {
            return new HeaderViolation(NUM_LAYERS.offset(), "num_layers " + g.numLayers() + " exceeds the "
                    + V3Geometry.MAX_LAYERS + " layers global_mask_lo/hi hold (export.py:119-121)");
        }
        // export.py:397-398: "out_vocab ... exceeds the exported vocab"; 0 means every row
        if (Integer.compareUnsigned(g.outVocabField(), g.vocab()) > 0) {
            return new HeaderViolation(OUT_VOCAB.offset(), "out_vocab " + Integer.toUnsignedString(g.outVocabField())
                    + " exceeds vocab " + g.vocab() + " (export.py:397-398)");
        }
        // The workbench's limit (safety): the widths the matrices multiply into index Java arrays.
        HeaderViolation wide = HeaderViolation.productOver(NUM_HEADS.offset(), "num_heads x qk_head_dim", g.numHeads(), g.qkHeadDim());
        if (wide == null) wide = HeaderViolation.productOver(NUM_HEADS.offset(), "num_heads x v_head_dim", g.numHeads(), g.vHeadDim());
        if (wide == null) wide = HeaderViolation.productOver(NUM_KV_HEADS.offset(), "num_kv_heads x v_head_dim", g.numKvHeads(), g.vHeadDim());
        if (wide == null) wide = HeaderViolation.productOver(MHC_LANES.offset(), "mhc_lanes x d_model", g.mhcLanes(), g.dModel());
        if (wide == null) wide = HeaderViolation.productOver(MHC_LANES.offset(), "mhc_lanes^2 x num_layers", (long) g.mhcLanes() * g.mhcLanes(), g.numLayers());
        if (wide != null) return wide;
        // qkv_conv_taps is any count upstream's config holds (0: no conv, no tap tensors,
        // export.py:252-257); the tap tensors [taps, width] must fit an int (safety)
        if (g.qkvConvTaps() < 0) {
            return new HeaderViolation(QKV_CONV_TAPS.offset(), "qkv_conv_taps " + Integer.toUnsignedString(g.qkvConvTaps()) + " exceeds 2^31-1");
        }
        wide = HeaderViolation.productOver(QKV_CONV_TAPS.offset(), "qkv_conv_taps x the widest projection", g.qkvConvTaps(),
                Math.max(g.qDim(), g.vDim()));
        if (wide != null) return wide;
        // MultiHeadAttention repeats each kv head num_heads // num_kv_heads times (architecture.py:634-637)
        if (g.numHeads() % g.numKvHeads() != 0) {
            return new HeaderViolation(NUM_KV_HEADS.offset(), "num_heads " + g.numHeads() + " is not a multiple of num_kv_heads "
                    + g.numKvHeads() + " (grouped-query attention, architecture.py:634)");
        }
        // apply_rope splits the qk head in halves against qk_head_dim/2 frequencies (architecture.py:392-406)
        if (g.qkHeadDim() % 2 != 0) {
            return new HeaderViolation(QK_HEAD_DIM.offset(), "qk_head_dim " + g.qkHeadDim() + " must be even (RoPE rotates halves, architecture.py:399-406)");
        }
        // export.py:408: hada_n = 1 << (d_model - 1).bit_length()
        long hada = Long.highestOneBit(g.dModel()) == g.dModel() ? g.dModel() : Long.highestOneBit(g.dModel()) << 1;
        if (g.hadaN() != hada) {
            return new HeaderViolation(HADA_N.offset(), "hada_n " + Integer.toUnsignedString(g.hadaN()) + " must be " + hada
                    + ", the smallest power of two >= d_model " + g.dModel() + " (export.py:408)");
        }
        // export.py:423 takes max(orders) (an empty tuple raises); orders4 (export.py:409) keeps 4:
        // upstream writes a larger count but its own read_export loses the rest
        int[] orders = g.engramOrders();
        if (orders.length < 1 || orders.length > V3Geometry.MAX_ORDERS) {
            return new HeaderViolation(NUM_ENGRAM_ORDERS.offset(), "num_engram_orders " + orders.length + " must be 1.."
                    + V3Geometry.MAX_ORDERS + " (export.py:409, 423)");
        }
        // export.py:122-124: "cact header holds 16 engram sites"
        int[] sites = g.engramSites();
        if (sites.length > V3Geometry.MAX_SITES) {
            return new HeaderViolation(NUM_ENGRAM_SITES.offset(), "num_engram_sites " + sites.length + " exceeds "
                    + V3Geometry.MAX_SITES + " (export.py:122-124)");
        }
        // NeedleModel.setup asserts every engram layer < num_layers (architecture.py:1214)
        for (int i = 0; i < sites.length; i++) {
            if (sites[i] < 0 || sites[i] >= g.numLayers()) {
                return new HeaderViolation(ENGRAM_SITES.offset(i), "engram site " + Integer.toUnsignedString(sites[i])
                        + " is not a layer (num_layers " + g.numLayers() + ", architecture.py:1214)");
            }
        }
        // export.py:126, 422: tables = len(orders) * heads, heads = engram_heads or max(1, ...) >= 1
        int tables = g.numEngramTables();
        if (tables <= 0 || tables % orders.length != 0) {
            return new HeaderViolation(NUM_ENGRAM_TABLES.offset(), "num_engram_tables " + Integer.toUnsignedString(tables)
                    + " must be a positive multiple of num_engram_orders " + orders.length + " (tables = orders x heads, export.py:126)");
        }
        // export.py:127: sub_dim = d_model // (len(orders) * heads)
        if (g.engramSubDim() != g.dModel() / tables) {
            return new HeaderViolation(ENGRAM_SUB_DIM.offset(), "engram_sub_dim " + Integer.toUnsignedString(g.engramSubDim())
                    + " must be d_model / tables = " + g.dModel() + " / " + tables + " = " + g.dModel() / tables + " (export.py:127)");
        }
        // export.py:423 writes the constant ENGRAM_CONV_TAPS and max(orders)
        if (g.engramConvTaps() != ENGRAM_CONV_TAPS_VALUE) {
            return new HeaderViolation(ENGRAM_CONV_TAPS.offset(), "engram_conv_taps " + Integer.toUnsignedString(g.engramConvTaps())
                    + " must be " + ENGRAM_CONV_TAPS_VALUE + " (ENGRAM_CONV_TAPS, export.py:133)");
        }
        int maxOrder = Arrays.stream(orders).max().orElse(0);
        if (g.engramConvDilation() != maxOrder) {
            return new HeaderViolation(ENGRAM_CONV_DILATION.offset(), "engram_conv_dilation "
                    + Integer.toUnsignedString(g.engramConvDilation()) + " must be the largest engram order " + maxOrder + " (export.py:423)");
        }
        if (sites.length > 0) {
            HeaderViolation v = engramRunnable(g, orders);
            if (v != null) return v;
        }
        // export.py:406 writes int(config.kv_bits or 8): never 0
        if (g.kvBits() <= 0) return HeaderViolation.outOfRange(KV_BITS.offset(), "kv_bits", g.kvBits());
        // precompute_rope_freqs computes 1 / theta ** (2i / qk_head_dim) (architecture.py:392-396):
        // zero, negative or NaN gives NaN angles
        if (!(g.ropeTheta() > 0)) {
            return new HeaderViolation(ROPE_THETA.offset(), "rope_theta " + g.ropeTheta() + " must be positive (architecture.py:392-396)");
        }
        return null;
    }

    /** The engram fields a model with sites uses (a model without sites never reads them). */
    private static HeaderViolation engramRunnable(V3Geometry g, int[] orders) {
        // engram_indices takes tokens modulo engram_slots; _mask_diag pads by order - 1
        if (g.engramSlots() <= 0) return HeaderViolation.outOfRange(ENGRAM_SLOTS.offset(), "engram_slots", g.engramSlots());
        for (int i = 0; i < orders.length; i++) {
            if (orders[i] <= 0) return HeaderViolation.outOfRange(ENGRAM_ORDERS.offset(i), "engram order", orders[i]);
        }
        HeaderViolation wide = HeaderViolation.productOver(ENGRAM_SLOTS.offset(), "num_engram_tables x engram_slots", g.numEngramTables(), g.engramSlots());
        if (wide == null) wide = HeaderViolation.productOver(NUM_ENGRAM_TABLES.offset(), "num_engram_tables x engram_sub_dim", g.numEngramTables(), g.engramSubDim());
        if (wide != null) return wide;
        // The workbench's limit: an explicit engram_heads above d_model / len(orders) gives
        // zero-width tables, a no-op engram upstream computes and the workbench does not.
        if (g.engramSubDim() <= 0) {
            return new HeaderViolation(ENGRAM_SUB_DIM.offset(), "engram_sub_dim 0: " + g.numEngramTables()
                    + " engram tables do not fit d_model " + g.dModel() + " (the workbench needs rows of at least one value)");
        }
        return null;
    }
}
