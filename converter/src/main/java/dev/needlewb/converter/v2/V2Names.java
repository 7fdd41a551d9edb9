package dev.needlewb.converter.v2;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.converter.flax.FlaxConfig;
import dev.needlewb.converter.flax.FlaxParamShapes;
import dev.needlewb.converter.names.NameMap;
import dev.needlewb.converter.names.NameRow;
import dev.needlewb.converter.names.Storage;
import dev.needlewb.converter.names.Transform;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;

/**
 * The {@link NameMap} of a Needle 2 model, expanded from the {@link ModelTensor} table in
 * {@code .cact} order and followed by the checkpoint-only leaves (contrastive log_temp, the MTP
 * branch) in Flax tree order.
 */
public final class V2Names {
    private V2Names() {}

    /**
     * The names of a geometry with these probe heads (canonical order) and checkpoint-only leaves
     * ({@code checkpointOnly}: Flax path to shape, e.g. log_temp and the MTP branch).
     */
    public static NameMap of(Geometry g, List<HeadShape> heads, SequencedMap<String, int[]> checkpointOnly) {
        return of(g, heads, checkpointOnly, true);
    }

    /** {@link #of(Geometry, List, SequencedMap)} with or without the tokenizer row (a .cact exported without one). */
    public static NameMap of(Geometry g, List<HeadShape> heads, SequencedMap<String, int[]> checkpointOnly, boolean tokenizer) {
        List<ProbeHead> probeHeads = heads.stream().map(HeadShape::head).toList();
        List<NameRow> rows = new ArrayList<>();
        for (TensorName t : ModelTensor.expand(g, probeHeads, tokenizer)) {
            HeadShape head = t.head() == null ? null : heads.get(probeHeads.indexOf(t.head()));
            int[] shape = toInt(t.tensor().shape(g, heads.size(), head));
            Transform transform = t.transform();
            rows.add(new NameRow(t.name(), t.flaxPath(), t.layer(), t.torchKey(), shape,
                    transform.flaxShape(shape, g.numLayers(), g.numEngramTables()), transform, t.tensor().storage()));
        }
        for (var e : checkpointOnly.entrySet()) {
            rows.add(new NameRow(torchKeyOfCheckpointOnly(e.getKey()), e.getKey(), -1, torchKeyOfCheckpointOnly(e.getKey()),
                    e.getValue(), e.getValue(), Transform.NONE, Storage.CHECKPOINT_ONLY));
        }
        return new NameMap(g, probeHeads.stream().mapToInt(ProbeHead::code).toArray(), rows);
    }

    /** The names of a training checkpoint's config and the optional parts it carries. */
    public static NameMap of(FlaxConfig config, FlaxParamShapes.Parts parts, int kvWindow) throws WorkbenchException {
        SequencedMap<String, int[]> expected = FlaxParamShapes.expected(config, parts);
        List<HeadShape> heads = new ArrayList<>();
        for (ProbeHead h : ProbeHead.values()) {
            int[] probes = expected.get(ModelTensor.HEAD_PROBES.at(h).flaxPath());
            if (probes != null) heads.add(new HeadShape(h, probes[0], expected.get(ModelTensor.HEAD_PROJ.at(h).flaxPath())[1]));
        }
        SequencedMap<String, int[]> only = new LinkedHashMap<>();
        for (var e : expected.entrySet()) {
            if (e.getKey().equals("contrastive_head/log_temp") || e.getKey().startsWith("mtp_")) only.put(e.getKey(), e.getValue());
        }
        return of(config.toGeometry(kvWindow), heads, only);
    }

    /** The names of a validated Needle 2 {@code .cact}: its geometry, its probe heads as stored, its tokenizer if any. */
    static NameMap of(CactFile file) {
        List<HeadShape> heads = new ArrayList<>();
        for (ProbeHead h : ProbeHead.values()) {
            TensorRecord probes = file.tensor(ModelTensor.HEAD_PROBES.at(h).name());
            if (probes != null) heads.add(new HeadShape(h, (int) probes.dim(0), (int) file.tensor(ModelTensor.HEAD_PROJ.at(h).name()).dim(0)));
        }
        return of(Geometry.of(file.geometry()), heads, new LinkedHashMap<>(), file.hasTokenizer());
    }

    /** The released layout of a geometry: both probe heads (contrastive 4 x 128, confidence 8 x 1), no MTP. */
    public static NameMap released(Geometry g) {
        return of(g, List.of(new HeadShape(ProbeHead.CONTRASTIVE, 4, 128), new HeadShape(ProbeHead.CONFIDENCE, 8, 1)),
                new LinkedHashMap<>());
    }

    /** The parts (heads, MTP) a state dict's keys imply. */
    public static FlaxParamShapes.Parts partsOf(Iterable<String> torchKeys) {
        boolean contrastive = false, confidence = false, mtp = false;
        for (String k : torchKeys) {
            contrastive |= k.startsWith(ProbeHead.CONTRASTIVE.key() + ".");
            confidence |= k.startsWith(ProbeHead.CONFIDENCE.key() + ".");
            mtp |= k.startsWith("mtp.");
        }
        return new FlaxParamShapes.Parts(contrastive, confidence, mtp);
    }

    /** {@code mtp_block/self_attn/q_proj/kernel -> mtp.mtp_block.self_attn.q_proj.kernel}; log_temp likewise dotted. */
    static String torchKeyOfCheckpointOnly(String flaxPath) {
        String dotted = flaxPath.replace('/', '.');
        return flaxPath.startsWith("mtp_") ? "mtp." + dotted : dotted;
    }

    private static int[] toInt(long[] shape) {
        int[] out = new int[shape.length];
        for (int i = 0; i < shape.length; i++) out[i] = Math.toIntExact(shape[i]);
        return out;
    }
}
