package dev.needlewb.converter.convert;

import dev.needlewb.converter.names.Transform;

/**
 * What a conversion did to one tensor: its transform and storage (CQ width and group, 0 unless
 * CQ), whether a base file's blob was kept unchanged, and how far the written values are from
 * the source values (max abs and RMS; 0 when nothing was rounded). {@code quantization} is
 * {@code cq2/128}-style for CQ, {@code fp16}, {@code raw}, or the dtype {@code f32}/{@code f16}. {@code codesChanged} and
 * {@code normsChanged} count CQ codes / group norms that differ from the base ({@code -1}
 * without a base).
 */
public record TensorConversion(String name, Transform transform, String quantization, int bits, int group,
        boolean keptFromBase, double maxAbsChange, double rmsChange, long codesChanged, long normsChanged) {

    /** The label of a CQ width and group: {@code cq2/128}, {@code ternary/128}. */
    public static String cq(int recordBits, int group) {
        return (recordBits == 5 ? "ternary" : "cq" + recordBits) + "/" + group;
    }

    /** max |a - b| and the RMS of a - b over two equally long arrays. */
    public static double[] difference(float[] written, float[] source) {
        double max = 0, sum = 0;
        for (int i = 0; i < written.length; i++) {
            double d = (double) written[i] - source[i];
            max = Math.max(max, Math.abs(d));
            sum += d * d;
        }
        return new double[] {max, written.length == 0 ? 0 : Math.sqrt(sum / written.length)};
    }
}
