package dev.needlewb.converter.convert;

import dev.needlewb.converter.WorkbenchException;
import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.converter.flax.FlaxParamShapes;
import dev.needlewb.converter.io.NpyArray;
import dev.needlewb.converter.names.NameRow;
import dev.needlewb.converter.names.Transform;
import java.io.ByteArrayOutputStream;
import java.util.LinkedHashMap;
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
        Map<String, ByteArrayOutputStream> stacks = new LinkedHashMap<>();
        Map<String, NameRow> stackRow = new LinkedHashMap<>();
        Map<String, String> stackDescr = new LinkedHashMap<>();
        for (NameRow row : w.names().rows()) {
            NpyArray a = w.tensor(row);
            if (a == null) continue;
            if (row.transform() == Transform.ZERO_FILL) {
                for (double v : a.asDoubles()) {
                    if (v != 0) throw new WorkbenchException(row.torchKey() + " is not zero, but the Flax model has no such bias");
                }
                continue;
            }
            NpyArray flax = row.transform().inverse(a, row.flaxShape());
            if (!row.transform().perLayer()) {
                params.put(row.flaxPath(), flax);
                continue;
            }
            String prev = stackDescr.putIfAbsent(row.flaxPath(), flax.descr());
            if (prev != null && !prev.equals(flax.descr())) {
                throw new WorkbenchException(row.torchKey() + " is " + flax.descr() + " but earlier layers of " + row.flaxPath() + " are " + prev);
            }
            stacks.computeIfAbsent(row.flaxPath(), k -> new ByteArrayOutputStream()).writeBytes(flax.data());
            stackRow.put(row.flaxPath(), row);
        }
        for (var e : stacks.entrySet()) {
            params.put(e.getKey(), new NpyArray(stackDescr.get(e.getKey()), stackRow.get(e.getKey()).flaxShape(), e.getValue().toByteArray()));
        }
        return new FlaxCheckpoint(meta.formatVersion(), new LinkedHashMap<>(params), meta.config(), meta.step(), meta.run());
    }
}
