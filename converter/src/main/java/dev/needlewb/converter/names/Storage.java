package dev.needlewb.converter.names;

/** How a name-map row is stored in a {@code .cact}. */
public enum Storage {
    /** A CQ matrix; its width comes from the bits map. */
    CQ,
    /** Float16 (round to nearest even from float32). */
    FP16,
    /** Float32 as is (Needle 3's MLP permutations, exact integers). */
    FP32,
    /** The RAW tokenizer blob. */
    RAW,
    /** A training-only leaf (log_temp, MTP branch): in checkpoints and state dicts, never in a .cact. */
    CHECKPOINT_ONLY
}
