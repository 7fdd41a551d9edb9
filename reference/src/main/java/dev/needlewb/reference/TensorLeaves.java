package dev.needlewb.reference;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.convert.WeightTargets;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.names.NameRow;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Flax leaves read from tensors in the {@code .cact} / PyTorch layout ([out, in], one tensor per
 * layer): each layer's tensor becomes its Flax slice (the bytes {@link WeightTargets#checkpoint}
 * would stack) only when it is read, so no stacked copy of the model is made.
 */
final class TensorLeaves implements FlaxLeaves {
    private final ModelWeights weights;
    /** Flax path to its rows: by layer for per-layer transforms, else one row. */
    private final Map<String, NameRow[]> rowsByPath = new HashMap<>();
    /** Leaves stored as one tensor for every layer (the mHC phi), made once and sliced per layer. */
    private final Map<String, double[]> wholeLeaves = new ConcurrentHashMap<>();

    TensorLeaves(ModelWeights weights) throws WorkbenchException {
        this.weights = weights;
        for (NameRow row : WeightTargets.flaxRows(weights)) {
            int slots = row.transform().perLayer() ? row.flaxShape()[0] : 1;
            rowsByPath.computeIfAbsent(row.flaxPath(), k -> new NameRow[slots])[Math.max(0, row.layer())] = row;
        }
    }

    @Override
    public int[] shape(String key) {
        NameRow[] rows = rowsByPath.get(key);
        if (rows == null) return null;
        for (NameRow row : rows) {
            if (row == null) return null;
        }
        return rows[0].flaxShape();
    }

    @Override
    public String descr(String key) {
        return weights.tensor(rowsByPath.get(key)[0]).descr();
    }

    @Override
    public double[] widen(String key) {
        NameRow[] rows = rowsByPath.get(key);
        if (!rows[0].transform().perLayer()) return flax(rows[0]);
        double[] out = new double[Math.toIntExact(NpyArray.elementCount(rows[0].flaxShape()))];
        for (int l = 0; l < rows.length; l++) {
            double[] layer = flax(rows[l]);
            System.arraycopy(layer, 0, out, l * layer.length, layer.length);
        }
        return out;
    }

    @Override
    public double[] widenLayer(String key, int layer) {
        NameRow[] rows = rowsByPath.get(key);
        if (rows[0].transform().perLayer()) return flax(rows[layer]);
        double[] whole = wholeLeaves.computeIfAbsent(key, this::widen);
        int len = whole.length / rows[0].flaxShape()[0];
        return Arrays.copyOfRange(whole, layer * len, (layer + 1) * len);
    }

    @Override
    public boolean hasTree(String prefix) {
        return rowsByPath.keySet().stream().anyMatch(k -> k.startsWith(prefix + "/"));
    }

    private double[] flax(NameRow row) {
        return row.transform().inverse(weights.tensor(row), row.flaxShape()).asDoubles();
    }
}
