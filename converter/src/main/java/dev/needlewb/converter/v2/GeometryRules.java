package dev.needlewb.converter.v2;

import dev.needlewb.converter.cact.CactFormat;
import dev.needlewb.converter.cact.HeaderViolation;
import dev.needlewb.core.v2.Geometry;
import java.util.Arrays;

/**
 * The rules a Needle 2 header geometry must satisfy. Each holds for every file upstream's exporter
 * ({@code needle/model/export.py}: {@code _geometry}, {@code _pack_cact}) writes from a model
 * upstream's {@code architecture.py} can build, and the comment on each says which code makes
 * it hold; a few are the workbench's own limits and say so. Fields upstream leaves free
 * (kv_window, kv_bits beyond 8/2/3/4, repeated engram sites, engram fields of a model without
 * sites) are not checked here: {@link V2Notes} describes the unusual ones. Engram
 * orders/sites: the {@link Geometry} holds the used entries; the reader checks unused slots.
 */
public final class GeometryRules {
    /** Upstream export.py / architecture.py {@code ENGRAM_CONV_TAPS}. */
    public static final int ENGRAM_CONV_TAPS = 4;

    private GeometryRules() {}

    /** The first rule {@code g} breaks, or null if it is consistent. */
    public static HeaderViolation check(Geometry g) {
        // Zero sizes: no upstream model has them (architecture.py: residual_init divides by
        // sqrt(2 * num_layers); head_dims divides by num_heads; GQA needs num_kv_heads >= 1;
        // Stack indexes np.eye(mhc_lanes)[arange(L) % mhc_lanes]; the tokenizer's four special
        // ids need a vocabulary; training packs max_seq_len tokens). Sizes of 2^31 and more
        // cannot be indexed by the reader (safety).
        int[][] positive = {
            {V2Header.OFF_VOCAB, g.vocab()}, {V2Header.OFF_D_MODEL, g.dModel()},
            {V2Header.OFF_NUM_HEADS, g.numHeads()}, {V2Header.OFF_NUM_KV_HEADS, g.numKvHeads()},
            {V2Header.OFF_NUM_LAYERS, g.numLayers()}, {V2Header.OFF_HEAD_DIM, g.headDim()},
            {V2Header.OFF_MAX_SEQ_LEN, g.maxSeqLen()}, {V2Header.OFF_MHC_LANES, g.mhcLanes()},
        };
        String[] names = {"vocab", "d_model", "num_heads", "num_kv_heads", "num_layers", "head_dim", "max_seq_len", "mhc_lanes"};
        for (int i = 0; i < positive.length; i++) {
            if (positive[i][1] <= 0) return HeaderViolation.outOfRange(positive[i][0], names[i], positive[i][1]);
        }
        // The workbench's limit: the widths and row counts the sizes multiply into (q and kv
        // projections, the mHC input and phi_res rows) index Java arrays, as int: each must fit
        // 2^31 - 1. A matrix that large holds billions of parameters; upstream's are far below.
        HeaderViolation wide = HeaderViolation.productOver(V2Header.OFF_NUM_HEADS, "num_heads x head_dim", g.numHeads(), g.headDim());
        if (wide == null) wide = HeaderViolation.productOver(V2Header.OFF_NUM_KV_HEADS, "num_kv_heads x head_dim", g.numKvHeads(), g.headDim());
        if (wide == null) wide = HeaderViolation.productOver(V2Header.OFF_MHC_LANES, "mhc_lanes x d_model", g.mhcLanes(), g.dModel());
        if (wide == null) wide = HeaderViolation.productOver(V2Header.OFF_MHC_LANES, "mhc_lanes^2 x num_layers", (long) g.mhcLanes() * g.mhcLanes(), g.numLayers());
        if (wide != null) return wide;
        // MultiHeadAttention: jax dot_product_attention (and the repeat of the non-flash path)
        // needs whole groups of query heads per kv head.
        if (g.numHeads() % g.numKvHeads() != 0) {
            return new HeaderViolation(V2Header.OFF_NUM_KV_HEADS, "num_heads " + g.numHeads()
                    + " is not a multiple of num_kv_heads " + g.numKvHeads() + " (grouped-query attention)");
        }
        // apply_rope splits head_dim in halves against head_dim/2 frequencies: odd fails to broadcast.
        if (g.headDim() % 2 != 0) {
            return new HeaderViolation(V2Header.OFF_HEAD_DIM, "head_dim " + g.headDim() + " must be even (RoPE rotates halves)");
        }
        // _pack_cact writes hada_n = 1 << (d_model - 1).bit_length() (HadamardMLP's n).
        long hada = Long.highestOneBit(g.dModel()) == g.dModel() ? g.dModel() : Long.highestOneBit(g.dModel()) << 1;
        if (g.hadaN() != hada) {
            return new HeaderViolation(V2Header.OFF_HADA_N, "hada_n " + Integer.toUnsignedString(g.hadaN())
                    + " must be " + hada + ", the smallest power of two >= d_model " + g.dModel());
        }
        // _geometry divides d_model by len(orders) * heads and _pack_cact takes max(orders): an
        // empty tuple raises. More than 4 do not fit orders4 (upstream truncates the slots but
        // writes the full count, and its own read_export loses the rest).
        int[] orders = g.engramOrders();
        if (orders.length < 1 || orders.length > Geometry.MAX_ORDERS) {
            return new HeaderViolation(V2Header.OFF_NUM_ORDERS, "num_engram_orders " + orders.length
                    + " must be 1.." + Geometry.MAX_ORDERS + " (the dilation is the largest order)");
        }
        // Likewise sites4: a fifth site's layer is lost.
        int[] sites = g.engramSites();
        if (sites.length > Geometry.MAX_SITES) {
            return new HeaderViolation(V2Header.OFF_NUM_SITES, "num_engram_sites " + sites.length + " exceeds " + Geometry.MAX_SITES);
        }
        // SimpleAttentionNetwork.setup asserts every engram layer < num_layers; struct 'I' refuses
        // a negative one. Two sites at one layer are upstream's (Stack sums them): a note, not a rule.
        for (int i = 0; i < sites.length; i++) {
            if (sites[i] < 0 || sites[i] >= g.numLayers()) {
                return new HeaderViolation(V2Header.OFF_SITES + 4 * i, "engram site " + Integer.toUnsignedString(sites[i])
                        + " is not a layer (num_layers " + g.numLayers() + ")");
            }
        }
        // _pack_cact writes len(orders) * heads, heads = engram_heads or max(1, ...) >= 1 (a
        // negative engram_heads makes the count negative, which struct 'I' refuses).
        int tables = g.numEngramTables();
        if (tables <= 0 || tables % orders.length != 0) {
            return new HeaderViolation(V2Header.OFF_ENGRAM_TABLES, "num_engram_tables " + Integer.toUnsignedString(tables)
                    + " must be a positive multiple of num_engram_orders " + orders.length + " (tables = orders x heads)");
        }
        // _geometry: sub_dim = d_model // (len(orders) * heads).
        if (g.engramSubDim() != g.dModel() / tables) {
            return new HeaderViolation(V2Header.OFF_ENGRAM_SUB_DIM, "engram_sub_dim " + Integer.toUnsignedString(g.engramSubDim())
                    + " must be d_model / tables = " + g.dModel() + " / " + tables + " = " + g.dModel() / tables);
        }
        // _pack_cact writes ENGRAM_CONV_TAPS and max(orders).
        if (g.engramConvTaps() != ENGRAM_CONV_TAPS) {
            return new HeaderViolation(V2Header.OFF_CONV_TAPS, "engram_conv_taps " + Integer.toUnsignedString(g.engramConvTaps())
                    + " must be " + ENGRAM_CONV_TAPS + " (upstream ENGRAM_CONV_TAPS)");
        }
        int maxOrder = Arrays.stream(orders).max().orElse(0);
        if (g.engramConvDilation() != maxOrder) {
            return new HeaderViolation(V2Header.OFF_CONV_DILATION, "engram_conv_dilation "
                    + Integer.toUnsignedString(g.engramConvDilation()) + " must be the largest engram order " + maxOrder);
        }
        if (sites.length > 0) {
            HeaderViolation v = engramRunnable(g, orders);
            if (v != null) return v;
        }
        // _pack_cact writes int(config.kv_bits or 8): never 0. Any other width is upstream's
        // (configure_deploy fake-quantizes the KV cache at any width below 8): a note.
        if (g.kvBits() <= 0) return HeaderViolation.outOfRange(CactFormat.OFF_KV_BITS, "kv_bits", g.kvBits());
        // kv_window: any u32. effective_kv_window can exceed max_seq_len (kv_budget_window is at
        // least KV_WINDOW_MIN = 160) and build_export takes any kv_window: see Geometry.slidingWindow.
        // rope_theta: precompute_rope_freqs computes 1 / theta ** (2i / head_dim); zero, negative or
        // NaN gives NaN angles, so no upstream model has one. An infinite theta (no rotation
        // beyond dimension 0) is finite arithmetic upstream and here.
        if (!(g.ropeTheta() > 0)) {
            return new HeaderViolation(V2Header.OFF_ROPE_THETA, "rope_theta " + g.ropeTheta() + " must be positive");
        }
        return null;
    }

    /**
     * The engram fields a model with engram sites uses (a model without sites never reads them:
     * SimpleAttentionNetwork._engram_kv returns None, so upstream writes whatever its config holds).
     */
    private static HeaderViolation engramRunnable(Geometry g, int[] orders) {
        // engram_indices takes tokens modulo engram_slots and _mask_diag pads by order - 1 (an
        // order of 0 pads by -1, which jnp.pad refuses).
        if (g.engramSlots() <= 0) return HeaderViolation.outOfRange(V2Header.OFF_ENGRAM_SLOTS, "engram_slots", g.engramSlots());
        for (int i = 0; i < orders.length; i++) {
            if (orders[i] <= 0) return HeaderViolation.outOfRange(V2Header.OFF_ORDERS + 4 * i, "engram order", orders[i]);
        }
        HeaderViolation wide = HeaderViolation.productOver(V2Header.OFF_ENGRAM_SLOTS, "num_engram_tables x engram_slots", g.numEngramTables(), g.engramSlots());
        if (wide == null) wide = HeaderViolation.productOver(V2Header.OFF_ENGRAM_TABLES, "num_engram_tables x engram_sub_dim", g.numEngramTables(), g.engramSubDim());
        if (wide != null) return wide;
        // The workbench's limit: only an explicit engram_heads above d_model / len(orders) gives
        // zero-width tables, a no-op engram upstream computes and the workbench's kernels do not.
        if (g.engramSubDim() <= 0) {
            return new HeaderViolation(V2Header.OFF_ENGRAM_SUB_DIM, "engram_sub_dim 0: " + g.numEngramTables()
                    + " engram tables do not fit d_model " + g.dModel() + " (the workbench needs rows of at least one value)");
        }
        return null;
    }
}
