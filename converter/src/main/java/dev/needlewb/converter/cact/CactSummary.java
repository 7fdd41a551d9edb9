package dev.needlewb.converter.cact;

import dev.needlewb.converter.cq.CqPacking;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * Tensor, parameter and byte counts of a {@code .cact} per storage category, as published for
 * the released file. Parameters of RAW blobs count 0. The weighted code width averages the code
 * bits over quantized parameters, ternary counted as upstream's nominal 1.58 bits
 * ({@code quantize.TERNARY_BITS}, used by {@code cq_mixed_stats}) rather than its 2-bit storage.
 */
public record CactSummary(Map<Category, Counts> categories, long parameters, long fileBytes, double codeWidth,
        double payloadBitsPerParameter, double fileBitsPerParameter) {

    /** Upstream's nominal ternary width. */
    public static final double TERNARY_BITS = 1.58;

    /** How a tensor is stored. */
    public enum Category {
        CQ2, CQ3, CQ4, TERNARY, FP16, FP32, RAW;

        public static Category of(TensorRecord r) {
            return switch (r.dtype()) {
                case FP16 -> FP16;
                case FP32 -> FP32;
                case RAW -> RAW;
                case CQ -> switch (r.bits()) {
                    case 2 -> CQ2;
                    case 3 -> CQ3;
                    case 4 -> CQ4;
                    case CqPacking.TERNARY_RECORD_BITS -> TERNARY;
                    default -> throw new IllegalArgumentException("CQ bits " + r.bits());
                };
            };
        }

        /** Code bits per parameter, or 0 if not quantized. */
        public double codeBits() {
            return switch (this) {
                case CQ2 -> 2;
                case CQ3 -> 3;
                case CQ4 -> 4;
                case TERNARY -> TERNARY_BITS;
                default -> 0;
            };
        }
    }

    /** Counts of one category. */
    public record Counts(int tensors, long parameters, long bytes) {
        Counts plus(TensorRecord r) {
            return new Counts(tensors + 1, parameters + r.elementCount(), bytes + r.nbytes());
        }
    }

    public CactSummary {
        categories = Collections.unmodifiableMap(new EnumMap<>(categories));
    }

    /** Summarizes an open file. */
    public static CactSummary of(CactFile file) {
        Map<Category, Counts> map = new EnumMap<>(Category.class);
        long params = 0;
        long payloadBytes = 0;
        double codeBits = 0;
        long quantized = 0;
        for (TensorRecord r : file.tensors()) {
            Category c = Category.of(r);
            map.put(c, map.getOrDefault(c, new Counts(0, 0, 0)).plus(r));
            params += r.elementCount();
            if (c != Category.RAW) payloadBytes += r.nbytes();
            if (c.codeBits() > 0) {
                codeBits += c.codeBits() * r.elementCount();
                quantized += r.elementCount();
            }
        }
        double width = quantized == 0 ? 0 : codeBits / quantized;
        return new CactSummary(map, params, file.fileBytes(), width,
                params == 0 ? 0 : 8.0 * payloadBytes / params, params == 0 ? 0 : 8.0 * file.fileBytes() / params);
    }

    /** Counts of a category (zeros if absent). */
    public Counts get(Category c) {
        return categories.getOrDefault(c, new Counts(0, 0, 0));
    }

    public int tensors() {
        return categories.values().stream().mapToInt(Counts::tensors).sum();
    }
}
