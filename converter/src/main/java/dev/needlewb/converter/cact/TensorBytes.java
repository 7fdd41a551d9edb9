package dev.needlewb.converter.cact;

import dev.needlewb.converter.cq.CqBlob;

/** The blob size a record's dtype, shape, bits and group imply. */
public final class TensorBytes {
    private TensorBytes() {}

    /**
     * Exact byte count: FP16 2 per element, FP32 4, CQ codes plus FP16 group norms of a
     * {@code [out, in]} matrix, RAW -1 (any size).
     *
     * @throws ArithmeticException if the size does not fit a long
     */
    public static long of(CactDType dtype, long[] shape, int group, int bits) {
        return switch (dtype) {
            case FP16 -> Math.multiplyExact(elements(shape), 2);
            case FP32 -> Math.multiplyExact(elements(shape), 4);
            case CQ -> CqBlob.byteSize(shape[0], shape[1], bits, group);
            case RAW -> -1;
        };
    }

    /** Product of the dimensions, exactly. */
    public static long elements(long[] shape) {
        long n = 1;
        for (long d : shape) n = Math.multiplyExact(n, d);
        return n;
    }
}
