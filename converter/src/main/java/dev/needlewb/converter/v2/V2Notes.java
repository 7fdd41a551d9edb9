package dev.needlewb.converter.v2;

import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactNotes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The notes {@code inspect} prints on a valid Needle 2 {@code .cact}: its header geometry's, then its tensors'. */
final class V2Notes {
    private V2Notes() {}

    static List<String> of(CactFile file) {
        List<String> notes = new ArrayList<>(geometry(Geometry.of(file.geometry())));
        String contrastive = ProbeHead.CONTRASTIVE.key() + ".";
        notes.addAll(CactNotes.tensors(file, slot -> slot.name().startsWith(contrastive) ? " (a contrastive head of contrastive_dim 0)" : ""));
        return notes;
    }

    /** The notes on a header geometry. */
    static List<String> geometry(Geometry g) {
        List<String> notes = new ArrayList<>();
        if (g.kvWindow() == 0) {
            notes.add("kv_window 0: no window stored (build_export's default; upstream's runtime then sizes one from the KV"
                    + " budget); the workbench runs without a window unless --window is given");
        } else if (g.slidingWindow() == 0) {
            notes.add("kv_window " + Integer.toUnsignedString(g.kvWindow()) + " >= max_seq_len " + g.maxSeqLen()
                    + ": the window never binds (upstream's kv_budget_window is at least 160 whatever the context);"
                    + " engine, reference and parity run without a window");
        }
        if (g.kvBits() != 8 && (g.kvBits() < 2 || g.kvBits() > 4)) {
            notes.add("kv_bits " + Integer.toUnsignedString(g.kvBits()) + ": export.py documents 8 (int8) or 2, 3, 4;"
                    + " configure_deploy fake-quantizes the KV cache at any width below 8 and none from 8 on");
        }
        int[] sites = g.engramSites();
        if (sites.length == 0) {
            notes.add("no engram sites (engram_layers empty): the model has no engram memory; the engram header fields are unused");
        }
        if (g.repeatedSite() >= 0) {
            notes.add("engram sites " + Arrays.toString(sites) + " repeat layer " + sites[g.repeatedSite()]
                    + ": upstream's Stack adds every site's injection there; the workbench's reference and engine inject one"
                    + " site per layer and refuse this model");
        }
        if (Float.isInfinite(g.ropeTheta())) {
            notes.add("rope_theta is infinite: RoPE turns only the first dimension pair (angle = position)");
        }
        return notes;
    }
}
