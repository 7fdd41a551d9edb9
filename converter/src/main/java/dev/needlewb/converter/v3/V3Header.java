package dev.needlewb.converter.v3;

import dev.needlewb.core.ErrorKind;
import static dev.needlewb.converter.v3.V3HeaderField.*;

import dev.needlewb.converter.cact.CactBytes;
import dev.needlewb.converter.cact.HeaderCodec;
import dev.needlewb.converter.cact.HeaderViolation;
import dev.needlewb.converter.cq.CqCodebooks;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.core.v3.V3Geometry;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.SequencedMap;

/**
 * The Needle 3 header, {@code <48If} (196 bytes, tag 0x05E12A84): every field read and written by
 * its {@link V3HeaderField} name, the geometry checked against {@link V3GeometryRules}.
 */
public final class V3Header implements HeaderCodec {
    public static final V3Header INSTANCE = new V3Header();

    public static final int HEADER_BYTES = V3HeaderField.HEADER_BYTES;

    private V3Header() {}

    @Override
    public int headerBytes() {
        return HEADER_BYTES;
    }

    @Override
    public V3Geometry read(MemorySegment bytes, Path file) throws FormatException {
        CactBytes b = new CactBytes(bytes, file, HEADER_BYTES);
        int[] orders = usedEntries(b, NUM_ENGRAM_ORDERS, ENGRAM_ORDERS, "engram orders");
        int[] sites = usedEntries(b, NUM_ENGRAM_SITES, ENGRAM_SITES, "engram sites");
        long mask = b.u32(GLOBAL_MASK_LO.offset()) | b.u32(GLOBAL_MASK_HI.offset()) << 32;
        V3Geometry g = new V3Geometry(
                u32(b, VOCAB), u32(b, OUT_VOCAB), u32(b, D_MODEL), u32(b, NUM_HEADS), u32(b, NUM_KV_HEADS),
                u32(b, NUM_LAYERS), u32(b, QK_HEAD_DIM), u32(b, V_HEAD_DIM), u32(b, MAX_SEQ_LEN), u32(b, HADA_N),
                u32(b, MHC_LANES), u32(b, SLIDING_WINDOW), mask, u32(b, QKV_CONV_TAPS), u32(b, ENGRAM_SLOTS),
                u32(b, ENGRAM_SUB_DIM), u32(b, NUM_ENGRAM_TABLES), u32(b, ENGRAM_CONV_TAPS), u32(b, ENGRAM_CONV_DILATION),
                u32(b, ENGRAM_SEED_HEADS), orders, sites, b.f32(ROPE_THETA.offset()), u32(b, KV_WINDOW), u32(b, KV_BITS));
        HeaderViolation v = V3GeometryRules.check(g);
        if (v != null) throw new FormatException(ErrorKind.BAD_HEADER_FIELD, file, v.headerOffset(), "header geometry: " + v.problem());
        return g;
    }

    /** The field's u32 as Java stores it (compared unsigned where it matters). */
    private static int u32(CactBytes b, V3HeaderField f) {
        return b.i32(f.offset());
    }

    /** The used entries of a count + slots header array; export.py:409-410 pad the unused slots with zeros. */
    private static int[] usedEntries(CactBytes b, V3HeaderField countField, V3HeaderField array, String what) throws FormatException {
        long count = b.u32(countField.offset());
        if (count > array.slots()) {
            throw new FormatException(ErrorKind.BAD_HEADER_FIELD, b.file(), countField.offset(), "header geometry: " + countField.upstreamName() + " " + count
                    + ", at most " + array.slots() + " " + what + " fit the header");
        }
        int[] used = new int[(int) count];
        for (int i = 0; i < array.slots(); i++) {
            int v = b.i32(array.offset(i));
            if (i < count) {
                used[i] = v;
            } else if (v != 0) {
                throw new FormatException(ErrorKind.NONZERO_RESERVED, b.file(), array.offset(i), "header geometry: unused " + array.upstreamName() + "[" + i
                        + "] holds " + Integer.toUnsignedString(v) + ", must be 0 (export.py:409-410 pad with zeros)");
            }
        }
        return used;
    }

    @Override
    public String problem(ModelGeometry g) {
        HeaderViolation v = V3GeometryRules.check(V3Geometry.of(g));
        return v == null ? null : v.problem();
    }

    @Override
    public void write(ByteBuffer out, ModelGeometry model, int numTensors) {
        V3Geometry g = V3Geometry.of(model);
        ByteBuffer b = out.slice(out.position(), HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        put(b, TAG, Generation.NEEDLE3.tag());
        put(b, NUM_TENSORS, numTensors);
        put(b, CODEBOOK_LEN, CqCodebooks.HEADER_LENGTH);
        put(b, KV_WINDOW, g.kvWindow());
        put(b, KV_BITS, g.kvBits());
        put(b, VOCAB, g.vocab());
        put(b, OUT_VOCAB, g.outVocabField());
        put(b, D_MODEL, g.dModel());
        put(b, NUM_HEADS, g.numHeads());
        put(b, NUM_KV_HEADS, g.numKvHeads());
        put(b, NUM_LAYERS, g.numLayers());
        put(b, QK_HEAD_DIM, g.qkHeadDim());
        put(b, V_HEAD_DIM, g.vHeadDim());
        put(b, MAX_SEQ_LEN, g.maxSeqLen());
        put(b, HADA_N, g.hadaN());
        put(b, MHC_LANES, g.mhcLanes());
        put(b, SLIDING_WINDOW, g.slidingWindow());
        put(b, GLOBAL_MASK_LO, (int) g.globalMask());
        put(b, GLOBAL_MASK_HI, (int) (g.globalMask() >>> 32));
        put(b, QKV_CONV_TAPS, g.qkvConvTaps());
        put(b, ENGRAM_SLOTS, g.engramSlots());
        put(b, ENGRAM_SUB_DIM, g.engramSubDim());
        put(b, NUM_ENGRAM_TABLES, g.numEngramTables());
        put(b, ENGRAM_CONV_TAPS, g.engramConvTaps());
        put(b, ENGRAM_CONV_DILATION, g.engramConvDilation());
        put(b, ENGRAM_SEED_HEADS, g.engramSeedHeads());
        putArray(b, NUM_ENGRAM_ORDERS, ENGRAM_ORDERS, g.engramOrders());
        putArray(b, NUM_ENGRAM_SITES, ENGRAM_SITES, g.engramSites());
        b.putFloat(ROPE_THETA.offset(), g.ropeTheta());
        out.position(out.position() + HEADER_BYTES);
    }

    private static void put(ByteBuffer b, V3HeaderField f, int value) {
        b.putInt(f.offset(), value);
    }

    private static void putArray(ByteBuffer b, V3HeaderField count, V3HeaderField array, int[] values) {
        put(b, count, values.length);
        for (int i = 0; i < array.slots(); i++) b.putInt(array.offset(i), i < values.length ? values[i] : 0);
    }

    /**
     * Named as upstream's read_export returns them (vocab as vocab_size, sites as engram_layers,
     * the mask decoded to global_layers), out_vocab as stored, plus the window the header means.
     */
    @Override
    public SequencedMap<String, Object> fields(ModelGeometry model) {
        V3Geometry g = V3Geometry.of(model);
        SequencedMap<String, Object> m = new LinkedHashMap<>();
        m.put("vocab_size", g.vocab());
        m.put("out_vocab", Integer.toUnsignedLong(g.outVocabField()));
        m.put("d_model", g.dModel());
        m.put("num_heads", g.numHeads());
        m.put("num_kv_heads", g.numKvHeads());
        m.put("num_layers", g.numLayers());
        m.put("qk_head_dim", g.qkHeadDim());
        m.put("v_head_dim", g.vHeadDim());
        m.put("max_seq_len", g.maxSeqLen());
        m.put("hada_n", g.hadaN());
        m.put("mhc_lanes", g.mhcLanes());
        m.put("sliding_window", Integer.toUnsignedLong(g.slidingWindow()));
        m.put("global_layers", g.globalLayers());
        m.put("qkv_conv_taps", g.qkvConvTaps());
        m.put("engram_slots", g.engramSlots());
        m.put("engram_sub_dim", g.engramSubDim());
        m.put("num_engram_tables", g.numEngramTables());
        m.put("engram_conv_taps", g.engramConvTaps());
        m.put("engram_conv_dilation", g.engramConvDilation());
        m.put("engram_seed_heads", Integer.toUnsignedLong(g.engramSeedHeads()));
        m.put("engram_orders", g.engramOrders());
        m.put("engram_layers", g.engramSites());
        m.put("rope_theta", g.ropeTheta());
        m.put("kv_window", Integer.toUnsignedLong(g.kvWindow()));
        m.put("kv_bits", Integer.toUnsignedLong(g.kvBits()));
        m.put("attention_window", g.slidingWindowText());
        return m;
    }
}
