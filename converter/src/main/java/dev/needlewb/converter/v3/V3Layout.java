package dev.needlewb.converter.v3;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.converter.cact.CactBytes;
import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactFormat;
import dev.needlewb.converter.cact.CactLayout;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.v3.V3Geometry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The canonical, positional tensor list of a Needle 3 {@code .cact}, read from the
 * {@link V3Tensor} table. Most shapes follow from the header; the rest are decided by what is
 * stored, as upstream's reader must: the attention gate is {@code [H*v, d]} (elementwise) or
 * {@code [H, d]} (headwise), the Kronecker factors 2-D (shared) or 3-D (block_untied), each the
 * same in every layer as layer 0 (one config field each, architecture.py:113-116); probe-head
 * sizes k, q and out come from the records (export.py's PROBE HEADS walk: probes ((L+1)*k, d),
 * gain (L+1, k), query (q, d), row_bias (q, L+1, k), proj (out, q*d), bias (out,), the router's
 * calibration (3,)).
 */
public final class V3Layout {
    private V3Layout() {}

    /** The layout of {@code g} with these probe heads (canonical order), with or without the tokenizer. */
    public static CactLayout of(V3Geometry g, List<V3ProbeHead> heads, boolean tokenizer) {
        List<V3HeadShape> shapes = heads.stream().map(h -> new V3HeadShape(h, 0, 0, 0)).toList();
        List<CactLayout.Slot> slots = new ArrayList<>();
        for (V3Tensor.Name t : V3Tensor.expand(g, shapes, tokenizer)) {
            slots.add(slot(g, t, heads.size()));
        }
        return new CactLayout(slots);
    }

    private static CactLayout.Slot slot(V3Geometry g, V3Tensor.Name t, int heads) {
        String name = t.name();
        var storage = t.tensor().storage();
        long d = g.dModel();
        long cells = g.numLayers() + 1L;
        return switch (t.tensor()) {
            case GATE_PROJ -> CactLayout.Slot.ruled(name, storage, (stored, earlier) ->
                    sameAsLayer0(earlier, "layer00.gate_proj", stored, new long[] {g.numHeads(), d}, t.shape(g, heads)));
            case W1A, W2A, W3A -> CactLayout.Slot.ruled(name, storage, (stored, earlier) -> sameAsLayer0(earlier, "layer00.w1a",
                    stored, new long[] {V3Tensor.blockB(g), V3Tensor.blockA(g), V3Tensor.blockA(g)}, t.shape(g, heads)));
            case W1B, W2B, W3B -> CactLayout.Slot.ruled(name, storage, (stored, earlier) -> factorB(g, earlier, stored));
            case HEAD_PROBES -> CactLayout.Slot.ruled(name, storage, (stored, earlier) ->
                    stored.length == 2 && stored[0] >= cells && stored[0] % cells == 0 ? new long[] {stored[0], d} : new long[] {-1, d});
            case HEAD_GAIN -> CactLayout.Slot.ruled(name, storage, (stored, earlier) -> new long[] {cells, earlier.getLast().dim(0) / cells});
            case HEAD_QUERY -> CactLayout.Slot.ruled(name, storage, (stored, earlier) ->
                    new long[] {stored.length == 2 && stored[0] >= 1 ? stored[0] : -1, d});
            case HEAD_ROW_BIAS -> CactLayout.Slot.ruled(name, storage, (stored, earlier) -> {
                long probes = earlier.get(earlier.size() - 2).dim(1);
                return new long[] {earlier.getLast().dim(0), cells, probes};
            });
            case HEAD_PROJ -> CactLayout.Slot.ruled(name, storage, (stored, earlier) -> {
                long queries = earlier.get(earlier.size() - 2).dim(0);
                return new long[] {stored.length == 2 ? stored[0] : -2, V3Tensor.mul(queries, d)};
            });
            case HEAD_BIAS -> CactLayout.Slot.ruled(name, storage, (stored, earlier) -> new long[] {earlier.getLast().dim(0)});
            default -> CactLayout.Slot.fixed(name, storage, t.shape(g, heads));
        };
    }

    /**
     * Layer 0 may hold either variant ({@code alternative} or {@code usual}); every later layer
     * the one layer 0 holds.
     */
    private static long[] sameAsLayer0(List<TensorRecord> earlier, String layer0, long[] stored, long[] alternative, long[] usual) {
        for (TensorRecord r : earlier) {
            if (r.name().equals(layer0)) return r.shape();
        }
        return Arrays.equals(stored, alternative) ? alternative : usual;
    }

    /** The b factors follow layer 0's w1a: [bb, bb] shared, [ba, bb, bb] block_untied. */
    private static long[] factorB(V3Geometry g, List<TensorRecord> earlier, long[] stored) {
        long a = V3Tensor.blockA(g), b = V3Tensor.blockB(g);
        for (TensorRecord r : earlier) {
            if (r.name().equals("layer00.w1a")) return r.ndim() == 3 ? new long[] {a, b, b} : new long[] {b, b};
        }
        return new long[] {b, b};
    }

    /**
     * The layout of a directory of {@code numTensors} records, as upstream's docstring walks it
     * (export.py:52-63): the core, then {@code extra = num_tensors - core - tokenizer} head
     * tensors (a manifest, then each head's 6, the router's 7), then the tokenizer when the last
     * record is RAW ({@code _pack_cact} appends it only when given one, export.py:399-404; the
     * head counts alone are ambiguous: a router without tokenizer and one other head with it both
     * add 8).
     */
    static CactLayout read(V3Geometry g, long numTensors, CactBytes b) throws FormatException {
        long core = V3Tensor.coreCount(g);
        boolean tokenizer = numTensors > 0 && b.u8(b.recordOffset(numTensors - 1)) == CactDType.RAW.code();
        long extra = numTensors - core - (tokenizer ? 1 : 0);
        if (extra < 0 || extra == 1) {
            throw new FormatException(ErrorKind.SHAPE_MISMATCH, b.file(), CactFormat.OFF_NUM_TENSORS, "num_tensors " + numTensors + " fits no layout of this geometry: "
                    + core + " core tensors (13 + num_layers x " + (g.qkvConvTaps() == 0 ? 24 : 27) + " + 4 x sites), then optionally a"
                    + " manifest and each probe head's tensors, then optionally the tokenizer");
        }
        List<V3ProbeHead> heads = extra == 0 ? List.of() : readManifest(b, (int) core, extra);
        return of(g, heads, tokenizer);
    }

    /**
     * The probe-head codes of {@code heads.manifest}: an FP16 vector of 1..3 codes, strictly
     * increasing in {1 embedding, 2 confidence, 3 router} (HEADS order, export.py:317-322), whose
     * heads' tensors account for exactly {@code extra - 1} records.
     */
    private static List<V3ProbeHead> readManifest(CactBytes b, int index, long extra) throws FormatException {
        long rec = b.recordOffset(index);
        String name = V3Tensor.HEADS_MANIFEST.single().name();
        int code = b.u8(rec);
        CactDType dtype = CactDType.ofCode(code);
        int ndim = b.u8(rec + CactFormat.REC_NDIM);
        long count = b.u32(rec + CactFormat.REC_SHAPE);
        int max = V3ProbeHead.values().length;
        if (dtype != CactDType.FP16 || ndim != 1 || count < 1 || count > max) {
            throw new FormatException(ErrorKind.SHAPE_MISMATCH, b.file(), index, name, rec, "expected an FP16 vector of 1 to " + max
                    + " head codes (dtype code " + code + ", ndim " + ndim + ", length " + count + ")");
        }
        long offset = b.i64(rec + CactFormat.REC_OFFSET);
        if (offset < 0 || offset > b.length() - 2 * count) {
            throw new FormatException(ErrorKind.BAD_OFFSET, b.file(), index, name, rec + CactFormat.REC_OFFSET, "blob at " + Long.toUnsignedString(offset)
                    + " runs past the end of the file (" + b.length() + " bytes)");
        }
        List<V3ProbeHead> list = new ArrayList<>();
        long tensors = 1;
        for (int i = 0; i < count; i++) {
            double value = b.f16(offset + 2L * i);
            V3ProbeHead h = V3ProbeHead.ofCode(value);
            if (h == null || (!list.isEmpty() && h.ordinal() <= list.getLast().ordinal())) {
                throw new FormatException(ErrorKind.BAD_CODE, b.file(), index, name, offset + 2L * i, "head code " + value
                        + " is not 1 (embedding), 2 (confidence) or 3 (router) in increasing order");
            }
            list.add(h);
            tensors += h.tensorCount();
        }
        if (tensors != extra) {
            throw new FormatException(ErrorKind.SHAPE_MISMATCH, b.file(), index, name, rec, "the manifest's heads " + list + " write " + tensors
                    + " tensors, but num_tensors leaves " + extra + " after final_norm (export.py's walk consumes exactly extra - 1)");
        }
        return list;
    }
}
