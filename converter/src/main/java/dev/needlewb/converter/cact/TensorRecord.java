package dev.needlewb.converter.cact;

import java.util.Arrays;

/**
 * One validated directory record of a {@code .cact} with its canonical name. {@code bits} is the
 * record's value (2, 3, 4, or 5 for ternary); {@code group} and {@code bits} are 0 unless CQ.
 */
public record TensorRecord(int index, String name, CactDType dtype, long[] shape, long offset, long nbytes,
        int group, int bits) {

    public TensorRecord {
        shape = shape.clone();
    }

    @Override
    public long[] shape() {
        return shape.clone();
    }

    public int ndim() {
        return shape.length;
    }

    public long dim(int axis) {
        return shape[axis];
    }

    /** Number of numeric values (0 for RAW). */
    public long elementCount() {
        if (dtype == CactDType.RAW) return 0;
        long n = 1;
        for (long d : shape) n *= d;
        return n;
    }

    public boolean isTernary() {
        return dtype == CactDType.CQ && bits == dev.needlewb.converter.cq.CqPacking.TERNARY_RECORD_BITS;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TensorRecord r && index == r.index && name.equals(r.name) && dtype == r.dtype
                && Arrays.equals(shape, r.shape) && offset == r.offset && nbytes == r.nbytes
                && group == r.group && bits == r.bits;
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(shape) + Long.hashCode(offset) + index;
    }

    @Override
    public String toString() {
        return index + " " + name + " " + dtype + Arrays.toString(shape) + " @" + offset + "+" + nbytes
                + (dtype == CactDType.CQ ? " g" + group + " b" + bits : "");
    }
}
