package dev.needlewb.converter.flax;

import java.util.Arrays;

/**
 * The engram table geometry both generations derive from their config ({@code engram_geometry}):
 * {@code heads = engram_heads or max(1, d_model // (orders * 128))} heads per order, one table per
 * order and head, each row {@code d_model // tables} wide; the conv dilation is the largest order.
 *
 * @param heads the config's {@code engram_heads} (0: derive it)
 */
public record EngramShape(int dModel, int[] orders, int heads) {
    public EngramShape {
        orders = orders.clone();
    }

    @Override
    public int[] orders() {
        return orders.clone();
    }

    /** Engram heads per order. */
    public int headsPerOrder() {
        return heads != 0 ? heads : Math.max(1, dModel / (orders.length * FlaxConfig.ENGRAM_SUB_DIM_TARGET));
    }

    public int tables() {
        return orders.length * headsPerOrder();
    }

    /** The width of one table row. */
    public int subDim() {
        return dModel / tables();
    }

    /** The engram conv dilation: the largest order. */
    public int dilation() {
        return Arrays.stream(orders).max().orElseThrow();
    }
}
