package dev.needlewb.core.generation;

/**
 * What any module may ask of a model's geometry whatever its generation. Code that needs more
 * (head dims, engram fields, windows per layer) belongs to the generation and takes that
 * generation's own geometry type (Needle 2: {@link dev.needlewb.core.v2.Geometry}).
 */
public interface ModelGeometry {
    Generation generation();

    /** Token ids the model reads: {@code [0, vocab)}. */
    int vocab();

    /** Rows of the logit projection (Needle 3's out_vocab may be below vocab; Needle 2: vocab). */
    int outVocab();

    int dModel();

    int numLayers();

    int maxSeqLen();

    /** The header's kv_window (a u32; 0 = none stored). */
    int kvWindow();

    /** The header's kv_bits. */
    int kvBits();

    /** The attention window the header means, for a reader: e.g. {@code 256} or {@code none (kv_window 0)}. */
    String slidingWindowText();
}
