package dev.needlewb.engine.torch;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.convert.WeightSources;
import dev.needlewb.engine.EngineGenerations;
import dev.needlewb.engine.Prefill;
import dev.needlewb.converter.flax.FlaxTree;
import dev.needlewb.engine.Session;

/**
 * The prompt through the torch engine, the rest natively: the full-sequence forward on libtorch,
 * then its keys and values (and Needle 3's QKV conv history) adopted by the native session
 * ({@link Session#adoptPrompt}), which decodes on from the position after the prompt as after native prefill.
 */
public final class TorchPrefill implements Prefill, AutoCloseable {
    private final TorchModel model;
    /** Needle 2 attends over the session's KV window; Needle 3 over the model's own per-layer mask, which the forward knows. */
    private final boolean sessionWindow;

    public TorchPrefill(TorchModel model, boolean sessionWindow) {
        this.model = model;
        this.sessionWindow = sessionWindow;
    }

    /** The torch prefill of an open .cact's dequantized weights on {@code threads} libtorch threads (the backend must be on the class path). */
    public static TorchPrefill of(CactFile cact, int threads) throws WorkbenchException {
        TorchBackend backend = TorchBackend.find();
        ModelWeights w = WeightSources.fromCact(cact, false);
        TorchModel model = backend.load(cact.geometry(), FlaxTree.of(w), MlpPermutations.of(w.tensors()), threads);
        return new TorchPrefill(model, EngineGenerations.takesKvWindow(cact));
    }

    /** Bad input throws what native prefill throws, before libtorch runs or the session changes. */
    @Override
    public float[] prefill(Session session, int[] tokens) {
        if (session.position() != 0) {
            throw new IllegalStateException("torch prefill starts a fresh session; this one is at position " + session.position()
                    + " (continue it with step or prefill)");
        }
        session.checkPrefill(tokens);
        TorchModel.Result r = sessionWindow ? model.forward(tokens, session.cache().window(), session.cache().sinks(), null)
                : model.forward(tokens, 0, 0, null);
        session.adoptPrompt(tokens, r.keys(), r.values(), r.convHistory());
        return r.lastLogits();
    }

    @Override
    public void close() {
        model.close();
    }
}
