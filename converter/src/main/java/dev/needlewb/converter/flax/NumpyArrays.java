package dev.needlewb.converter.flax;

import dev.needlewb.core.io.NpyArray;
import java.util.Arrays;
import net.razorvine.pickle.PickleException;

/** Turns the pieces of a pickled numpy array into an {@link NpyArray} (C order, little-endian). */
final class NumpyArrays {
    private NumpyArrays() {}

    static int[] shape(Object value) {
        if (!(value instanceof Object[] dims)) throw new PickleException("array shape is not a tuple");
        if (dims.length > 32) throw new PickleException("array has " + dims.length + " dimensions (numpy allows 32 at most)");
        int[] shape = new int[dims.length];
        for (int i = 0; i < dims.length; i++) {
            if (!(dims[i] instanceof Integer || dims[i] instanceof Long)) throw new PickleException("array dimension is not an int");
            long d = ((Number) dims[i]).longValue();
            if (d < 0 || d > Integer.MAX_VALUE) throw new PickleException("array dimension " + d + " out of range");
            shape[i] = (int) d;
        }
        return shape;
    }

    /**
     * Checks that {@code raw} holds exactly the elements of {@code shape} (so nothing is allocated
     * beyond what the file itself carried), then converts to C order and little-endian bytes.
     */
    static NpyArray toNpy(NumpyDtype dtype, int[] shape, boolean fortran, byte[] raw) {
        int n = shape.length;
        int[] axes = new int[n];
        int[] memoryShape = new int[n];
        for (int i = 0; i < n; i++) {
            axes[i] = fortran ? n - 1 - i : i;
            memoryShape[i] = shape[axes[i]];
        }
        return fromMemory(dtype, memoryShape, axes, raw);
    }

    /**
     * An array stored as the C-order bytes of {@code memoryShape} and viewed through
     * {@code transpose(axes)} (numpy's protocol-5 {@code _frombuffer(..., 'K', axes)}; a Fortran
     * array is the reversed shape viewed through reversed axes), converted to C order.
     */
    static NpyArray fromMemory(NumpyDtype dtype, int[] memoryShape, int[] axes, byte[] raw) {
        // Saturating at raw.length + 1 bounds the product without overflow and still lets a later
        // zero dimension make it 0 (an empty array, e.g. the kernel of a Dense(0)).
        long count = 1;
        for (int d : memoryShape) count = Math.min(count * d, raw.length + 1L);
        if (count > raw.length || count * dtype.itemSize() != raw.length) {
            throw new PickleException("array data has " + raw.length + " bytes, not the size of shape "
                    + Arrays.toString(memoryShape) + " of " + dtype.littleEndianDescr());
        }
        int n = memoryShape.length;
        boolean[] seen = new boolean[n];
        boolean identity = true;
        int[] shape = new int[n];
        for (int i = 0; i < n; i++) {
            if (axes.length != n || axes[i] < 0 || axes[i] >= n || seen[axes[i]]) throw new PickleException("axis order " + Arrays.toString(axes) + " is not a permutation");
            seen[axes[i]] = true;
            identity &= axes[i] == i;
            shape[i] = memoryShape[axes[i]];
        }
        byte[] data = dtype.bigEndian() ? swapBytes(raw, dtype.itemSize()) : raw;
        if (!identity) data = permute(data, memoryShape, axes, dtype.itemSize());
        return new NpyArray(dtype.littleEndianDescr(), shape, data);
    }

    private static byte[] swapBytes(byte[] raw, int size) {
        byte[] out = new byte[raw.length];
        for (int i = 0; i < raw.length; i += size) {
            for (int j = 0; j < size; j++) out[i + j] = raw[i + size - 1 - j];
        }
        return out;
    }

    /** Walks the output's C-order index like an odometer, tracking the element offset in the source. */
    private static byte[] permute(byte[] src, int[] memoryShape, int[] axes, int size) {
        int n = memoryShape.length;
        long[] memStride = new long[n];
        long stride = 1;
        for (int k = n - 1; k >= 0; k--) {
            memStride[k] = stride;
            stride *= memoryShape[k];
        }
        int[] shape = new int[n];
        long[] step = new long[n];
        for (int i = 0; i < n; i++) {
            shape[i] = memoryShape[axes[i]];
            step[i] = memStride[axes[i]];
        }
        byte[] out = new byte[src.length];
        int[] index = new int[n];
        long offset = 0;
        for (int c = 0; c < out.length; c += size) {
            System.arraycopy(src, (int) (offset * size), out, c, size);
            for (int k = n - 1; k >= 0; k--) {
                if (++index[k] < shape[k]) {
                    offset += step[k];
                    break;
                }
                offset -= step[k] * (shape[k] - 1);
                index[k] = 0;
            }
        }
        return out;
    }
}
