package dev.needlewb.engine.layer;

import dev.needlewb.engine.kernel.NumericMode;

/**
 * How the passes between the matrix products round: the order of a sum of squares (a norm's, a
 * softmax's) and the exponential that the vector sigmoids, SiLU and softmax take. The scalar
 * sigmoids of a handful of values (mHC coefficients, the attention gate scalar, the engram gate) use
 * {@link Math#exp} in double under both.
 */
public record Arithmetic(Sums sums, Exponential exp) {
    /** The order of a sum over a row. */
    public enum Sums {
        /** One float32 accumulator in index order. */
        IN_ORDER,
        /** {@link dev.needlewb.engine.kernel.Lanes}' 16 logical lanes, then their fixed tree. */
        LANES
    }

    /** The exponential of the vector passes. */
    public enum Exponential {
        /** {@link Math#exp} in double, rounded to float32, one value at a time. */
        LIBM,
        /** {@link VectorExp} on vector lanes (at most 1.02 ulp). */
        POLYNOMIAL
    }

    /** Exact mode's: index-order sums and the library exponential. */
    public static final Arithmetic SCALAR = new Arithmetic(Sums.IN_ORDER, Exponential.LIBM);
    /** int8 mode's and the batch prefill's: sums on lanes and the polynomial exponential. */
    public static final Arithmetic VECTOR = new Arithmetic(Sums.LANES, Exponential.POLYNOMIAL);

    /** The arithmetic a native session of {@code mode} runs. */
    public static Arithmetic of(NumericMode mode) {
        return mode == NumericMode.EXACT ? SCALAR : VECTOR;
    }
}
