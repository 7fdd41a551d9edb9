package dev.needlewb.reports.parity;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.engine.TapSink;
import dev.needlewb.engine.probe.ProbeHeadsPresent;
import dev.needlewb.engine.probe.ProbeOutputs;
import dev.needlewb.reference.ForwardOptions;
import dev.needlewb.reference.ReferenceForward;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;

/**
 * Needle 3's probe heads as parity rows, one sequence-level tap each after the per-position ones:
 * {@code head.confidence} (the raw logit, upstream {@code forward_confidence}), {@code head.router}
 * (its 3 logits) and {@code head.embedding} (the unit embedding, {@code forward_embedding}), for the heads
 * the file has. The native and batch engines pool their own hidden cells; the torch engine hands over
 * none, so it has no head rows.
 */
final class ProbeHeadTaps {
    static final String PREFIX = "head.";

    private ProbeHeadTaps() {}

    /** The heads of {@code cact} parity compares: those the engine runs ({@link ProbeHeadsPresent}). */
    static List<V3ProbeHead> of(CactFile cact) {
        return ProbeHeadsPresent.in(cact);
    }

    static boolean isHead(String tap) {
        return tap.startsWith(PREFIX);
    }

    static String tapName(V3ProbeHead head) {
        return PREFIX + switch (head) {
            case EMBEDDING -> "embedding";
            case CONFIDENCE -> "confidence";
            case ROUTER -> "router";
        };
    }

    /** The reference's heads under {@code options} (upstream's probe heads on its hidden cells), by tap name. */
    static SequencedMap<String, double[]> reference(ReferenceForward model, int[] tokens, ForwardOptions options) throws WorkbenchException {
        SequencedMap<String, double[]> out = new LinkedHashMap<>();
        for (var e : model.extraOutputs(tokens, options, true, false).entrySet()) {
            NpyArray a = e.getValue();
            out.put(PREFIX + e.getKey(), a.asDoubles());
        }
        return out;
    }

    /** Records the engine's heads into {@code taps} as one row each (position 0). */
    static void record(ProbeOutputs heads, TapSink taps) {
        for (V3ProbeHead h : V3ProbeHead.values()) {
            if (!heads.has(h) || !taps.wants(tapName(h))) continue;
            double[] v = switch (h) {
                case EMBEDDING -> heads.embedding();
                case CONFIDENCE -> new double[] {heads.confidenceLogit()};
                case ROUTER -> heads.router();
            };
            float[] f = new float[v.length];
            for (int i = 0; i < v.length; i++) f[i] = (float) v[i];
            taps.record(tapName(h), 0, f, f.length);
        }
    }
}
