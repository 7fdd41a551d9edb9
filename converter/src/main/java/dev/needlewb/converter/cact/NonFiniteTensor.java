package dev.needlewb.converter.cact;

import dev.needlewb.converter.cq.CqBlob;
import dev.needlewb.converter.finite.NonFiniteCount;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A tensor of a {@code .cact} whose stored floats hold NaN or infinity: FP16 and FP32 values, or
 * the FP16 group norms of a CQ matrix (its codes index the header codebook, which the reader
 * already requires finite). {@code firstOffset} is the file offset of the first such float.
 */
public record NonFiniteTensor(int index, String name, Part part, NonFiniteCount count, long firstOffset) {

    /** Which floats of the tensor: its values, or a CQ matrix's group norms. */
    public enum Part {
        VALUES("value", "element"),
        CQ_NORMS("CQ group norm", "norm");

        private final String label;
        private final String unit;

        Part(String label, String unit) {
            this.label = label;
            this.unit = unit;
        }

        /** What the floats are, singular: {@code value}, {@code CQ group norm}. */
        public String label() {
            return label;
        }
    }

    /** Every tensor of {@code file} with non-finite floats, in directory order. */
    public static List<NonFiniteTensor> of(CactFile file) {
        List<NonFiniteTensor> out = new ArrayList<>();
        for (TensorRecord r : file.tensors()) {
            MemorySegment blob = file.blob(r.index());
            NonFiniteTensor t = switch (r.dtype()) {
                case FP16 -> found(r, Part.VALUES, NonFiniteCount.ofHalves(blob), 0, 2);
                case FP32 -> found(r, Part.VALUES, NonFiniteCount.ofFloats(blob), 0, 4);
                case CQ -> {
                    CqBlob cq = file.cqBlob(r.index());
                    yield found(r, Part.CQ_NORMS, NonFiniteCount.ofHalves(cq.norms()), cq.normsOffset(), 2);
                }
                case RAW -> null;
            };
            if (t != null) out.add(t);
        }
        return out;
    }

    private static NonFiniteTensor found(TensorRecord r, Part part, NonFiniteCount count, long partOffset, int width) {
        return count.any() ? new NonFiniteTensor(r.index(), r.name(), part, count, r.offset() + partOffset + width * count.firstElement()) : null;
    }

    /** E.g. {@code 3 values are not finite (first: NaN at element 17)}, {@code 1 CQ group norm is not finite (first: NaN at norm 5)}. */
    public String describe() {
        return count.describe(part.label, part.unit);
    }
}
