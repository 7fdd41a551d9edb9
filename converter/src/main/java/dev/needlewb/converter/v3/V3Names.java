package dev.needlewb.converter.v3;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.converter.names.NameMap;
import dev.needlewb.converter.names.NameRow;
import dev.needlewb.converter.names.Transform;
import dev.needlewb.core.v3.V3Geometry;
import java.util.ArrayList;
import java.util.List;

/** The {@link NameMap} of a Needle 3 model, expanded from the {@link V3Tensor} table in {@code .cact} order. */
public final class V3Names {
    /** quantize.HEAD_BITS: the probe heads' matrices are CQ4 (quantize.py:218). */
    public static final int HEAD_BITS = 4;
    private V3Names() {}

    /**
     * The names of geometry {@code g} with these probe heads (canonical order), with or without the
     * tokenizer; {@code shapes} overrides a row's table shape by name (a headwise gate, block-untied
     * factors, as a file stores them), may be empty.
     */
    public static NameMap of(V3Geometry g, List<V3HeadShape> heads, boolean tokenizer, java.util.Map<String, long[]> shapes) {
        List<NameRow> rows = new ArrayList<>();
        java.util.Map<String, Integer> headBits = new java.util.HashMap<>();
        for (V3Tensor.Name t : V3Tensor.expand(g, heads, tokenizer)) {
            // _head_tensors writes the head matrices at HEAD_BITS whatever the model's bits (export.py:326-328)
            if (t.head() != null && t.tensor().storage() == dev.needlewb.converter.names.Storage.CQ) headBits.put(t.name(), HEAD_BITS);
            long[] stored = shapes.getOrDefault(t.name(), t.shape(g, heads.size()));
            int[] shape = toInt(stored);
            Transform transform = t.transform();
            int[] flax = t.flaxPath() == null ? null : transform.flaxShape(shape, g.numLayers(), g.numEngramTables());
            rows.add(new NameRow(t.name(), t.flaxPath(), t.layer(), t.torchKey(), shape, flax, transform, t.tensor().storage()));
        }
        return new NameMap(g, heads.stream().mapToInt(h -> h.head().code()).toArray(), rows, headBits);
    }

    /** The names of a validated Needle 3 {@code .cact}: its geometry, its heads and variant shapes as stored, its tokenizer if any. */
    static NameMap of(CactFile file) {
        V3Geometry g = V3Geometry.of(file.geometry());
        List<V3HeadShape> heads = new ArrayList<>();
        long cells = g.numLayers() + 1L;
        for (V3ProbeHead h : V3ProbeHead.values()) {
            TensorRecord probes = file.tensor(V3Tensor.HEAD_PROBES.nameFor(h));
            if (probes == null) continue;
            TensorRecord query = file.tensor(V3Tensor.HEAD_QUERY.nameFor(h));
            TensorRecord proj = file.tensor(V3Tensor.HEAD_PROJ.nameFor(h));
            heads.add(new V3HeadShape(h, (int) (probes.dim(0) / cells), (int) query.dim(0), (int) proj.dim(0)));
        }
        java.util.Map<String, long[]> shapes = new java.util.HashMap<>();
        for (TensorRecord r : file.tensors()) shapes.put(r.name(), r.shape());
        return of(g, heads, file.hasTokenizer(), shapes);
    }

    /** The released layout of a geometry: the confidence head only (4 probes, 4 queries, 1 output), the shipped file's. */
    public static NameMap released(V3Geometry g) {
        return of(g, List.of(new V3HeadShape(V3ProbeHead.CONFIDENCE, 4, 4, 1)), true, java.util.Map.of());
    }

    private static int[] toInt(long[] shape) {
        int[] out = new int[shape.length];
        for (int i = 0; i < shape.length; i++) out[i] = Math.toIntExact(shape[i]);
        return out;
    }
}
