package dev.needlewb.converter.cact;

import dev.needlewb.converter.model.Geometry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The canonical, positional tensor list of a {@code .cact} for one geometry (upstream
 * {@code export._tensors} and {@code _head_tensors}): names, the dtypes a slot may hold and its
 * expected shape. Matrices are {@code [out, in]}; upstream writes them CQ but FP16/FP32 dense is
 * accepted; every other numeric slot is FP16 upstream, FP32 accepted (upstream never writes those
 * two, so accepting them refuses nothing of its). The RAW tokenizer comes last when present:
 * {@code _pack_cact} appends it only when given one. Probe-head shapes depend on P and out, which
 * the header does not carry: their slots have no fixed shape and the reader checks them for
 * mutual consistency.
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
    /** What a slot holds; decides its allowed dtypes. */
    public enum Kind {
        MATRIX(EnumSet.of(CactDType.CQ, CactDType.FP16, CactDType.FP32)),
        VECTOR(EnumSet.of(CactDType.FP16, CactDType.FP32)),
        MANIFEST(EnumSet.of(CactDType.FP16, CactDType.FP32)),
        /** (P, d_model). */
        HEAD_PROBES(EnumSet.of(CactDType.FP16, CactDType.FP32)),
        /** (out, P * d_model). */
        HEAD_PROJ(EnumSet.of(CactDType.FP16, CactDType.FP32)),
        /** (out,). */
        HEAD_BIAS(EnumSet.of(CactDType.FP16, CactDType.FP32)),
        TOKENIZER(EnumSet.of(CactDType.RAW));

        private final Set<CactDType> dtypes;

        Kind(Set<CactDType> dtypes) {
            this.dtypes = Collections.unmodifiableSet(dtypes);
        }

        public Set<CactDType> dtypes() {
            return dtypes;
        }
    }

    /** One position of the layout; {@code shape} is null for the probe-head kinds. */
    public record Slot(String name, Kind kind, long[] shape) {
        @Override
        public long[] shape() {
            return shape == null ? null : shape.clone();
        }
    }

    /** Tensors per layer. */
    public static final int PER_LAYER = 14;
    /** Tensors per engram site. */
    public static final int PER_SITE = 4;
    /** Tensors per probe head. */
    public static final int PER_HEAD = 3;
    public static final String TOKENIZER = "tokenizer";
    public static final String MANIFEST = "heads.manifest";

    private final List<Slot> slots;

    private CactLayout(List<Slot> slots) {
        this.slots = List.copyOf(slots);
    }

    /** Tensors from embedding through final_norm. */
    public static long coreCount(Geometry g) {
        return 1 + (long) PER_LAYER * g.numLayers() + 9 + (long) PER_SITE * g.numEngramSites() + 1;
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
            long extra = numTensors - coreCount(g) - (tokenizer ? 1 : 0);
            if (extra == 0) return new Extras(0, tokenizer);
            if (extra < 1 + PER_HEAD || (extra - 1) % PER_HEAD != 0) continue;
            long heads = (extra - 1) / PER_HEAD;
            if (heads <= ProbeHead.values().length) return new Extras((int) heads, tokenizer);
        }
        return null;
    }

    /** The layout of {@code g} with the given probe heads (canonical order) and a tokenizer. */
    public static CactLayout of(Geometry g, List<ProbeHead> heads) {
        return of(g, heads, true);
    }

    /** The layout of {@code g} with the given probe heads (canonical order), with or without the tokenizer. */
    public static CactLayout of(Geometry g, List<ProbeHead> heads, boolean tokenizer) {
        long d = g.dModel();
        long q = mul(g.numHeads(), g.headDim());
        long kv = mul(g.numKvHeads(), g.headDim());
        long hd = g.headDim();
        long layers = g.numLayers();
        long lanes = g.mhcLanes();
        long nc = mul(lanes, d);
        List<Slot> s = new ArrayList<>();
        s.add(matrix("embedding", g.vocab(), d));
        for (int i = 0; i < g.numLayers(); i++) {
            String p = (i < 10 ? "layer0" : "layer") + i + ".";
            s.add(vector(p + "norm_in", d));
            s.add(matrix(p + "q_proj", q, d));
            s.add(matrix(p + "k_proj", kv, d));
            s.add(matrix(p + "v_proj", kv, d));
            s.add(vector(p + "q_norm", hd));
            s.add(vector(p + "k_norm", hd));
            s.add(matrix(p + "gate_proj", q, d));
            s.add(matrix(p + "out_proj", d, q));
            s.add(vector(p + "post_norm", d));
            s.add(vector(p + "attn_gate", 1));
            s.add(vector(p + "pre_hada", d));
            s.add(vector(p + "d1", g.hadaN()));
            s.add(vector(p + "d2", g.hadaN()));
            s.add(vector(p + "d3", g.hadaN()));
        }
        for (String n : new String[] {"mhc_a_pre", "mhc_a_post", "mhc_a_res"}) s.add(vector(n, layers));
        s.add(new Slot("mhc_b_pre", Kind.VECTOR, new long[] {layers, lanes}));
        s.add(new Slot("mhc_b_post", Kind.VECTOR, new long[] {layers, lanes}));
        s.add(new Slot("mhc_b_res", Kind.VECTOR, new long[] {layers, lanes, lanes}));
        s.add(matrix("mhc_phi_pre", mul(layers, lanes), nc));
        s.add(matrix("mhc_phi_post", mul(layers, lanes), nc));
        s.add(matrix("mhc_phi_res", mul(layers, mul(lanes, lanes)), nc));
        long tables = g.numEngramTables();
        long engramIn = mul(tables, g.engramSubDim());
        for (int site = 0; site < g.numEngramSites(); site++) {
            String p = "engram" + site + ".";
            s.add(matrix(p + "tables", mul(tables, g.engramSlots()), g.engramSubDim()));
            s.add(matrix(p + "key_proj", d, engramIn));
            s.add(matrix(p + "value_proj", d, engramIn));
            s.add(new Slot(p + "taps", Kind.VECTOR, new long[] {g.engramConvTaps(), d}));
        }
        s.add(vector("final_norm", d));
        if (!heads.isEmpty()) {
            s.add(new Slot(MANIFEST, Kind.MANIFEST, new long[] {heads.size()}));
            for (ProbeHead h : heads) {
                s.add(new Slot(h.key() + ".probes", Kind.HEAD_PROBES, null));
                s.add(new Slot(h.key() + ".proj", Kind.HEAD_PROJ, null));
                s.add(new Slot(h.key() + ".bias", Kind.HEAD_BIAS, null));
            }
        }
        if (tokenizer) s.add(new Slot(TOKENIZER, Kind.TOKENIZER, new long[0]));
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

    /** The index of the slot with this name, or -1. */
    public int indexOf(String name) {
        for (int i = 0; i < slots.size(); i++) {
            if (slots.get(i).name().equals(name)) return i;
        }
        return -1;
    }

    private static Slot matrix(String name, long out, long in) {
        return new Slot(name, Kind.MATRIX, new long[] {out, in});
    }

    private static Slot vector(String name, long n) {
        return new Slot(name, Kind.VECTOR, new long[] {n});
    }

    /** Product saturating at Long.MAX_VALUE: such a dimension never equals a u32 directory field. */
    private static long mul(long a, long b) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }
}
