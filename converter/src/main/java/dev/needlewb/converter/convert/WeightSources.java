package dev.needlewb.converter.convert;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.converter.flax.FlaxConfig;
import dev.needlewb.converter.flax.FlaxParamShapes;
import dev.needlewb.converter.flax.KvBudget;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.names.NameMap;
import dev.needlewb.converter.names.NameRow;
import dev.needlewb.converter.names.Transform;
import dev.needlewb.converter.v2.V2Names;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;

/** Reads each source format into {@link ModelWeights} through the {@link NameMap}. */
public final class WeightSources {
    private WeightSources() {}

    /** The name map of a (Needle 2) checkpoint: its config, the optional parts it carries, the exporter's KV window. */
    public static NameMap namesOf(FlaxCheckpoint ckpt) throws WorkbenchException {
        FlaxConfig config = ckpt.flaxConfig();
        return V2Names.of(config, FlaxParamShapes.Parts.presentIn(ckpt.params().keySet()), KvBudget.effectiveWindow(config));
    }

    /** The name map of the training checkpoint in {@code file}, of whichever generation its config names. */
    public static NameMap namesOfCheckpoint(java.nio.file.Path file) throws WorkbenchException {
        return CheckpointGenerations.names(file);
    }

    /** The name map of a {@code .cact} from its generation: its geometry and the optional parts it stores; no checkpoint-only leaves. */
    public static NameMap namesOf(CactFile file) {
        return file.generation().names(file);
    }

    /** A checkpoint's weights in .cact layout (dtype kept), plus its checkpoint-only leaves. */
    public static ModelWeights fromCheckpoint(FlaxCheckpoint ckpt) throws WorkbenchException {
        NameMap names = namesOf(ckpt);
        SequencedMap<String, NpyArray> out = new LinkedHashMap<>();
        for (NameRow row : names.rows()) {
            if (row.flaxPath() == null) continue;
            NpyArray leaf = ckpt.params().get(row.flaxPath());
            if (leaf == null) throw new WorkbenchException(ErrorKind.MISSING_KEY, "checkpoint has no " + row.flaxPath() + " (needed for " + row.name() + ")");
            out.put(row.name(), row.transform().forward(leaf, row.layer(), row.shape()));
        }
        return new ModelWeights(names, out, null);
    }

    /**
     * A .cact's weights: CQ tensors dequantized as upstream's {@code read_export} (float32, or
     * rounded to float16 when {@code half}), FP16 tensors widened to float32 or kept as float16.
     */
    public static ModelWeights fromCact(CactFile file, boolean half) throws WorkbenchException {
        NameMap names = namesOf(file);
        List<NameRow> rows = names.cactRows().stream().filter(NameRow::isWeight).toList();
        List<NpyArray> arrays = ParallelTensors.map(rows, i -> {
            NameRow row = rows.get(i);
            float[] values = file.dequantize(file.tensor(row.name()).index());
            return half ? Floats.half(row.shape(), values) : NpyArray.ofFloats(row.shape(), values);
        }, n -> {});
        SequencedMap<String, NpyArray> out = new LinkedHashMap<>();
        for (int i = 0; i < rows.size(); i++) out.put(rows.get(i).name(), arrays.get(i));
        MemorySegment tokenizer = file.tokenizerBlob();
        return new ModelWeights(names, out, tokenizer == null ? null : tokenizer.toArray(ValueLayout.JAVA_BYTE));
    }

    /**
     * A state dict (PyTorch keys) read against {@code names}: every key must be a row of the map
     * with its shape and a float32/float16 dtype, and every weight row must be present (the
     * contrastive bias, which Flax lacks, may be absent). Errors name the file, the key and, where
     * the format says, the tensor's byte offset.
     */
    public static ModelWeights fromStateDict(StateDict dict, NameMap names) throws WorkbenchException {
        for (var e : dict.tensors().entrySet()) {
            NameRow row = names.byTorchKey(e.getKey());
            if (row == null) throw dict.error(ErrorKind.UNKNOWN_KEY, e.getKey(), 0, "not a tensor of this model (see needle-wb names)");
            NpyArray a = e.getValue();
            if (!a.descr().equals("<f4") && !a.descr().equals("<f2")) throw dict.error(ErrorKind.UNSUPPORTED_DTYPE, e.getKey(), 0, "dtype " + a.descr() + ", expected float32 or float16");
            if (!Arrays.equals(a.shape(), row.shape())) {
                throw dict.error(ErrorKind.SHAPE_MISMATCH, e.getKey(), 0, "shape " + Arrays.toString(a.shape()) + ", the model needs " + Arrays.toString(row.shape()));
            }
        }
        SequencedMap<String, NpyArray> out = new LinkedHashMap<>();
        for (NameRow row : names.rows()) {
            if (!row.isWeight()) continue;
            NpyArray a = dict.tensors().get(row.torchKey());
            if (a == null) {
                if (row.transform() == Transform.ZERO_FILL) continue;
                throw new FormatException(ErrorKind.MISSING_KEY, dict.file(), FormatException.NO_OFFSET, "tensor " + row.torchKey() + " is missing ("
                        + row.name() + ", shape " + Arrays.toString(row.shape()) + ")");
            }
            out.put(row.name(), a);
        }
        return new ModelWeights(names, out, null);
    }
}
