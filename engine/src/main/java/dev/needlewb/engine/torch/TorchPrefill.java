package dev.needlewb.engine.torch;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.engine.Prefill;
import dev.needlewb.converter.flax.FlaxTree;
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

    /** The torch prefill of an open .cact's dequantized weights on {@code threads} libtorch threads (the backend must be on the class path). */
    public static TorchPrefill of(CactFile cact, int threads) throws WorkbenchException {
        if (!(cact.geometry() instanceof Geometry)) {
            throw new WorkbenchException(ErrorKind.UNSUPPORTED, cact.path() + ": the torch engine runs Needle 2 models; a "
                    + cact.geometry().generation() + " prompt goes token by token (--prefill native)");
        }
        return new TorchPrefill(TorchBackend.find().load(Geometry.of(cact.geometry()), FlaxTree.dequantized(cact), threads));
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
        session.adoptPrompt(tokens, r.keys(), r.values(), null);
        return r.lastLogits();
    }

    @Override
    public void close() {
        model.close();
    }
}
