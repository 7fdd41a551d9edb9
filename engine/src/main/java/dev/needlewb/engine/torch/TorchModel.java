package dev.needlewb.engine.torch;

import dev.needlewb.engine.TapSink;

/** A model loaded into libtorch (weights held there as float32 until {@link #close}). */
public interface TorchModel extends AutoCloseable {
    /**
     * The full-sequence forward of {@code tokens} from position 0 under the causal mask (and the
     * sliding {@code window} with {@code sinks} leading positions always visible; window 0: none),
     * recording every tap {@code taps} wants under the engines' names and shapes ({@code taps} may be null).
     */
    Result forward(int[] tokens, int window, int sinks, TapSink taps);

    @Override
    void close();

    /**
     * The logits after the last token [out_vocab] and, per layer, the keys [tokens, k_dim] and values
     * [tokens, v_dim] the attention read, row-major (k after its norm and RoPE), and with a QKV conv
     * (Needle 3) the raw q|k|v projections of the last {@code min(tokens, taps - 1)} positions (else
     * null): what a session adopts after a prefill ({@code Session.adoptPrompt}).
     */
    record Result(float[] lastLogits, float[][] keys, float[][] values, float[][] convHistory) {}
}
