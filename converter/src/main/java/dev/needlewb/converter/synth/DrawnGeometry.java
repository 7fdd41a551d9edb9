package dev.needlewb.converter.synth;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.flax.FlaxConfig;
import dev.needlewb.converter.flax.KvBudget;
import dev.needlewb.converter.v2.ProbeHead;
import java.util.List;
import java.util.Map;

/**
 * One Needle 2 model of a geometry sweep: the config dict of its Flax checkpoint (the fields of upstream's
 * {@code TransformerConfig}, as a pickle holds them), the probe heads it carries, and how
 * {@code convert} quantizes it (CQ group, bits map).
 */
public record DrawnGeometry(String name, Map<String, Object> config, List<ProbeHead> heads, int group, String bitsMap) implements DrawnModel {
    public DrawnGeometry {
        // Insertion order, not Map.copyOf's per-process order: the checkpoint's pickle is then the same bytes in every run.
        config = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(config));
        heads = List.copyOf(heads);
    }

    @Override
    public Generation generation() {
        return Generation.NEEDLE2;
    }

    @Override
    public List<String> headKeys() {
        return heads.stream().map(ProbeHead::key).toList();
    }

    public FlaxConfig flaxConfig() throws WorkbenchException {
        return FlaxConfig.of(config);
    }

    /** The header geometry upstream's exporter writes for this config (kv_window from its KV budget). */
    @Override
    public Geometry geometry() throws WorkbenchException {
        FlaxConfig c = flaxConfig();
        return c.toGeometry(KvBudget.effectiveWindow(c));
    }

    /**
     * One line for tables: {@code d 100, heads 3/1 x 24 (attn 72), lanes 2, layers 2, engram (2,3)x3 -> 6 x 16
     * at [1], slots 97, vocab 384, ctx 256, group 128, bits embedding=4,...}.
     */
    @Override
    public String describe() throws WorkbenchException {
        FlaxConfig c = flaxConfig();
        Geometry g = geometry();
        return "d " + c.dModel() + ", heads " + c.numHeads() + "/" + c.numKvHeads() + " x " + c.headDim() + " (attn " + c.attnDim() + ")"
                + ", lanes " + c.mhcLanes() + ", layers " + c.numLayers() + ", engram " + java.util.Arrays.toString(c.engramOrders())
                + "x" + c.engramHeadsPerOrder() + " -> " + c.engramTables() + " x " + c.engramSubDim() + " at "
                + java.util.Arrays.toString(c.engramLayers()) + ", slots " + c.engramSlots() + ", hada_n " + c.hadaN()
                + ", vocab " + c.vocabSize() + ", max_seq_len " + c.maxSeqLen() + ", kv_window " + g.kvWindow()
                + ", theta " + c.ropeTheta() + ", group " + group + ", bits " + bitsMap
                + ", heads " + (heads.isEmpty() ? "none" : heads.stream().map(ProbeHead::key).toList());
    }
}
