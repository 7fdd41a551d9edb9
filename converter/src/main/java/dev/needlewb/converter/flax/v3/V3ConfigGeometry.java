package dev.needlewb.converter.flax.v3;

import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.generation.ModelGeometry;

/**
 * What any module may ask of a Needle 3 model whose config is all there is (a checkpoint): the
 * config's fields with upstream's derivations resolved (out_vocab 0 means every embedding row).
 */
public record V3ConfigGeometry(V3Config config) implements ModelGeometry {
    @Override
    public Generation generation() {
        return Generation.NEEDLE3;
    }

    @Override
    public int vocab() {
        return config.vocabSize();
    }

    @Override
    public int outVocab() {
        return config.logitRows();
    }

    @Override
    public int dModel() {
        return config.dModel();
    }

    @Override
    public int numLayers() {
        return config.numLayers();
    }

    @Override
    public int maxSeqLen() {
        return config.maxSeqLen();
    }

    @Override
    public int kvWindow() {
        return config.kvWindow();
    }

    @Override
    public int kvBits() {
        return config.kvBits();
    }

    /** The model's own window with its global layers, e.g. {@code 16 (global layers [2])}; kv_window belongs to a deployment. */
    @Override
    public String slidingWindowText() {
        if (config.slidingWindow() == 0) return "none (sliding_window 0)";
        return config.slidingWindow() + " (global layers " + config.globalLayers() + ")";
    }
}
