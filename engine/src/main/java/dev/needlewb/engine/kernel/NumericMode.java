package dev.needlewb.engine.kernel;

/**
 * A native session's precision, chosen once per run: how the CQ kernels multiply and how the KV cache
 * stores. It also implies the rounding of the passes between the products
 * ({@link dev.needlewb.engine.layer.Arithmetic#of}), which the batch prefill chooses on its own.
 */
public enum NumericMode {
    /** float32 codebook values times the float32 transformed activation; float32 KV cache. */
    EXACT,
    /**
     * Activation groups quantized to int8 (absmax / 127 per group of the transformed input), codebook
     * mapped to int8, exact integer group sums, then activation scale x codebook scale x group norm;
     * int8 KV cache with one float32 scale per 32 values.
     */
    INT8
}
