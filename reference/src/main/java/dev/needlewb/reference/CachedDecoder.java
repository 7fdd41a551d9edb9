package dev.needlewb.reference;

import dev.needlewb.core.io.NpyArray;
import java.util.SequencedMap;

/** A reference decoder over a cache: a prompt prefilled in one call, then one token per step. Not stateless. */
public interface CachedDecoder {
    /** Runs the prompt from position 0; the logits [T][out_vocab] of every prompt position. */
    double[][] prefill(int[] tokens);

    /** Appends one token; the logits [out_vocab] after it. */
    double[] step(int token);

    /** The cache's contents by the name they are saved under (Needle 2: {@code kcache}, {@code vcache}). */
    SequencedMap<String, NpyArray> cache();
}
