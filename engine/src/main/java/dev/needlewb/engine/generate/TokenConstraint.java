package dev.needlewb.engine.generate;

/**
 * Restricts what a generation may pick: before each pick it masks the logits (in place, to
 * negative infinity) and picks with the sampler; after it learns the token taken.
 */
public interface TokenConstraint {
    /**
     * Masks {@code logits} to the tokens allowed now and picks one with {@code sampler}.
     *
     * @param remaining tokens the generation may still take, this one included
     */
    int choose(float[] logits, Sampler sampler, int remaining);

    /** The token just taken (also an end-of-sequence, which ends the generation). */
    void accept(int token);
}
