package dev.needlewb.converter.convert;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.converter.flax.FlaxParamShapes;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.names.NameRow;
import dev.needlewb.converter.names.Transform;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.TreeMap;

/** Turns {@link ModelWeights} into a state dict or a Flax checkpoint through the name map. */
public final class WeightTargets {
    private WeightTargets() {}

    /** PyTorch key to tensor, in name-map order (dtype kept). */
    public static SequencedMap<String, NpyArray> stateDict(ModelWeights w) {
        SequencedMap<String, NpyArray> out = new LinkedHashMap<>();
        for (NameRow row : w.names().rows()) {
            NpyArray a = w.tensor(row);
            if (a != null) out.put(row.torchKey(), a);
        }
        return out;
    }

    /**
     * A checkpoint with these weights in Flax layout (per-layer tensors stacked again, dtype kept)
     * and the format version, config, step and run of {@code meta}. The contrastive bias, which
     * the Flax model does not have, must be absent or zero.
     */
    public static FlaxCheckpoint checkpoint(ModelWeights w, FlaxCheckpoint meta) throws WorkbenchException {
        Map<String, NpyArray> params = new TreeMap<>(FlaxParamShapes.TREE_ORDER);
        Map<String, List<NpyArray>> stacks = new LinkedHashMap<>();
        Map<String, NameRow> stackRow = new LinkedHashMap<>();
        for (NameRow row : flaxRows(w)) {
            NpyArray a = w.tensor(row);
            NpyArray flax = row.transform().inverse(a, row.flaxShape());
            if (!row.transform().perLayer()) {
                params.put(row.flaxPath(), flax);
                continue;
            }
            List<NpyArray> layers = stacks.computeIfAbsent(row.flaxPath(), k -> new ArrayList<>());
            if (!layers.isEmpty() && !layers.getFirst().descr().equals(flax.descr())) {
                throw new WorkbenchException(ErrorKind.UNSUPPORTED_DTYPE, row.torchKey() + " is " + flax.descr() + " but earlier layers of " + row.flaxPath()
                        + " are " + layers.getFirst().descr());
            }
            layers.add(flax);
            stackRow.put(row.flaxPath(), row);
        }
        for (var e : stacks.entrySet()) {
            List<NpyArray> layers = e.getValue();
            long bytes = 0;
            for (NpyArray layer : layers) bytes += layer.data().length;
            if (bytes > Integer.MAX_VALUE - 8) throw new WorkbenchException(ErrorKind.TOO_LARGE, e.getKey() + ": " + bytes + " bytes stacked do not fit one array");
            byte[] stacked = new byte[(int) bytes];
            int at = 0;
            for (NpyArray layer : layers) {
                System.arraycopy(layer.data(), 0, stacked, at, layer.data().length);
                at += layer.data().length;
            }
            params.put(e.getKey(), new NpyArray(layers.getFirst().descr(), stackRow.get(e.getKey()).flaxShape(), stacked));
        }
        return new FlaxCheckpoint(meta.formatVersion(), new LinkedHashMap<>(params), meta.config(), meta.step(), meta.run());
    }

    /**
     * The rows of {@code w} that hold a Flax leaf (or one layer of it), in name-map order: those with
     * weights, less the contrastive bias, which the Flax model does not have and which must be zero,
     * and less the derived tensors no checkpoint holds.
     */
    public static List<NameRow> flaxRows(ModelWeights w) throws WorkbenchException {
        List<NameRow> rows = new ArrayList<>();
        for (NameRow row : w.names().rows()) {
            NpyArray a = w.tensor(row);
            if (a == null) continue;
            if (row.transform() == Transform.ZERO_FILL) {
                for (double v : a.asDoubles()) {
                    if (v != 0) throw new WorkbenchException(ErrorKind.UNSUPPORTED, row.torchKey() + " is not zero, but the Flax model has no such bias");
                }
                continue;
            }
            if (row.flaxPath() == null) continue; // derived, no checkpoint leaf (Needle 3's MLP permutations)
            rows.add(row);
        }
        return rows;
    }
}
