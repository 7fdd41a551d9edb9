package dev.needlewb.converter.cact;

import dev.needlewb.converter.names.Storage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * What is unusual in a valid {@code .cact}: things upstream's exporter writes (so the reader
 * accepts them) that a reader should know about, each with the upstream code behind it and what
 * the workbench does with it. {@code inspect} prints them; none is an error. The file's
 * generation supplies them ({@link CactGeneration#notes}); the notes on tensors every generation
 * shares are here.
 */
public final class CactNotes {
    private CactNotes() {}

    /** The notes on {@code file}, in header then directory order; empty for an ordinary export. */
    public static List<String> of(CactFile file) {
        return file.generation().notes(file);
    }

    /**
     * The notes on a file's tensors: no tokenizer, then per tensor in directory order an empty
     * one ({@code emptyHint} says what it is, e.g. " (a contrastive head of contrastive_dim 0)",
     * or "") and a matrix stored dense or anything stored FP32 but upstream's FP32 slots.
     */
    public static List<String> tensors(CactFile file, Function<CactLayout.Slot, String> emptyHint) {
        List<String> notes = new ArrayList<>();
        if (!file.hasTokenizer()) {
            notes.add("no tokenizer: upstream's build_export writes none without one (tokenizer=None); text prompts need"
                    + " --tokenizer or token ids");
        }
        for (TensorRecord r : file.tensors()) {
            CactLayout.Slot slot = file.layout().slot(r.index());
            if (r.dtype() != CactDType.RAW && r.elementCount() == 0) {
                notes.add(r.name() + " is empty, shape " + Arrays.toString(r.shape()) + emptyHint.apply(slot) + ": the head computes nothing");
            } else if ((r.dtype() == CactDType.FP32 && slot.storage() != Storage.FP32)
                    || (r.dtype() == CactDType.FP16 && slot.storage() == Storage.CQ)) {
                notes.add(r.name() + " is " + r.dtype() + (r.dtype() == CactDType.FP16 ? " dense" : "")
                        + ": upstream's exporter writes matrices CQ and vectors FP16");
            }
        }
        return notes;
    }
}
