package dev.needlewb.converter.convert;

import dev.needlewb.converter.names.Storage;
import dev.needlewb.converter.names.Transform;

/**
 * What a conversion did to one tensor: its transform and storage (CQ width and group, 0 unless
 * CQ), whether a base file's blob was kept unchanged, and how far the written values are from
 * the source values (max abs and RMS; 0 when nothing was rounded). {@code codesChanged} and
 * {@code normsChanged} count CQ codes / group norms that differ from the base ({@code -1}
 * without a base).
 */
public record TensorConversion(String name, Transform transform, Storage storage, int bits, int group,
        boolean keptFromBase, double maxAbsChange, double rmsChange, long codesChanged, long normsChanged) {

    /** {@code cq2/128}, {@code fp16}, {@code raw}, or the storage in lower case. */
    public String quantization() {
        return switch (storage) {
            case CQ -> (bits == 5 ? "ternary" : "cq" + bits) + "/" + group;
            default -> storage.name().toLowerCase(java.util.Locale.ROOT);
        };
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
