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
 * accepted; every other numeric slot is FP16 upstream, FP32 accepted. The tokenizer (RAW, last)
 * is required. Probe-head shapes depend on P and out, which the header does not carry: their
 * slots have no fixed shape and the reader checks them for mutual consistency.
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

    /**
     * The number of probe heads a directory of {@code numTensors} records implies
     * (extra = numTensors - core - 1 tokenizer; 0, or 1 manifest + 3 per head), or -1 if no
     * layout has that many records.
     */
    public static int headCount(Geometry g, long numTensors) {
        long extra = numTensors - coreCount(g) - 1;
        if (extra == 0) return 0;
        if (extra < 1 + PER_HEAD || (extra - 1) % PER_HEAD != 0) return -1;
        long heads = (extra - 1) / PER_HEAD;
        return heads <= ProbeHead.values().length ? (int) heads : -1;
    }

    /** Total records of a layout with these heads. */
    public static long recordCount(Geometry g, int heads) {
        return coreCount(g) + (heads == 0 ? 0 : 1 + (long) PER_HEAD * heads) + 1;
    }

    /** The layout of {@code g} with the given probe heads (canonical order) and a tokenizer. */
    public static CactLayout of(Geometry g, List<ProbeHead> heads) {
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
            String p = String.format("layer%02d.", i);
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
        s.add(new Slot(TOKENIZER, Kind.TOKENIZER, new long[0]));
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
