package dev.needlewb.converter.v2;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.cact.CactBytes;
import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactFormat;
import dev.needlewb.converter.cact.CactLayout;
import dev.needlewb.converter.cact.TensorRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * The canonical, positional tensor list of a Needle 2 {@code .cact}, read from the
 * {@link ModelTensor} table: names, storage and the expected shape of each slot.
 *
 * <p>The shapes are those of upstream's parameters for the header's geometry (architecture.py):
 * q/gate {@code Dense(attn_dim)} with attn_dim = num_heads * head_dim (the reshape into heads
 * needs it), k/v {@code num_kv_heads * head_dim}, the Hadamard diagonals {@code (hada_n,)},
 * {@code Stack}'s mHC parameters {@code (L, n)}, {@code (L, n, n)}, {@code (L, n*d, n)} and
 * {@code (L, n*d, n*n)} (phi stored transposed per layer as {@code (L*k, n*d)}), an Engram's
 * {@code (tables, slots, sub_dim)} table stored {@code (tables*slots, sub_dim)} and its two
 * {@code Dense(d_model)} on {@code tables*sub_dim} inputs, taps {@code (ENGRAM_CONV_TAPS, d)};
 * kernels transposed to {@code [out, in]} as {@code export._tensors} does. Probe-head shapes
 * depend on P and out, which the header does not carry: their slots are checked for mutual
 * consistency. The RAW tokenizer comes last when present: {@code _pack_cact} appends it only
 * when given one.
 */
public final class V2Layout {
    private V2Layout() {}

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

    /** The layout of {@code g} with the given probe heads (canonical order), with or without the tokenizer. */
    public static CactLayout of(Geometry g, List<ProbeHead> heads, boolean tokenizer) {
        List<CactLayout.Slot> slots = new ArrayList<>();
        for (TensorName t : ModelTensor.expand(g, heads, tokenizer)) {
            CactLayout.Slot slot = switch (t.tensor()) {
                case HEAD_PROBES -> CactLayout.Slot.ruled(t.name(), t.tensor().storage(), (stored, earlier) -> probes(g, stored));
                case HEAD_PROJ -> CactLayout.Slot.ruled(t.name(), t.tensor().storage(), (stored, earlier) -> proj(g, stored, earlier));
                case HEAD_BIAS -> CactLayout.Slot.ruled(t.name(), t.tensor().storage(), (stored, earlier) -> new long[] {earlier.getLast().dim(0)});
                default -> CactLayout.Slot.fixed(t.name(), t.tensor().storage(), t.tensor().shape(g, heads.size(), null));
            };
            slots.add(slot);
        }
        return new CactLayout(slots);
    }

    /**
     * The layout of a directory of {@code numTensors} records: the core, then the heads the
     * manifest names, then the tokenizer if the count says so.
     */
    static CactLayout read(Geometry g, long numTensors, CactBytes b) throws FormatException {
        Extras extras = extras(g, numTensors);
        if (extras == null) {
            throw new FormatException(ErrorKind.BAD_HEADER_FIELD, b.file(), CactFormat.OFF_NUM_TENSORS, "num_tensors " + numTensors + " fits no layout of this geometry: "
                    + coreCount(g) + " core tensors, then optionally a manifest and 3 tensors per probe head (at most "
                    + ProbeHead.values().length + "), then optionally the tokenizer");
        }
        List<ProbeHead> heads = extras.heads() == 0 ? List.of() : readManifest(b, g, extras.heads());
        return of(g, heads, extras.tokenizer());
    }

    /**
     * Probe heads: probes (P, d_model) with P >= 1 (ContrastiveHead.PROBES 4, ConfidenceHead.PROBES
     * 8), proj (out, P * d_model) and bias (out,) where out may be 0 (a contrastive head of
     * contrastive_dim 0 is a Dense(0): zero-size, a note).
     */
    private static long[] probes(Geometry g, long[] stored) {
        if (stored.length != 2 || stored[0] < 1) return new long[] {-1, g.dModel()};
        return new long[] {stored[0], g.dModel()};
    }

    private static long[] proj(Geometry g, long[] stored, List<TensorRecord> earlier) {
        long probes = earlier.getLast().dim(0);
        long out = stored.length == 2 ? stored[0] : -2;
        return new long[] {out, probes * g.dModel()};
    }

    /**
     * Reads the probe-head codes: 1 (contrastive) and/or 2 (confidence), in that order, as
     * {@code _head_tensors} writes them (HEAD_CODES order, FP16 vector of H codes). The one blob
     * read while validating: its codes name the head tensors.
     */
    private static List<ProbeHead> readManifest(CactBytes b, Geometry g, int heads) throws FormatException {
        int index = (int) coreCount(g);
        long rec = b.recordOffset(index);
        String name = ModelTensor.HEADS_MANIFEST.single().name();
        int code = b.u8(rec);
        CactDType dtype = CactDType.ofCode(code);
        int ndim = b.u8(rec + CactFormat.REC_NDIM);
        if ((dtype != CactDType.FP16 && dtype != CactDType.FP32) || ndim != 1 || b.u32(rec + CactFormat.REC_SHAPE) != heads) {
            throw new FormatException(ErrorKind.SHAPE_MISMATCH, b.file(), index, name, rec, "expected an FP16 vector of " + heads
                    + " head codes (dtype code " + code + ", ndim " + ndim + ")");
        }
        long offset = b.i64(rec + CactFormat.REC_OFFSET);
        int width = dtype == CactDType.FP16 ? 2 : 4;
        if (offset < 0 || offset > b.length() - (long) width * heads) {
            throw new FormatException(ErrorKind.BAD_OFFSET, b.file(), index, name, rec + CactFormat.REC_OFFSET, "blob at " + Long.toUnsignedString(offset)
                    + " runs past the end of the file (" + b.length() + " bytes)");
        }
        List<ProbeHead> list = new ArrayList<>();
        for (int i = 0; i < heads; i++) {
            double value = width == 2 ? b.f16(offset + 2L * i) : b.f32(offset + 4L * i);
            ProbeHead h = ProbeHead.ofCode(value);
            if (h == null || (!list.isEmpty() && h.ordinal() <= list.getLast().ordinal())) {
                throw new FormatException(ErrorKind.BAD_CODE, b.file(), index, name, offset + (long) width * i, "head code " + value
                        + " is not 1 (contrastive) or 2 (confidence) in increasing order");
            }
            list.add(h);
        }
        return list;
    }
}
