package dev.needlewb.converter.cact;

import dev.needlewb.converter.names.Storage;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The canonical, positional tensor list of one {@code .cact}: per slot its name, how upstream
 * stores it and the shape it must have. A generation builds it from its tensor table
 * ({@link CactGeneration#layout}); the reader checks every directory record against it and the
 * writer every tensor. Matrices are {@code [out, in]}; upstream writes them CQ but FP16/FP32 dense
 * is accepted; every other numeric slot is FP16 upstream, FP32 accepted (upstream never writes
 * those two, so accepting them refuses nothing of its). The RAW tokenizer comes last when present.
 */
public final class CactLayout {
    private static final Set<CactDType> MATRIX = Collections.unmodifiableSet(EnumSet.of(CactDType.CQ, CactDType.FP16, CactDType.FP32));
    private static final Set<CactDType> NUMERIC = Collections.unmodifiableSet(EnumSet.of(CactDType.FP16, CactDType.FP32));
    private static final Set<CactDType> FP32 = Collections.unmodifiableSet(EnumSet.of(CactDType.FP32));
    private static final Set<CactDType> RAW = Collections.unmodifiableSet(EnumSet.of(CactDType.RAW));

    /**
     * The shape a slot expects given the stored one and the records before it (probe-head shapes
     * depend on sizes the header does not carry). {@code -1} in the answer stands for "any n >= 1"
     * and {@code -2} for "any n >= 0" (the stored value is put there when it qualifies).
     */
    @FunctionalInterface
    public interface ShapeRule {
        long[] expected(long[] stored, List<TensorRecord> earlier);
    }

    /**
     * One position of the layout: its canonical name, its storage, and either a fixed shape or
     * (shape null) the rule that decides it.
     */
    public record Slot(String name, Storage storage, long[] shape, ShapeRule rule) {
        public Slot {
            if ((shape == null) == (rule == null)) throw new IllegalArgumentException(name + ": a slot has a fixed shape or a rule");
            shape = shape == null ? null : shape.clone();
        }

        public static Slot fixed(String name, Storage storage, long[] shape) {
            return new Slot(name, storage, shape, null);
        }

        public static Slot ruled(String name, Storage storage, ShapeRule rule) {
            return new Slot(name, storage, null, rule);
        }

        /** The fixed shape, or null where a rule decides it. */
        @Override
        public long[] shape() {
            return shape == null ? null : shape.clone();
        }

        /** The shape a record stored as {@code stored} must have here. */
        public long[] expected(long[] stored, List<TensorRecord> earlier) {
            return shape != null ? shape.clone() : rule.expected(stored, earlier);
        }

        /**
         * The dtypes the slot may hold: what upstream writes (CQ matrices, FP16 vectors, the RAW
         * tokenizer) or wider; FP32 slots (Needle 3's permutations, integers up to hada_n) only FP32.
         */
        public Set<CactDType> dtypes() {
            return switch (storage) {
                case CQ -> MATRIX;
                case RAW -> RAW;
                case FP32 -> FP32;
                case FP16, CHECKPOINT_ONLY -> NUMERIC;
            };
        }
    }

    private final List<Slot> slots;

    public CactLayout(List<Slot> slots) {
        this.slots = List.copyOf(slots);
    }

    public List<Slot> slots() {
        return slots;
    }

    public Slot slot(int index) {
        return slots.get(index);
    }

    public int size() {
        return slots.size();
    }

    /** Whether the layout ends with the RAW tokenizer. */
    public boolean hasTokenizer() {
        return !slots.isEmpty() && slots.getLast().storage() == Storage.RAW;
    }

    /** The index of the slot with this name, or -1. */
    public int indexOf(String name) {
        for (int i = 0; i < slots.size(); i++) {
            if (slots.get(i).name().equals(name)) return i;
        }
        return -1;
    }
}
