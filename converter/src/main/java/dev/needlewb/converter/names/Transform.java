package dev.needlewb.converter.names;

import dev.needlewb.core.io.NpyArray;
import java.util.Arrays;

/**
 * How a Flax leaf becomes a tensor in the {@code .cact} / PyTorch layout, and back. Every
 * transform moves bytes only (the dtype is kept), so a round trip is bit for bit. Per-layer
 * transforms take one layer's slice of a leaf stacked on a leading layer axis; their inverse
 * returns that slice, which the caller stacks again in layer order.
 */
public enum Transform {
    /** Same shape and layout. */
    NONE("same layout"),
    /** A Flax kernel {@code [in, out]} becomes {@code [out, in]}. */
    TRANSPOSE("kernel [in, out] -> [out, in]"),
    /** Layer {@code N} of a stacked leaf {@code [L, ...]}. */
    LAYER_SLICE("layer N of [L, ...]"),
    /** Layer {@code N} of a stacked scalar {@code [L]}, stored as shape {@code [1]}. */
    LAYER_SCALAR("layer N of [L] as [1]"),
    /** Layer {@code N} of a stacked kernel {@code [L, in, out]}, transposed to {@code [out, in]}. */
    LAYER_SLICE_TRANSPOSE("layer N of [L, in, out] -> [out, in]"),
    /** mHC {@code phi} {@code (L, lanes*d, k)} transposed (0, 2, 1) and reshaped to {@code (L*k, lanes*d)}. */
    PHI_RESHAPE("(L, lanes*d, k) -> transpose(0,2,1) -> (L*k, lanes*d)"),
    /** Engram tables {@code (tables, slots, sub_dim)} reshaped to {@code (tables*slots, sub_dim)}. */
    TABLE_RESHAPE("(tables, slots, sub_dim) -> (tables*slots, sub_dim)"),
    /** Probe-head probes {@code (L+1, k, d)} reshaped to {@code ((L+1)*k, d)} (Needle 3). */
    PROBES_RESHAPE("(L+1, k, d) -> ((L+1)*k, d)"),
    /** No Flax leaf: written as zeros (the contrastive head's Dense has no bias); must be zero to go back. */
    ZERO_FILL("absent in Flax: zeros"),
    /** Computed from which probe heads exist; no source tensor. */
    DERIVED("from the heads present"),
    /** The tokenizer: from a SentencePiece model or a .cact, never a weight. */
    TOKENIZER("from tok.model or a .cact");

    private final String description;

    Transform(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }

    public boolean perLayer() {
        return this == LAYER_SLICE || this == LAYER_SCALAR || this == LAYER_SLICE_TRANSPOSE;
    }

    /** The Flax leaf shape that holds a tensor of {@code shape} under this transform. */
    public int[] flaxShape(int[] shape, int layers, int tables) {
        return switch (this) {
            case NONE -> shape.clone();
            case TRANSPOSE -> new int[] {shape[1], shape[0]};
            case LAYER_SLICE -> prepend(layers, shape);
            case LAYER_SCALAR -> new int[] {layers};
            case LAYER_SLICE_TRANSPOSE -> new int[] {layers, shape[1], shape[0]};
            case PHI_RESHAPE -> new int[] {layers, shape[1], shape[0] / layers};
            case TABLE_RESHAPE -> new int[] {tables, shape[0] / tables, shape[1]};
            case PROBES_RESHAPE -> new int[] {layers + 1, shape[0] / (layers + 1), shape[1]};
            case ZERO_FILL, DERIVED, TOKENIZER -> null;
        };
    }

    /** The tensor of {@code shape} taken from Flax leaf {@code leaf} (layer {@code layer} for per-layer transforms). */
    public NpyArray forward(NpyArray leaf, int layer, int[] shape) {
        return switch (this) {
            case NONE, TABLE_RESHAPE, PROBES_RESHAPE -> new NpyArray(leaf.descr(), shape, leaf.data());
            case TRANSPOSE -> transpose(leaf.descr(), leaf.data(), 0, leaf.shape()[0], leaf.shape()[1], shape);
            case LAYER_SLICE, LAYER_SCALAR -> new NpyArray(leaf.descr(), shape, slice(leaf, layer, count(shape)));
            case LAYER_SLICE_TRANSPOSE -> {
                int in = leaf.shape()[1], out = leaf.shape()[2];
                yield transpose(leaf.descr(), leaf.data(), (long) layer * in * out, in, out, shape);
            }
            case PHI_RESHAPE -> {
                int layers = leaf.shape()[0], nc = leaf.shape()[1], k = leaf.shape()[2];
                yield new NpyArray(leaf.descr(), shape, blockTranspose(leaf.data(), NpyArray.itemSize(leaf.descr()), layers, nc, k));
            }
            case ZERO_FILL, DERIVED, TOKENIZER -> throw new IllegalStateException(this + " has no Flax leaf");
        };
    }

    /**
     * The Flax data of {@code tensor}: the whole leaf ({@code flaxShape}), or for per-layer
     * transforms one layer's slice (shape {@code flaxShape} without its leading axis).
     */
    public NpyArray inverse(NpyArray tensor, int[] flaxShape) {
        String descr = tensor.descr();
        return switch (this) {
            case NONE, TABLE_RESHAPE, PROBES_RESHAPE -> new NpyArray(descr, flaxShape, tensor.data());
            case TRANSPOSE -> transpose(descr, tensor.data(), 0, tensor.shape()[0], tensor.shape()[1], flaxShape);
            case LAYER_SLICE, LAYER_SCALAR -> new NpyArray(descr, Arrays.copyOfRange(flaxShape, 1, flaxShape.length), tensor.data());
            case LAYER_SLICE_TRANSPOSE -> transpose(descr, tensor.data(), 0, tensor.shape()[0], tensor.shape()[1],
                    Arrays.copyOfRange(flaxShape, 1, 3));
            case PHI_RESHAPE -> {
                int layers = flaxShape[0], nc = flaxShape[1], k = flaxShape[2];
                yield new NpyArray(descr, flaxShape, blockTranspose(tensor.data(), NpyArray.itemSize(descr), layers, k, nc));
            }
            case ZERO_FILL, DERIVED, TOKENIZER -> throw new IllegalStateException(this + " has no Flax leaf");
        };
    }

    private static byte[] slice(NpyArray leaf, int layer, long count) {
        int item = NpyArray.itemSize(leaf.descr());
        int from = Math.toIntExact(layer * count * item);
        return Arrays.copyOfRange(leaf.data(), from, from + Math.toIntExact(count * item));
    }

    /** {@code [rows, cols]} at element {@code start} of {@code data} as {@code [cols, rows]}. */
    private static NpyArray transpose(String descr, byte[] data, long start, int rows, int cols, int[] shape) {
        int item = NpyArray.itemSize(descr);
        byte[] out = new byte[Math.multiplyExact(rows * cols, item)];
        transposeInto(data, Math.toIntExact(start * item), out, 0, item, rows, cols);
        return new NpyArray(descr, shape, out);
    }

    /** Each of {@code blocks} consecutive {@code [rows, cols]} matrices transposed in place of the other. */
    private static byte[] blockTranspose(byte[] data, int item, int blocks, int rows, int cols) {
        byte[] out = new byte[data.length];
        int size = rows * cols * item;
        for (int b = 0; b < blocks; b++) transposeInto(data, b * size, out, b * size, item, rows, cols);
        return out;
    }

    /** Rows and columns of the square tiles {@link #transposeInto} moves at a time. */
    private static final int TILE = 32;

    /**
     * Transposes {@code [rows, cols]} elements of {@code item} bytes, moving 4- and 2-byte elements as one
     * value, in {@link #TILE} x {@link #TILE} tiles: walking whole rows writes each element a column away
     * from the last (a [512, 1536] float32 matrix: 14 ms warm row by row, 11 ms in tiles).
     */
    private static void transposeInto(byte[] src, int from, byte[] dst, int to, int item, int rows, int cols) {
        for (int r0 = 0; r0 < rows; r0 += TILE) {
            int r1 = Math.min(rows, r0 + TILE);
            for (int c0 = 0; c0 < cols; c0 += TILE) {
                int c1 = Math.min(cols, c0 + TILE);
                for (int r = r0; r < r1; r++) {
                    for (int c = c0; c < c1; c++) {
                        int s = from + (r * cols + c) * item, d = to + (c * rows + r) * item;
                        switch (item) {
                            case 4 -> INT.set(dst, d, (int) INT.get(src, s));
                            case 2 -> SHORT.set(dst, d, (short) SHORT.get(src, s));
                            default -> System.arraycopy(src, s, dst, d, item);
                        }
                    }
                }
            }
        }
    }

    private static final java.lang.invoke.VarHandle INT =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(int[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final java.lang.invoke.VarHandle SHORT =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(short[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    private static long count(int[] shape) {
        return NpyArray.elementCount(shape);
    }

    private static int[] prepend(int first, int[] rest) {
        int[] out = new int[rest.length + 1];
        out[0] = first;
        System.arraycopy(rest, 0, out, 1, rest.length);
        return out;
    }
}
