package dev.needlewb.engine;

/**
 * How a prompt enters a fresh session: {@link #NATIVE} token by token on the packed kernels
 * ({@link Session#prefill}), or a {@link BatchPrefill} of the whole prompt at once. Either way the session is
 * left ready for {@link Session#step} at the position after the prompt.
 */
@FunctionalInterface
public interface Prefill {
    Prefill NATIVE = Session::prefill;

    /**
     * Runs {@code tokens} into {@code session} and returns a copy of the logits after the last one.
     *
     * @throws IllegalArgumentException for an empty prompt or a token outside the vocabulary
     * @throws IllegalStateException when the prompt does not fit the session's positions
     */
    float[] prefill(Session session, int[] tokens);
}
