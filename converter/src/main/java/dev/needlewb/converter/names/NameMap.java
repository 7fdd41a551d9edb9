package dev.needlewb.converter.names;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.flax.FlaxConfig;
import dev.needlewb.converter.flax.FlaxParamShapes;
import dev.needlewb.core.v2.Geometry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;

/**
 * The three namings of one Needle model side by side: Flax checkpoint paths, canonical
 * {@code .cact} names and PyTorch state-dict keys, with each tensor's shape, layout transform and
 * storage, expanded from the {@link ModelTensor} table in {@code .cact} order and followed by the
 * checkpoint-only leaves (contrastive log_temp, the MTP branch) in Flax tree order. Every
 * converter reads and writes through it.
 */
public final class NameMap {
    private final Geometry geometry;
    private final List<HeadShape> heads;
    private final List<NameRow> rows;
    private final Map<String, NameRow> byName = new LinkedHashMap<>();
    private final Map<String, NameRow> byTorchKey = new LinkedHashMap<>();

    private NameMap(Geometry geometry, List<HeadShape> heads, List<NameRow> rows) {
        this.geometry = geometry;
        this.heads = List.copyOf(heads);
        this.rows = List.copyOf(rows);
        for (NameRow r : rows) {
            byName.put(r.name(), r);
            if (r.torchKey() != null) byTorchKey.put(r.torchKey(), r);
        }
    }

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
        return new NameMap(g, heads, rows);
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

    /** The released layout of a geometry: both probe heads (contrastive 4 x 128, confidence 8 x 1), no MTP. */
    public static NameMap released(Geometry g) {
        return of(g, List.of(new HeadShape(ProbeHead.CONTRASTIVE, 4, 128), new HeadShape(ProbeHead.CONFIDENCE, 8, 1)),
                new LinkedHashMap<>());
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

    public Geometry geometry() {
        return geometry;
    }

    public List<HeadShape> heads() {
        return heads;
    }

    /** Every row: the .cact order, then checkpoint-only leaves. */
    public List<NameRow> rows() {
        return rows;
    }

    /** The rows of a .cact, in its order. */
    public List<NameRow> cactRows() {
        return rows.stream().filter(NameRow::inCact).toList();
    }

    /** The row with this canonical name, or null. */
    public NameRow byName(String name) {
        return byName.get(name);
    }

    /** The row with this PyTorch key, or null. */
    public NameRow byTorchKey(String key) {
        return byTorchKey.get(key);
    }
}
