package dev.needlewb.reports.torch;

import dev.needlewb.engine.Prefill;
import dev.needlewb.engine.Session;

/**
 * The prompt through the torch engine, the rest natively: the full-sequence forward on libtorch,
 * then its keys and values adopted by the native session ({@link Session#adoptPrompt}), which
 * decodes on from the position after the prompt as after native prefill.
 */
public final class TorchPrefill implements Prefill, AutoCloseable {
    private final TorchModel model;

    public TorchPrefill(TorchModel model) {
        this.model = model;
    }

    /** Bad input throws what native prefill throws, before libtorch runs or the session changes. */
    @Override
    public float[] prefill(Session session, int[] tokens) {
        if (session.position() != 0) {
            throw new IllegalStateException("torch prefill starts a fresh session; this one is at position " + session.position()
                    + " (continue it with step or prefill)");
        }
        session.checkPrefill(tokens);
        TorchModel.Result r = model.forward(tokens, session.cache().window(), session.cache().sinks(), null);
        session.adoptPrompt(tokens, r.keys(), r.values());
        return r.lastLogits();
    }

    @Override
    public void close() {
        model.close();
    }
}
