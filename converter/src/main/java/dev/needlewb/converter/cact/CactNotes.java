package dev.needlewb.converter.cact;

import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.names.ProbeHead;
import dev.needlewb.converter.names.Storage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What is unusual in a valid {@code .cact}: things upstream's exporter writes (so the reader
 * accepts them) that a reader should know about, each with the upstream code behind it and what
 * the workbench does with it. {@code inspect} prints them; none is an error.
 */
public final class CactNotes {
    private CactNotes() {}

    /** The notes on {@code file}, in header then directory order; empty for an ordinary export. */
    public static List<String> of(CactFile file) {
        List<String> notes = new ArrayList<>(geometry(file.geometry()));
        if (!file.hasTokenizer()) {
            notes.add("no tokenizer: upstream's build_export writes none without one (tokenizer=None); text prompts need"
                    + " --tokenizer or token ids");
        }
        for (TensorRecord r : file.tensors()) {
            CactLayout.Slot slot = file.layout().slot(r.index());
            if (r.dtype() != CactDType.RAW && r.elementCount() == 0) {
                notes.add(r.name() + " is empty, shape " + Arrays.toString(r.shape())
                        + (slot.id().head() == ProbeHead.CONTRASTIVE ? " (a contrastive head of contrastive_dim 0)" : "")
                        + ": the head computes nothing");
            } else if (r.dtype() == CactDType.FP32 || (r.dtype() == CactDType.FP16 && slot.tensor().storage() == Storage.CQ)) {
                notes.add(r.name() + " is " + r.dtype() + (r.dtype() == CactDType.FP16 ? " dense" : "")
                        + ": upstream's exporter writes matrices CQ and vectors FP16");
            }
        }
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
