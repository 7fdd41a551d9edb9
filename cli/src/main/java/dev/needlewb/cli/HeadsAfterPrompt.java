package dev.needlewb.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.engine.Prefill;
import dev.needlewb.engine.Session;
import dev.needlewb.engine.probe.ProbeHeadsPresent;
import dev.needlewb.engine.probe.ProbeOutputs;
import dev.needlewb.reports.report.Report;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * {@code generate --heads}: a prefill that makes the session pool its hidden cells for the model's probe
 * heads and reads them once the prompt is in, with the time the read-out took.
 */
final class HeadsAfterPrompt implements Prefill {
    private final Prefill inner;
    private ProbeOutputs outputs;
    private long readNanos;

    private HeadsAfterPrompt(Prefill inner) {
        this.inner = inner;
    }

    /**
     * Refuses, before any engine or prefill is set up, a model without Needle 3 probe heads and the torch prefill,
     * which hands over no hidden cells.
     */
    static void check(CactFile cact, String prefillName) throws WorkbenchException {
        if (ProbeHeadsPresent.in(cact).isEmpty()) {
            throw new WorkbenchException(ErrorKind.BAD_OPTION, cact.path() + ": --heads runs Needle 3's probe heads (embedding, confidence, router); "
                    + (cact.geometry().generation() == Generation.NEEDLE3 ? "this model has none"
                    : "this is a " + cact.geometry().generation() + " model, whose heads the engine does not run"));
        }
        if (prefillName.equals("torch")) {
            throw new WorkbenchException(ErrorKind.BAD_OPTION, "--heads with --prefill torch: libtorch hands over no hidden cells; use native or batch");
        }
    }

    /** Reads the heads once {@code inner} has run the prompt. */
    static HeadsAfterPrompt around(Prefill inner) {
        return new HeadsAfterPrompt(inner);
    }

    @Override
    public float[] prefill(Session session, int[] tokens) {
        session.poolingProbeCells();
        float[] logits = inner.prefill(session, tokens);
        long start = System.nanoTime();
        outputs = session.probeHeads();
        readNanos = System.nanoTime() - start;
        return logits;
    }

    ObjectNode json() {
        ObjectNode node = Report.JSON.createObjectNode();
        if (outputs.has(V3ProbeHead.CONFIDENCE)) {
            node.put("confidence_logit", outputs.confidenceLogit());
            node.put("confidence", outputs.confidence());
        }
        if (outputs.has(V3ProbeHead.ROUTER)) {
            var router = node.putArray("router_logits");
            for (double v : outputs.router()) router.add(v);
        }
        if (outputs.has(V3ProbeHead.EMBEDDING)) {
            node.put("embedding_norm", outputs.embeddingNorm());
            var unit = node.putArray("embedding");
            for (double v : outputs.embedding()) unit.add(v);
        }
        node.put("readout_ms", readNanos / 1e6);
        return node;
    }

    void print(PrintWriter out) {
        if (outputs.has(V3ProbeHead.CONFIDENCE)) {
            out.printf(Locale.ROOT, "confidence: logit %.6f, sigmoid %.6f%n", outputs.confidenceLogit(), outputs.confidence());
        }
        if (outputs.has(V3ProbeHead.ROUTER)) {
            double[] r = outputs.router();
            out.printf(Locale.ROOT, "router logits: %.6f %.6f %.6f%n", r[0], r[1], r[2]);
        }
        if (outputs.has(V3ProbeHead.EMBEDDING)) {
            out.printf(Locale.ROOT, "embedding: %d values, norm %.6f before normalisation%n", outputs.embedding().length, outputs.embeddingNorm());
        }
    }
}
