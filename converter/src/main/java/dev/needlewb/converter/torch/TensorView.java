package dev.needlewb.converter.torch;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.io.NpyArray;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Copies a strided view of a storage (offset, size, stride in elements) into a C-order array,
 * after checking that every element it touches lies inside the storage. A view with more elements
 * than its storage (stride-0 broadcasts) is refused: materialized it could be far larger than the
 * file. bfloat16 elements are widened to float32 (their bits are a float32's top half).
 */
final class TensorView {
    /** Java arrays stop just short of 2^31 bytes. */
    private static final long MAX_ARRAY_BYTES = Integer.MAX_VALUE - 8;

    private TensorView() {}

    /**
     * The view as a C-order array. {@code mayAdopt}: no other tensor will read {@code storage}, so a
     * view covering all of it in C order can take the array itself instead of a copy.
     */
    static NpyArray materialize(Path file, int index, String name, TorchUnpickler.TensorRef t, byte[] storage, boolean mayAdopt)
            throws FormatException {
        long count = elementCount(t.size());
        if (count > t.storageNumel()) {
            throw new FormatException(ErrorKind.SHAPE_MISMATCH, file, index, name, FormatException.NO_OFFSET,
                    "view of " + (count == Long.MAX_VALUE ? "more than 2^63" : Long.toString(count)) + " elements is larger than its storage of " + t.storageNumel());
        }
        if (count > 0) {
            long last = lastElement(t);
            if (last >= t.storageNumel()) {
                throw new FormatException(ErrorKind.SHAPE_MISMATCH, file, index, name, FormatException.NO_OFFSET, "view (offset " + t.offset() + ", size "
                        + Arrays.toString(t.size()) + ", stride " + Arrays.toString(t.stride())
                        + ") reaches element " + (last == Long.MAX_VALUE ? "past 2^63" : Long.toString(last)) + " of a storage of " + t.storageNumel());
            }
        }
        int[] shape = new int[t.size().length];
        for (int d = 0; d < shape.length; d++) {
            // an empty view (another dimension 0) fits any storage whatever its other sizes: each must still be an int
            if (t.size()[d] > Integer.MAX_VALUE) {
                throw new FormatException(ErrorKind.TOO_LARGE, file, index, name, FormatException.NO_OFFSET, "dimension " + d + " of size "
                        + t.size()[d] + " exceeds 2^31-1");
            }
            shape[d] = (int) t.size()[d];
        }
        int item = t.type().itemSize;
        if (t.type() == TorchStorageType.BFLOAT16 && count * 4 > MAX_ARRAY_BYTES) {
            throw new FormatException(ErrorKind.TOO_LARGE, file, index, name, FormatException.NO_OFFSET, "bfloat16 view of " + count
                    + " elements widens to " + count * 4 + " float32 bytes, more than one array holds");
        }
        byte[] raw;
        if (mayAdopt && count == t.storageNumel() && t.offset() == 0 && isCOrder(t)) {
            raw = storage;
        } else {
            raw = new byte[(int) count * item];
            if (count > 0) copy(storage, raw, t, item, (int) count);
        }
        if (t.type() != TorchStorageType.BFLOAT16) return new NpyArray(t.type().readDescr, shape, raw);
        byte[] widened = new byte[raw.length * 2];
        for (int i = 0; i < raw.length / 2; i++) {
            widened[4 * i + 2] = raw[2 * i];
            widened[4 * i + 3] = raw[2 * i + 1];
        }
        return new NpyArray("<f4", shape, widened);
    }

    /** Whether the strides are C order's (dimensions of size 1 may have any stride). */
    private static boolean isCOrder(TorchUnpickler.TensorRef t) {
        long expected = 1;
        for (int d = t.size().length - 1; d >= 0; d--) {
            if (t.size()[d] != 1 && t.stride()[d] != expected) return false;
            expected *= t.size()[d];
        }
        return true;
    }

    /** The product of the sizes, Long.MAX_VALUE if it overflows. */
    private static long elementCount(long[] size) {
        long count = 1;
        try {
            for (long d : size) count = Math.multiplyExact(count, d);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
        return count;
    }

    /** The storage index of the view's last element, Long.MAX_VALUE if it overflows. */
    private static long lastElement(TorchUnpickler.TensorRef t) {
        long last = t.offset();
        try {
            for (int d = 0; d < t.size().length; d++) last = Math.addExact(last, Math.multiplyExact(t.size()[d] - 1, t.stride()[d]));
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
        return last;
    }

    /** Walks the view in C order; rows whose last dimension is contiguous are copied whole. */
    private static void copy(byte[] storage, byte[] out, TorchUnpickler.TensorRef t, int item, int count) {
        int rank = t.size().length;
        if (rank == 0) {
            System.arraycopy(storage, (int) t.offset() * item, out, 0, item);
            return;
        }
        long[] size = t.size(), stride = t.stride();
        int rowLen = (int) size[rank - 1];
        boolean contiguousRow = stride[rank - 1] == 1;
        int[] idx = new int[rank];
        int written = 0;
        while (written < count) {
            long start = t.offset();
            for (int d = 0; d < rank - 1; d++) start += idx[d] * stride[d];
            if (contiguousRow) {
                System.arraycopy(storage, (int) (start * item), out, written * item, rowLen * item);
            } else {
                for (int j = 0; j < rowLen; j++) {
                    System.arraycopy(storage, (int) ((start + j * stride[rank - 1]) * item), out, (written + j) * item, item);
                }
            }
            written += rowLen;
            for (int d = rank - 2; d >= 0; d--) {
                if (++idx[d] < size[d]) break;
                idx[d] = 0;
            }
        }
    }
}
