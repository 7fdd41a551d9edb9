package dev.needlewb.engine.kernel;

/** How the linear kernels multiply: chosen once per run. */
public enum NumericMode {
    /** float32 codebook values times the float32 transformed activation. */
    EXACT,
    /**
     * Activation groups quantized to int8 (absmax / 127 per group of the transformed input), codebook
     * mapped to int8, int32 accumulation, then activation scale x codebook scale x group norm.
     */
    INT8
}
