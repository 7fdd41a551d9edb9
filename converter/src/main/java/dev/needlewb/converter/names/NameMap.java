package dev.needlewb.converter.names;

import dev.needlewb.converter.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactLayout;
import dev.needlewb.converter.cact.ProbeHead;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.converter.flax.FlaxConfig;
import dev.needlewb.converter.flax.FlaxParamShapes;
import dev.needlewb.converter.model.Geometry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;

/**
 * The one declarative table that links the three namings of a Needle model: Flax checkpoint
 * paths, canonical {@code .cact} names and PyTorch state-dict keys, with each tensor's shape,
 * layout transform and storage. The row order is the {@code .cact} order ({@link CactLayout}),
 * followed by the checkpoint-only leaves (contrastive log_temp, the MTP branch) in Flax tree
 * order. Every converter reads and writes through it.
 */
public final class NameMap {
    /** The shape of one probe head: P probes and {@code out} projection rows. */
    public record HeadShape(ProbeHead head, int probes, int out) {}

    /** What a per-layer {@code .cact} tensor is in the Flax block and in PyTorch. */
    private record LayerRule(String flaxLeaf, String torchSuffix, Transform transform) {}

    private static final String BLOCK = "stack/layers/block/";
    private static final Map<String, LayerRule> LAYER_RULES = Map.ofEntries(
            Map.entry("norm_in", new LayerRule("ZCRMSNorm_0/scale", "norm_in.weight", Transform.LAYER_SLICE)),
            Map.entry("q_proj", new LayerRule("self_attn/q_proj/kernel", "attn.q_proj.weight", Transform.LAYER_SLICE_TRANSPOSE)),
            Map.entry("k_proj", new LayerRule("self_attn/k_proj/kernel", "attn.k_proj.weight", Transform.LAYER_SLICE_TRANSPOSE)),
            Map.entry("v_proj", new LayerRule("self_attn/v_proj/kernel", "attn.v_proj.weight", Transform.LAYER_SLICE_TRANSPOSE)),
            Map.entry("q_norm", new LayerRule("self_attn/q_norm/scale", "attn.q_norm.weight", Transform.LAYER_SLICE)),
            Map.entry("k_norm", new LayerRule("self_attn/k_norm/scale", "attn.k_norm.weight", Transform.LAYER_SLICE)),
            Map.entry("gate_proj", new LayerRule("self_attn/gate_proj/kernel", "attn.gate_proj.weight", Transform.LAYER_SLICE_TRANSPOSE)),
            Map.entry("out_proj", new LayerRule("self_attn/out_proj/kernel", "attn.out_proj.weight", Transform.LAYER_SLICE_TRANSPOSE)),
            Map.entry("post_norm", new LayerRule("post_attn_norm/scale", "post_norm.weight", Transform.LAYER_SLICE)),
            Map.entry("attn_gate", new LayerRule("attn_gate", "attn_gate", Transform.LAYER_SCALAR)),
            Map.entry("pre_hada", new LayerRule("pre_hada_norm/scale", "pre_hada.weight", Transform.LAYER_SLICE)),
            Map.entry("d1", new LayerRule("hadamard_mlp/d1", "mlp.d1", Transform.LAYER_SLICE)),
            Map.entry("d2", new LayerRule("hadamard_mlp/d2", "mlp.d2", Transform.LAYER_SLICE)),
            Map.entry("d3", new LayerRule("hadamard_mlp/d3", "mlp.d3", Transform.LAYER_SLICE)));

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
     * The table of a geometry with these probe heads (canonical order) and checkpoint-only leaves
     * ({@code checkpointOnly}: Flax path to shape, e.g. log_temp and the MTP branch).
     */
    public static NameMap of(Geometry g, List<HeadShape> heads, SequencedMap<String, int[]> checkpointOnly) {
        return of(g, heads, checkpointOnly, true);
    }

    /** {@link #of(Geometry, List, SequencedMap)} with or without the tokenizer row (a .cact exported without one). */
    public static NameMap of(Geometry g, List<HeadShape> heads, SequencedMap<String, int[]> checkpointOnly, boolean tokenizer) {
        List<ProbeHead> probeHeads = heads.stream().map(HeadShape::head).toList();
        CactLayout layout = CactLayout.of(g, probeHeads, tokenizer);
        List<NameRow> rows = new ArrayList<>();
        for (CactLayout.Slot slot : layout.slots()) rows.add(row(g, slot, heads));
        for (var e : checkpointOnly.entrySet()) {
            rows.add(new NameRow(torchKeyOfCheckpointOnly(e.getKey()), e.getKey(), -1, torchKeyOfCheckpointOnly(e.getKey()),
                    e.getValue(), e.getValue(), Transform.NONE, Storage.CHECKPOINT_ONLY));
        }
        return new NameMap(g, heads, rows);
    }

    /** The table of a training checkpoint's config and the optional parts it carries. */
    public static NameMap of(FlaxConfig config, FlaxParamShapes.Parts parts, int kvWindow) throws WorkbenchException {
        SequencedMap<String, int[]> expected = FlaxParamShapes.expected(config, parts);
        List<HeadShape> heads = new ArrayList<>();
        for (ProbeHead h : ProbeHead.values()) {
            int[] probes = expected.get(h.key() + "/probes");
            if (probes != null) heads.add(new HeadShape(h, probes[0], expected.get(h.key() + "/proj/kernel")[1]));
        }
        SequencedMap<String, int[]> only = new LinkedHashMap<>();
        for (var e : expected.entrySet()) {
            if (e.getKey().equals("contrastive_head/log_temp") || e.getKey().startsWith("mtp_")) only.put(e.getKey(), e.getValue());
        }
        return of(config.toGeometry(kvWindow), heads, only);
    }

    /** The table of a {@code .cact} file (its heads as stored; no checkpoint-only leaves). */
    public static NameMap of(CactFile file) {
        List<HeadShape> heads = new ArrayList<>();
        for (ProbeHead h : ProbeHead.values()) {
            TensorRecord probes = file.tensor(h.key() + ".probes");
            if (probes != null) {
                heads.add(new HeadShape(h, (int) probes.dim(0), (int) file.tensor(h.key() + ".proj").dim(0)));
            }
        }
        return of(file.geometry(), heads, new LinkedHashMap<>(), file.hasTokenizer());
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

    private static NameRow row(Geometry g, CactLayout.Slot slot, List<HeadShape> heads) {
        String name = slot.name();
        int[] shape = slot.shape() == null ? headShape(g, name, heads) : toInt(slot.shape());
        Storage storage = switch (slot.kind()) {
            case MATRIX -> Storage.CQ;
            case TOKENIZER -> Storage.RAW;
            default -> Storage.FP16;
        };
        if (name.equals(CactLayout.TOKENIZER)) return new NameRow(name, null, -1, null, shape, null, Transform.TOKENIZER, storage);
        if (name.equals(CactLayout.MANIFEST)) return new NameRow(name, null, -1, null, shape, null, Transform.DERIVED, storage);
        if (name.startsWith("layer")) {
            int dot = name.indexOf('.');
            int layer = Integer.parseInt(name.substring(5, dot));
            LayerRule rule = LAYER_RULES.get(name.substring(dot + 1));
            return rowOf(g, name, BLOCK + rule.flaxLeaf(), layer, "layers." + layer + "." + rule.torchSuffix(), shape,
                    rule.transform(), storage);
        }
        if (name.startsWith("engram")) {
            int dot = name.indexOf('.');
            String site = name.substring(6, dot);
            String part = name.substring(dot + 1);
            String flax = "engrams_" + site + "/";
            String torch = "engrams." + site + ".";
            return switch (part) {
                case "tables" -> rowOf(g, name, flax + "embedding", -1, torch + "tables.weight", shape, Transform.TABLE_RESHAPE, storage);
                case "taps" -> rowOf(g, name, flax + "taps", -1, torch + "taps", shape, Transform.NONE, storage);
                default -> rowOf(g, name, flax + part + "/kernel", -1, torch + part + ".weight", shape, Transform.TRANSPOSE, storage);
            };
        }
        if (name.startsWith("mhc_")) {
            String part = name.substring(4);
            boolean phi = part.startsWith("phi_");
            return rowOf(g, name, "stack/" + name, -1, "mhc." + part + (phi ? ".weight" : ""), shape,
                    phi ? Transform.PHI_RESHAPE : Transform.NONE, storage);
        }
        for (ProbeHead h : ProbeHead.values()) {
            String p = h.key() + ".";
            if (!name.startsWith(p)) continue;
            return switch (name.substring(p.length())) {
                case "probes" -> rowOf(g, name, h.key() + "/probes", -1, p + "probes", shape, Transform.NONE, storage);
                case "proj" -> rowOf(g, name, h.key() + "/proj/kernel", -1, p + "proj.weight", shape, Transform.TRANSPOSE, storage);
                default -> h == ProbeHead.CONTRASTIVE
                        ? new NameRow(name, null, -1, p + "proj.bias", shape, null, Transform.ZERO_FILL, storage)
                        : rowOf(g, name, h.key() + "/proj/bias", -1, p + "proj.bias", shape, Transform.NONE, storage);
            };
        }
        return switch (name) {
            case "embedding" -> rowOf(g, name, "embedding/embedding", -1, "embedding.weight", shape, Transform.NONE, storage);
            case "final_norm" -> rowOf(g, name, "stack/final_norm/scale", -1, "final_norm.weight", shape, Transform.NONE, storage);
            default -> throw new IllegalStateException("the name map has no rule for .cact slot " + name);
        };
    }

    private static NameRow rowOf(Geometry g, String name, String flax, int layer, String torch, int[] shape, Transform t, Storage s) {
        return new NameRow(name, flax, layer, torch, shape, t.flaxShape(shape, g.numLayers(), g.numEngramTables()), t, s);
    }

    private static int[] headShape(Geometry g, String name, List<HeadShape> heads) {
        for (HeadShape h : heads) {
            String p = h.head().key() + ".";
            if (!name.startsWith(p)) continue;
            return switch (name.substring(p.length())) {
                case "probes" -> new int[] {h.probes(), g.dModel()};
                case "proj" -> new int[] {h.out(), h.probes() * g.dModel()};
                default -> new int[] {h.out()};
            };
        }
        throw new IllegalStateException("no head shape for " + name);
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
