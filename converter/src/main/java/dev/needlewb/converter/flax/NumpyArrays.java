package dev.needlewb.converter.flax;

import dev.needlewb.converter.io.NpyArray;
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
        long count = 1;
        for (int d : shape) {
            count *= d;
            if (count > raw.length) break;
        }
        if (count > raw.length || count * dtype.itemSize() != raw.length) {
            throw new PickleException("array data has " + raw.length + " bytes, not the size of shape "
                    + Arrays.toString(shape) + " of " + dtype.littleEndianDescr());
        }
        byte[] data = dtype.bigEndian() ? swapBytes(raw, dtype.itemSize()) : raw;
        if (fortran && shape.length > 1) data = fortranToC(data, shape, dtype.itemSize());
        return new NpyArray(dtype.littleEndianDescr(), shape, data);
    }

    private static byte[] swapBytes(byte[] raw, int size) {
        byte[] out = new byte[raw.length];
        for (int i = 0; i < raw.length; i += size) {
            for (int j = 0; j < size; j++) out[i + j] = raw[i + size - 1 - j];
        }
        return out;
    }

    /** Walks the C-order multi-index like an odometer, tracking the Fortran-order element offset. */
    private static byte[] fortranToC(byte[] src, int[] shape, int size) {
        int n = shape.length;
        long[] fStride = new long[n];
        long stride = 1;
        for (int k = 0; k < n; k++) {
            fStride[k] = stride;
            stride *= shape[k];
        }
        byte[] out = new byte[src.length];
        int[] index = new int[n];
        long f = 0;
        for (int c = 0; c < out.length; c += size) {
            System.arraycopy(src, (int) (f * size), out, c, size);
            for (int k = n - 1; k >= 0; k--) {
                if (++index[k] < shape[k]) {
                    f += fStride[k];
                    break;
                }
                f -= fStride[k] * (shape[k] - 1);
                index[k] = 0;
            }
        }
        return out;
    }
}
