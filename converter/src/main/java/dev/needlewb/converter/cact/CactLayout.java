package dev.needlewb.converter.cact;

import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.names.ModelTensor;
import dev.needlewb.converter.names.ProbeHead;
import dev.needlewb.converter.names.TensorName;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The canonical, positional tensor list of a {@code .cact} for one geometry, read from the
 * {@link ModelTensor} table: names, the dtypes a slot may hold and its expected shape. Matrices
 * are {@code [out, in]}; upstream writes them CQ but FP16/FP32 dense is accepted; every other
 * numeric slot is FP16 upstream, FP32 accepted (upstream never writes those two, so accepting
 * them refuses nothing of its). The RAW tokenizer comes last when present: {@code _pack_cact}
 * appends it only when given one. Probe-head shapes depend on P and out, which the header does
 * not carry: their slots have no fixed shape and the reader checks them for mutual consistency.
 *
 * <p>The shapes are those of upstream's parameters for the header's geometry (architecture.py):
 * q/gate {@code Dense(attn_dim)} with attn_dim = num_heads * head_dim (the reshape into heads
 * needs it), k/v {@code num_kv_heads * head_dim}, the Hadamard diagonals {@code (hada_n,)},
 * {@code Stack}'s mHC parameters {@code (L, n)}, {@code (L, n, n)}, {@code (L, n*d, n)} and
 * {@code (L, n*d, n*n)} (phi stored transposed per layer as {@code (L*k, n*d)}), an Engram's
 * {@code (tables, slots, sub_dim)} table stored {@code (tables*slots, sub_dim)} and its two
 * {@code Dense(d_model)} on {@code tables*sub_dim} inputs, taps {@code (ENGRAM_CONV_TAPS, d)};
 * kernels transposed to {@code [out, in]} as {@code export._tensors} does.
 */
public final class CactLayout {
    private static final Set<CactDType> MATRIX = Collections.unmodifiableSet(EnumSet.of(CactDType.CQ, CactDType.FP16, CactDType.FP32));
    private static final Set<CactDType> NUMERIC = Collections.unmodifiableSet(EnumSet.of(CactDType.FP16, CactDType.FP32));
    private static final Set<CactDType> RAW = Collections.unmodifiableSet(EnumSet.of(CactDType.RAW));

    /**
     * One position of the layout: the table's tensor, its name (filled in once: the reader looks
     * slots up by name) and its shape, null for the probe-head tensors.
     */
    public record Slot(TensorName id, String name, long[] shape) {
        @Override
        public long[] shape() {
            return shape == null ? null : shape.clone();
        }

        public ModelTensor tensor() {
            return id.tensor();
        }

        /** The dtypes the slot may hold: what upstream writes (CQ matrices, FP16 vectors, the RAW tokenizer) or wider. */
        public Set<CactDType> dtypes() {
            return switch (id.tensor().storage()) {
                case CQ -> MATRIX;
                case RAW -> RAW;
                case FP16, CHECKPOINT_ONLY -> NUMERIC;
            };
        }
    }

    private final List<Slot> slots;

    private CactLayout(List<Slot> slots) {
        this.slots = List.copyOf(slots);
    }

    /** Tensors from embedding through final_norm. */
    public static long coreCount(Geometry g) {
        return ModelTensor.count(g, 0, false);
    }

    /** What a directory holds after final_norm: the probe heads and whether the RAW tokenizer closes it. */
    public record Extras(int heads, boolean tokenizer) {}

    /**
     * What a directory of {@code numTensors} records holds after the core, or null if no layout
     * has that many. Upstream (export.py, PROBE HEADS): extra = num_tensors - core - tokenizer is
     * 0 or 1 manifest + 3 per head, and {@code _pack_cact} appends the tokenizer only when one is
     * given ({@code build_export}'s default {@code tokenizer=None} writes none). With a tokenizer
     * the counts after the core are 1, 5, 8; without, 0, 4, 7: never ambiguous.
     */
    public static Extras extras(Geometry g, long numTensors) {
        for (boolean tokenizer : new boolean[] {true, false}) {
            for (int heads = 0; heads <= ProbeHead.values().length; heads++) {
                if (ModelTensor.count(g, heads, tokenizer) == numTensors) return new Extras(heads, tokenizer);
            }
        }
        return null;
    }

    /** The layout of {@code g} with the given probe heads (canonical order) and a tokenizer. */
    public static CactLayout of(Geometry g, List<ProbeHead> heads) {
        return of(g, heads, true);
    }

    /** The layout of {@code g} with the given probe heads (canonical order), with or without the tokenizer. */
    public static CactLayout of(Geometry g, List<ProbeHead> heads, boolean tokenizer) {
        List<Slot> s = new ArrayList<>();
        for (TensorName t : ModelTensor.expand(g, heads, tokenizer)) s.add(new Slot(t, t.name(), t.tensor().shape(g, heads.size(), null)));
        return new CactLayout(s);
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
        return !slots.isEmpty() && slots.getLast().tensor() == ModelTensor.TOKENIZER;
    }

    /** The index of the slot with this name, or -1. */
    public int indexOf(String name) {
        for (int i = 0; i < slots.size(); i++) {
            if (slots.get(i).name().equals(name)) return i;
        }
        return -1;
    }
}
