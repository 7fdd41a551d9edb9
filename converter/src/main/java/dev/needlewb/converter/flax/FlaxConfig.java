package dev.needlewb.converter.flax;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.v2.Geometry;
import java.util.Arrays;
import java.util.Map;

/**
 * The fields of upstream's {@code TransformerConfig} the model needs, read from a checkpoint's
 * {@code config} dict. A missing field takes the dataclass default, as {@code TransformerConfig(**config)}
 * does; {@code attn_dim} 0 means {@code d_model}.
 */
public record FlaxConfig(
        int vocabSize,
        int dModel,
        int attnDim,
        int numHeads,
        int numKvHeads,
        int numLayers,
        int maxSeqLen,
        int padTokenId,
        int contrastiveDim,
        double ropeTheta,
        int[] engramOrders,
        int engramHeads,
        int engramSlots,
        int[] engramLayers,
        int mhcLanes,
        int kvWindow,
        int kvBits,
        int actBits,
        String weightBits) {

    /** Upstream {@code ENGRAM_SUB_DIM}: the target width of one engram table row. */
    public static final int ENGRAM_SUB_DIM_TARGET = 128;
    /** Upstream {@code ENGRAM_CONV_TAPS}. */
    public static final int ENGRAM_CONV_TAPS = 4;

    public FlaxConfig {
        engramOrders = engramOrders.clone();
        engramLayers = engramLayers.clone();
    }

    /** Reads and checks the config dict (values as {@link SafePickle} returns them). */
    public static FlaxConfig of(Map<String, Object> c) throws WorkbenchException {
        int dModel = ConfigFields.integer(c, "d_model", 512);
        int attnDim = ConfigFields.integer(c, "attn_dim", 0);
        FlaxConfig f = new FlaxConfig(
                ConfigFields.integer(c, "vocab_size", 8192), dModel, attnDim == 0 ? dModel : attnDim,
                ConfigFields.integer(c, "num_heads", 8), ConfigFields.integer(c, "num_kv_heads", 4), ConfigFields.integer(c, "num_layers", 12),
                ConfigFields.integer(c, "max_seq_len", 2048), ConfigFields.integer(c, "pad_token_id", 0), ConfigFields.integer(c, "contrastive_dim", 128),
                ConfigFields.number(c, "rope_theta", 100000.0), ConfigFields.integers(c, "engram_orders", new int[] {2, 3}),
                ConfigFields.integer(c, "engram_heads", 0), ConfigFields.integer(c, "engram_slots", 8192),
                ConfigFields.integers(c, "engram_layers", new int[] {2, 15}), ConfigFields.integer(c, "mhc_lanes", 4),
                ConfigFields.integer(c, "kv_window", 0), ConfigFields.integer(c, "kv_bits", 8), ConfigFields.integer(c, "act_bits", 8),
                c.get("weight_bits") instanceof String s ? s : "");
        f.check();
        return f;
    }

    /**
     * What upstream's model and exporter need of a config (the same facts as
     * {@code v2.GeometryRules}): positive sizes (architecture.py divides by num_heads and
     * sqrt(2 * num_layers), indexes np.eye(mhc_lanes)), whole heads in attn_dim (the reshape into
     * heads), GQA groups, at least one engram order (export._geometry divides by len(orders)),
     * engram layers inside the stack (SimpleAttentionNetwork.setup asserts it); orders, slots and
     * table width matter only when there are engram sites (_engram_kv returns None without).
     */
    private void check() throws WorkbenchException {
        ConfigFields.positive("vocab_size", vocabSize);
        ConfigFields.positive("d_model", dModel);
        ConfigFields.positive("attn_dim", attnDim);
        ConfigFields.positive("num_heads", numHeads);
        ConfigFields.positive("num_kv_heads", numKvHeads);
        ConfigFields.positive("num_layers", numLayers);
        ConfigFields.positive("max_seq_len", maxSeqLen);
        ConfigFields.positive("mhc_lanes", mhcLanes);
        ConfigFields.fitsInt("8 x d_model (the confidence head's input)", 8, dModel);
        ConfigFields.fitsInt("mhc_lanes x d_model", mhcLanes, dModel);
        ConfigFields.fitsInt("mhc_lanes^2 x num_layers", (long) mhcLanes * mhcLanes, numLayers);
        if (attnDim % numHeads != 0) throw ConfigFields.bad("attn_dim " + attnDim + " is not a multiple of num_heads " + numHeads);
        if (numHeads % numKvHeads != 0) throw ConfigFields.bad("num_heads " + numHeads + " is not a multiple of num_kv_heads " + numKvHeads);
        if (engramOrders.length == 0) throw ConfigFields.bad("engram_orders is empty");
        if (engramHeads < 0) throw ConfigFields.bad("engram_heads " + engramHeads + " is negative");
        ConfigFields.fitsInt("engram orders x engram_heads (the engram tables)", engramOrders.length, engramHeadsPerOrder());
        for (int l : engramLayers) {
            if (l < 0 || l >= numLayers) throw ConfigFields.bad("engram layer " + l + " is outside 0.." + (numLayers - 1));
        }
        if (engramLayers.length == 0) return;
        ConfigFields.positive("engram_slots", engramSlots);
        ConfigFields.fitsInt("engram tables x engram_slots", engramTables(), engramSlots);
        for (int o : engramOrders) if (o < 1) throw ConfigFields.bad("engram order " + o + " is not positive");
        if (engramSubDim() < 1) throw ConfigFields.bad("d_model " + dModel + " is too small for " + engramTables() + " engram tables");
    }

    @Override
    public int[] engramOrders() {
        return engramOrders.clone();
    }

    @Override
    public int[] engramLayers() {
        return engramLayers.clone();
    }

    /** Per attention head width: {@code attn_dim / num_heads} (upstream {@code head_dims}, q/k and v alike). */
    public int headDim() {
        return attnDim / numHeads;
    }

    public int kvDim() {
        return numKvHeads * headDim();
    }

    /** The Hadamard MLP length: the smallest power of two >= d_model. */
    public int hadaN() {
        return 1 << (Integer.SIZE - Integer.numberOfLeadingZeros(dModel - 1));
    }

    /** The engram table geometry of this config. */
    public EngramShape engram() {
        return new EngramShape(dModel, engramOrders, engramHeads);
    }

    /** Engram heads per order: {@code engram_heads or max(1, d_model // (orders*128))}. */
    public int engramHeadsPerOrder() {
        return engram().headsPerOrder();
    }

    public int engramTables() {
        return engram().tables();
    }

    public int engramSubDim() {
        return engram().subDim();
    }

    /** The engram conv dilation: the largest order. */
    public int engramConvDilation() {
        return engram().dilation();
    }

    /** The header geometry of this config with the given KV window (kv_bits from the config). */
    public Geometry toGeometry(int kvWindow) throws WorkbenchException {
        if (engramOrders.length > Geometry.MAX_ORDERS) throw ConfigFields.bad(engramOrders.length + " engram orders; a .cact header holds " + Geometry.MAX_ORDERS);
        if (engramLayers.length > Geometry.MAX_SITES) throw ConfigFields.bad(engramLayers.length + " engram sites; a .cact header holds " + Geometry.MAX_SITES);
        return new Geometry(vocabSize, dModel, numHeads, numKvHeads, numLayers, headDim(), maxSeqLen, hadaN(),
                mhcLanes, engramSlots, engramSubDim(), engramTables(), ENGRAM_CONV_TAPS, engramConvDilation(),
                engramOrders, engramLayers, (float) ropeTheta, kvWindow, kvBits);
    }

    /** Records compare array components by identity; the string form holds every field by value. */
    @Override
    public boolean equals(Object o) {
        return o instanceof FlaxConfig f && toString().equals(f.toString());
    }

    @Override
    public int hashCode() {
        return toString().hashCode();
    }

    @Override
    public String toString() {
        return "FlaxConfig[vocab_size=" + vocabSize + ", d_model=" + dModel + ", attn_dim=" + attnDim
                + ", num_heads=" + numHeads + ", num_kv_heads=" + numKvHeads + ", num_layers=" + numLayers
                + ", max_seq_len=" + maxSeqLen + ", pad_token_id=" + padTokenId + ", contrastive_dim=" + contrastiveDim
                + ", rope_theta=" + ropeTheta + ", engram_orders=" + Arrays.toString(engramOrders)
                + ", engram_heads=" + engramHeads + ", engram_slots=" + engramSlots
                + ", engram_layers=" + Arrays.toString(engramLayers) + ", mhc_lanes=" + mhcLanes
                + ", kv_window=" + kvWindow + ", kv_bits=" + kvBits + ", act_bits=" + actBits
                + ", weight_bits=" + weightBits + "]";
    }
}
