package dev.needlewb.reference;

import dev.needlewb.core.io.NpyArray;
import java.util.Map;

/** Flax leaves as a checkpoint holds them: one array per path, per-layer parameters stacked on axis 0. */
final class StackedLeaves implements FlaxLeaves {
    private final Map<String, NpyArray> params;

    StackedLeaves(Map<String, NpyArray> params) {
        this.params = params;
    }

    @Override
    public int[] shape(String key) {
        NpyArray a = params.get(key);
        return a == null ? null : a.shape();
    }

    @Override
    public String descr(String key) {
        return params.get(key).descr();
    }

    @Override
    public double[] widen(String key) {
        return params.get(key).asDoubles();
    }

    @Override
    public double[] widenLayer(String key, int layer) {
        NpyArray a = params.get(key);
        int len = a.size() / a.shape()[0];
        return a.asDoubles(layer * len, len);
    }

    @Override
    public boolean hasTree(String prefix) {
        return params.keySet().stream().anyMatch(k -> k.startsWith(prefix + "/"));
    }
}
