package dev.needlewb.converter.synth;

import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.converter.v3.V3Checkpoints;
import dev.needlewb.converter.v3.V3KvBudget;
import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.v3.V3Geometry;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One Needle 3 model of a geometry sweep: the config dict of its training checkpoint (the fields of
 * upstream Needle 3's {@code TransformerConfig} that {@code from_saved} reads), the probe heads it
 * carries, and how {@code convert} quantizes it (CQ group, bits map).
 */
public record DrawnV3Geometry(String name, Map<String, Object> config, List<V3ProbeHead> heads, int group, String bitsMap)
        implements DrawnModel {
    public DrawnV3Geometry {
        // Insertion order: the checkpoint's pickle is then the same bytes in every run.
        config = Collections.unmodifiableMap(new LinkedHashMap<>(config));
        heads = List.copyOf(heads);
    }

    @Override
    public Generation generation() {
        return Generation.NEEDLE3;
    }

    @Override
    public List<String> headKeys() {
        return heads.stream().map(V3ProbeHead::key).toList();
    }

    /** The config as upstream's {@code TransformerConfig.from_saved} reads it. */
    public V3Config v3Config() throws WorkbenchException {
        return V3Config.fromSaved(config);
    }

    /** The header geometry upstream's {@code _pack_cact} writes for this config, kv_window from its KV budget. */
    @Override
    public V3Geometry geometry() throws WorkbenchException {
        V3Config c = v3Config();
        return V3Checkpoints.geometry(c, V3KvBudget.effectiveWindow(c));
    }

    /**
     * {@code d 96, heads 4/2, qk 24 / v 40, layers 3, lanes 2, window 5 (global layers [1]), conv taps 3,
     * gate headwise, factors block_untied 8 x 16, permutations split, engram (2,3)x2 -> 4 x 24 at [0, 2], seed stride 5, ...}.
     */
    @Override
    public String describe() throws WorkbenchException {
        V3Config c = v3Config();
        V3Geometry g = geometry();
        return "d " + c.dModel() + ", heads " + c.numHeads() + "/" + c.numKvHeads() + ", qk " + c.qkDim() + " / v " + c.vDim()
                + (c.qkHeadDim() == 0 ? " (derived: d_model // num_heads)" : "") + ", layers " + c.numLayers() + ", lanes " + c.mhcLanes()
                + ", window " + g.slidingWindowText() + ", conv taps " + c.qkvConvTaps()
                + ", gate " + c.attentionGate().name().toLowerCase(java.util.Locale.ROOT)
                + ", factors " + c.hadaFactorMode().name().toLowerCase(java.util.Locale.ROOT) + " " + c.hadaBlockA() + " x " + c.hadaBlockB()
                + ", permutations " + (c.splitPermutations() ? "split" : "whole") + ", engram " + c.engramOrders() + "x" + g.engramHeads()
                + " -> " + g.numEngramTables() + " x " + g.engramSubDim() + " at " + Arrays.toString(g.engramSites())
                + ", seed stride " + g.engramSeedStride() + ", slots " + c.engramSlots() + ", hada_n " + g.hadaN()
                + ", vocab " + c.vocabSize() + ", out_vocab " + g.outVocab() + ", max_seq_len " + c.maxSeqLen()
                + ", kv_window " + Integer.toUnsignedString(g.kvWindow()) + ", kv_bits " + g.kvBits() + ", theta " + c.ropeTheta()
                + ", group " + group + ", bits " + bitsMap + ", heads " + (heads.isEmpty() ? "none" : headKeys());
    }
}
