package dev.needlewb.converter.v3;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.finite.NonFiniteCount;
import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.converter.names.NameMap;
import dev.needlewb.converter.names.NameRow;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.v3.V3Geometry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.Set;

/**
 * A Needle 3 training checkpoint (upstream {@code checkpoints.write_checkpoint}) as the weights
 * upstream's {@code write_export} writes: the header geometry {@code _pack_cact} computes from the
 * config, the tensors {@code _tensors} takes from the parameter tree in {@code .cact} layout, the
 * permutations {@code _hada_perms} draws, the router's default calibration where the checkpoint
 * has none. Every parameter the export reads must be there with its shape; a parameter it does not
 * read is refused unless allowed (upstream's export ignores them: {@code ab_scales}, the embedding
 * head's log_temp and bias, which are never exported, are always accepted).
 */
public final class V3Checkpoints {
    /** Leaves upstream's export never writes but a trained model holds (EmbeddingHead, architecture.py:1185-1195). */
    private static final Set<String> NOT_EXPORTED = Set.of("embedding_head/log_temp", "embedding_head/bias");

    private V3Checkpoints() {}

    /** The header {@code _pack_cact} writes for {@code c} with {@code kvWindow} (export.py:405-426). */
    public static V3Geometry geometry(V3Config c, int kvWindow) {
        var e = c.engram();
        long mask = 0;
        // export.py:411-413, 420 keep bits 0..63 of the Python int; Java's shift would wrap 64 and up onto the low bits
        for (int l : c.globalLayers()) if (l < V3Geometry.MAX_LAYERS) mask |= 1L << l;
        int[] orders = c.engramOrders().stream().mapToInt(Integer::intValue).toArray();
        return new V3Geometry(c.vocabSize(), c.outVocab(), c.dModel(), c.numHeads(), c.numKvHeads(), c.numLayers(),
                c.qkDim(), c.vDim(), c.maxSeqLen(), c.hadaN(), c.mhcLanes(), c.slidingWindow(), mask, c.qkvConvTaps(),
                c.engramSlots(), orders.length == 0 ? 0 : e.subDim(), orders.length == 0 ? 0 : e.tables(),
                V3GeometryRules.ENGRAM_CONV_TAPS_VALUE, orders.length == 0 ? 0 : e.dilation(), c.engramSeedHeads(), orders,
                c.engramLayers().stream().mapToInt(Integer::intValue).toArray(), (float) c.ropeTheta(), kvWindow,
                c.kvBits() == 0 ? 8 : c.kvBits());
    }

    /** The names of a checkpoint of config {@code c} holding the probe heads among {@code paths}. */
    public static NameMap names(V3Config c, Set<String> paths) throws WorkbenchException {
        V3Geometry g = geometry(c, V3KvBudget.effectiveWindow(c));
        String problem = V3Header.INSTANCE.problem(g);
        if (problem != null) throw new WorkbenchException(ErrorKind.BAD_GEOMETRY, "config: the .cact header cannot hold this model: " + problem);
        List<V3HeadShape> heads = new ArrayList<>();
        for (V3ProbeHead h : V3ProbeHead.values()) {
            if (!paths.contains(h.key() + "/probes")) continue;
            heads.add(h.shape(c));
        }
        Map<String, long[]> shapes = new HashMap<>();
        for (int l = 0; l < c.numLayers(); l++) {
            if (c.attentionGate() == V3Config.AttentionGate.HEADWISE) {
                shapes.put(V3Tensor.GATE_PROJ.at(l).name(), new long[] {c.numHeads(), c.dModel()});
            }
            if (c.hadaFactorMode() == V3Config.FactorMode.BLOCK_UNTIED) {
                long a = V3Tensor.blockA(g), b = V3Tensor.blockB(g);
                for (V3Tensor t : List.of(V3Tensor.W1A, V3Tensor.W2A, V3Tensor.W3A)) shapes.put(t.at(l).name(), new long[] {b, a, a});
                for (V3Tensor t : List.of(V3Tensor.W1B, V3Tensor.W2B, V3Tensor.W3B)) shapes.put(t.at(l).name(), new long[] {a, b, b});
            }
        }
        return V3Names.of(g, heads, true, shapes);
    }

    /**
     * The names of a state dict of config {@code c} holding {@code torchKeys}: the probe heads
     * are those whose tensors the dict holds.
     */
    public static NameMap stateDictNames(V3Config c, Set<String> torchKeys) throws WorkbenchException {
        Set<String> everyHead = new HashSet<>();
        for (V3ProbeHead h : V3ProbeHead.values()) everyHead.add(h.key() + "/probes");
        Set<String> present = new HashSet<>();
        for (NameRow row : names(c, everyHead).rows()) {
            if (row.flaxPath() != null && torchKeys.contains(row.torchKey())) present.add(row.flaxPath());
        }
        return names(c, present);
    }

    /** The names of a checkpoint read by the generation-neutral reader (its config's model, the heads its parameters hold). */
    public static NameMap names(Path file, FlaxCheckpoint structure) throws FormatException {
        try {
            return names(V3Config.fromSaved(structure.config()), structure.params().keySet());
        } catch (WorkbenchException e) {
            throw new FormatException(e.kind(), file, FormatException.NO_OFFSET, e.getMessage());
        }
    }

    /**
     * The weights of a checkpoint read by the generation-neutral reader, checked against its config.
     *
     * @throws FormatException naming the file and the parameter path
     */
    public static ModelWeights weights(Path file, FlaxCheckpoint structure, boolean allowExtraParams, NonFinitePolicy nonFinite)
            throws WorkbenchException {
        V3Config c;
        try {
            c = V3Config.fromSaved(structure.config());
        } catch (WorkbenchException e) {
            throw new FormatException(e.kind(), file, FormatException.NO_OFFSET, e.getMessage());
        }
        if (!c.engramBankIds().isEmpty()) throw new FormatException(ErrorKind.UNSUPPORTED, file, FormatException.NO_OFFSET, "config: engram_bank_ids (shared"
                + " engram banks) cannot be exported: upstream's _tensors reads engrams_{s}, which banked models do not have");
        if (!c.claPairs().isEmpty()) throw new FormatException(ErrorKind.UNSUPPORTED, file, FormatException.NO_OFFSET, "config: cla_pairs (cross-layer"
                + " attention) has no .cact header field: upstream's export would lose it silently");
        Map<String, NpyArray> params = new LinkedHashMap<>();
        structure.params().forEach((path, a) -> {
            if (!path.startsWith("mtp_")) params.put(path, a); // run.load_checkpoint drops the MTP branch (run.py:39)
        });
        NameMap names = names(file, structure);
        Set<String> read = new HashSet<>();
        SequencedMap<String, NpyArray> out = new LinkedHashMap<>();
        for (NameRow row : names.rows()) {
            HadaPermutations.Gather gather = HadaPermutations.Gather.named(row.name());
            if (gather != null) {
                out.put(row.name(), permutation(gather.draw(row.shape()[0], c.splitPermutations())));
                continue;
            }
            if (row.flaxPath() == null) continue;
            NpyArray leaf = params.get(row.flaxPath());
            // every layer's row reads the same stacked leaf: check it once
            boolean first = read.add(row.flaxPath());
            if (leaf == null && row.name().endsWith(".calibration")) {
                out.put(row.name(), NpyArray.ofFloats(row.shape(), defaultCalibration()));
                continue;
            }
            if (leaf == null) throw param(ErrorKind.MISSING_KEY, file, row.flaxPath(), "missing (" + row.name() + " needs it with shape " + Arrays.toString(row.flaxShape()) + ")");
            if (!Arrays.equals(leaf.shape(), row.flaxShape())) {
                throw param(ErrorKind.SHAPE_MISMATCH, file, row.flaxPath(), "has shape " + Arrays.toString(leaf.shape()) + ", the config needs " + Arrays.toString(row.flaxShape()));
            }
            if (first && nonFinite == NonFinitePolicy.REFUSE) {
                NonFiniteCount bad = NonFiniteCount.of(leaf);
                if (bad.any()) throw param(ErrorKind.NON_FINITE, file, row.flaxPath(), "holds non-finite values: " + bad.describe(leaf.shape()) + "; " + NonFinitePolicy.OVERRIDE_HINT);
            }
            out.put(row.name(), row.transform().forward(leaf, row.layer(), row.shape()));
        }
        if (!allowExtraParams) {
            for (String path : params.keySet()) {
                if (!read.contains(path) && !NOT_EXPORTED.contains(path)) {
                    throw param(ErrorKind.UNKNOWN_KEY, file, path, "is not a parameter upstream's export writes (extra params need --allow-extra-params)");
                }
            }
        }
        return new ModelWeights(names, out, null);
    }

    /**
     * Refuses permutations a checkpoint cannot hold: upstream's model draws {@code hada_p1/p2}
     * from their seeds ({@code _hada_perms}), so a checkpoint has no leaf for them and any other
     * permutation would be lost on the way.
     */
    public static void refuseUndrawnPermutations(ModelWeights w, V3Config c) throws WorkbenchException {
        for (HadaPermutations.Gather gather : HadaPermutations.Gather.values()) {
            NpyArray p = w.tensors().get(gather.tensor);
            if (p != null && !gather.isUpstreams(p.asFloats(), c.splitPermutations())) {
                throw new WorkbenchException(ErrorKind.UNSUPPORTED, gather.tensor + " is not upstream's draw from RandomState(" + gather.seed + "): a checkpoint"
                        + " has no leaf for it (the model draws it), so writing one would lose it; keep this model as .cact or a state dict");
            }
        }
    }

    private static float[] defaultCalibration() {
        float[] f = new float[V3ProbeHead.DEFAULT_CALIBRATION.length];
        for (int i = 0; i < f.length; i++) f[i] = (float) V3ProbeHead.DEFAULT_CALIBRATION[i];
        return f;
    }

    private static NpyArray permutation(int[] p) {
        float[] f = new float[p.length];
        for (int i = 0; i < p.length; i++) f[i] = p[i];
        return NpyArray.ofFloats(new int[] {p.length}, f);
    }

    private static FormatException param(ErrorKind kind, Path file, String path, String problem) {
        return new FormatException(kind, file, FormatException.NO_TENSOR, path, FormatException.NO_OFFSET, "param " + path + " " + problem);
    }
}
