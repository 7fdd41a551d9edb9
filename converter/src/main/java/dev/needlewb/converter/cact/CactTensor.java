package dev.needlewb.converter.cact;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * One tensor of a {@link CactModel}: canonical name, dtype, shape, CQ group and record bits
 * (0 unless CQ) and its stored blob bytes.
 */
public record CactTensor(String name, CactDType dtype, long[] shape, int group, int bits, MemorySegment data) {

    public CactTensor {
        shape = shape.clone();
    }

    @Override
    public long[] shape() {
        return shape.clone();
    }

    /** A tensor over a heap copy of {@code bytes}. */
    public static CactTensor of(String name, CactDType dtype, long[] shape, int group, int bits, byte[] bytes) {
        return new CactTensor(name, dtype, shape, group, bits, MemorySegment.ofArray(bytes.clone()));
    }

    @Override
    public String toString() {
        return name + " " + dtype + Arrays.toString(shape) + " " + data.byteSize() + " bytes";
    }
}
