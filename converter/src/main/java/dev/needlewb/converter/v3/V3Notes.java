package dev.needlewb.converter.v3;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactNotes;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.core.v3.V3Geometry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The notes {@code inspect} prints on a valid Needle 3 {@code .cact}: its header geometry's, its variants', then its tensors'. */
final class V3Notes {
    private V3Notes() {}

    static List<String> of(CactFile file) {
        V3Geometry g = V3Geometry.of(file.geometry());
        List<String> notes = new ArrayList<>(geometry(g));
        TensorRecord gate = file.tensor("layer00.gate_proj");
        if (gate != null && gate.dim(0) == g.numHeads() && g.numHeads() != g.attnOutDim()) {
            notes.add("gate_proj is [num_heads, d_model]: a headwise attention gate (attention_gate=\"headwise\", no header field records it)");
        }
        TensorRecord w1a = file.tensor("layer00.w1a");
        if (w1a != null && w1a.ndim() == 3) {
            notes.add("the MLP factors are 3-D: hada_factor_mode=\"block_untied\" (no header field records it)");
        }
        notes.addAll(permutations(file));
        notes.addAll(CactNotes.tensors(file, slot -> ""));
        return notes;
    }

    /** Permutations other than upstream's unsplit draws: the split ones of ladder_widths, or others. */
    private static List<String> permutations(CactFile file) {
        List<String> notes = new ArrayList<>();
        for (HadaPermutations.Gather gather : HadaPermutations.Gather.values()) {
            float[] p;
            try {
                p = file.dequantize(file.tensor(gather.tensor).index());
            } catch (dev.needlewb.core.FormatException e) {
                throw new IllegalStateException("an FP32 record of a validated file reads", e);
            }
            if (gather.isUpstreams(p, false)) continue;
            notes.add(gather.tensor + (gather.isUpstreams(p, true)
                    ? " holds the split permutation of a model trained with ladder_widths (architecture.py:693-701)"
                    : " is a permutation but not upstream's RandomState(" + gather.seed + ") draw; the file's is what a reader uses"));
        }
        return notes;
    }

    /** The notes on a header geometry. */
    static List<String> geometry(V3Geometry g) {
        List<String> notes = new ArrayList<>();
        if (g.kvWindow() == 0) {
            notes.add("kv_window 0: write_export's default (export.py:449-451); upstream's build passes effective_kv_window."
                    + " The Python forward never reads it");
        }
        if (g.kvBits() != 8) {
            notes.add("kv_bits " + Integer.toUnsignedString(g.kvBits()) + ": upstream deploys 8 (per-head int8 K and V);"
                    + " 1-7 mean CQ KV with group 64");
        }
        long beyond = g.numLayers() >= V3Geometry.MAX_LAYERS ? 0 : g.globalMask() & (-1L << g.numLayers());
        if (beyond != 0) {
            notes.add("global_mask sets bits at or above num_layers " + g.numLayers() + " (0x" + Long.toHexString(beyond)
                    + "): upstream's _pack_cact encodes every listed global layer, its read_export drops those (export.py:461-477)");
        }
        if (g.slidingWindow() != 0 && g.globalLayers().length == g.numLayers()) {
            notes.add("sliding_window " + Integer.toUnsignedString(g.slidingWindow()) + " but every layer is global: the window never applies");
        }
        int[] sites = g.engramSites();
        if (sites.length == 0) notes.add("no engram sites (engram_layers empty): the engram header fields are unused");
        for (int i = 1; i < sites.length; i++) {
            int site = sites[i];
            if (Arrays.stream(sites, 0, i).anyMatch(s -> s == site)) {
                notes.add("engram sites " + Arrays.toString(sites) + " repeat layer " + site + ": upstream's Stack adds every site's injection there");
                break;
            }
        }
        return notes;
    }
}
