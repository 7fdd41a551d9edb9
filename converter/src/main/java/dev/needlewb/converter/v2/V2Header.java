package dev.needlewb.converter.v2;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.cact.CactBytes;
import dev.needlewb.converter.cact.CactFormat;
import dev.needlewb.converter.cact.HeaderCodec;
import dev.needlewb.converter.cact.HeaderViolation;
import dev.needlewb.converter.cq.CqCodebooks;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.SequencedMap;

/**
 * The Needle 2 header, {@code <29If} (120 bytes, SPEC section 5): tag 0x05E12A83, num_tensors,
 * codebook_len, kv_window, kv_bits, vocab, d_model, num_heads, num_kv_heads, num_layers, head_dim,
 * max_seq_len, hada_n, mhc_lanes, engram_slots, engram_sub_dim, num_engram_tables,
 * engram_conv_taps, engram_conv_dilation, num_engram_orders, orders[4], num_engram_sites,
 * sites[4], rope_theta (f32). Each field is read at its named offset below.
 */
public final class V2Header implements HeaderCodec {
    public static final V2Header INSTANCE = new V2Header();

    public static final int HEADER_BYTES = 120;
    /** Where the directory starts. */
    public static final int DIRECTORY_OFFSET = (int) CactFormat.directoryOffset(HEADER_BYTES);

    public static final int OFF_VOCAB = 20;
    public static final int OFF_D_MODEL = 24;
    public static final int OFF_NUM_HEADS = 28;
    public static final int OFF_NUM_KV_HEADS = 32;
    public static final int OFF_NUM_LAYERS = 36;
    public static final int OFF_HEAD_DIM = 40;
    public static final int OFF_MAX_SEQ_LEN = 44;
    public static final int OFF_HADA_N = 48;
    public static final int OFF_MHC_LANES = 52;
    public static final int OFF_ENGRAM_SLOTS = 56;
    public static final int OFF_ENGRAM_SUB_DIM = 60;
    public static final int OFF_ENGRAM_TABLES = 64;
    public static final int OFF_CONV_TAPS = 68;
    public static final int OFF_CONV_DILATION = 72;
    public static final int OFF_NUM_ORDERS = 76;
    public static final int OFF_ORDERS = 80;
    public static final int OFF_NUM_SITES = 96;
    public static final int OFF_SITES = 100;
    public static final int OFF_ROPE_THETA = 116;

    private V2Header() {}

    /** Byte offset of directory record {@code i} in a Needle 2 file. */
    public static long recordOffset(long i) {
        return CactFormat.recordOffset(HEADER_BYTES, i);
    }

    @Override
    public int headerBytes() {
        return HEADER_BYTES;
    }

    @Override
    public Geometry read(MemorySegment bytes, Path file) throws FormatException {
        CactBytes b = new CactBytes(bytes, file, HEADER_BYTES);
        int[] orders = usedEntries(b, OFF_NUM_ORDERS, OFF_ORDERS, "engram orders");
        int[] sites = usedEntries(b, OFF_NUM_SITES, OFF_SITES, "engram sites");
        Geometry g = new Geometry(
                b.i32(OFF_VOCAB), b.i32(OFF_D_MODEL), b.i32(OFF_NUM_HEADS), b.i32(OFF_NUM_KV_HEADS),
                b.i32(OFF_NUM_LAYERS), b.i32(OFF_HEAD_DIM), b.i32(OFF_MAX_SEQ_LEN), b.i32(OFF_HADA_N),
                b.i32(OFF_MHC_LANES), b.i32(OFF_ENGRAM_SLOTS), b.i32(OFF_ENGRAM_SUB_DIM), b.i32(OFF_ENGRAM_TABLES),
                b.i32(OFF_CONV_TAPS), b.i32(OFF_CONV_DILATION), orders, sites, b.f32(OFF_ROPE_THETA),
                b.i32(CactFormat.OFF_KV_WINDOW), b.i32(CactFormat.OFF_KV_BITS));
        HeaderViolation v = GeometryRules.check(g);
        if (v != null) throw new FormatException(ErrorKind.BAD_HEADER_FIELD, file, v.headerOffset(), "header geometry: " + v.problem());
        return g;
    }

    /** The used entries of a count + 4-slot header array; unused slots must be zero. */
    private static int[] usedEntries(CactBytes b, int countOffset, int arrayOffset, String what) throws FormatException {
        long count = b.u32(countOffset);
        if (count > 4) throw new FormatException(ErrorKind.BAD_HEADER_FIELD, b.file(), countOffset, "header geometry: " + count + " " + what + ", at most 4 fit the header");
        // _pack_cact pads orders4 / sites4 with zeros
        int[] used = new int[(int) count];
        for (int i = 0; i < 4; i++) {
            int v = b.i32(arrayOffset + 4L * i);
            if (i < count) {
                used[i] = v;
            } else if (v != 0) {
                throw new FormatException(ErrorKind.NONZERO_RESERVED, b.file(), arrayOffset + 4L * i, "header geometry: unused " + what + " slot " + i
                        + " holds " + Integer.toUnsignedString(v) + ", must be 0");
            }
        }
        return used;
    }

    @Override
    public String problem(ModelGeometry g) {
        HeaderViolation v = GeometryRules.check(Geometry.of(g));
        return v == null ? null : v.problem();
    }

    @Override
    public void write(ByteBuffer b, ModelGeometry model, int numTensors) {
        Geometry g = Geometry.of(model);
        b.putInt(Generation.NEEDLE2.tag()).putInt(numTensors).putInt(CqCodebooks.HEADER_LENGTH)
                .putInt(g.kvWindow()).putInt(g.kvBits()).putInt(g.vocab()).putInt(g.dModel()).putInt(g.numHeads())
                .putInt(g.numKvHeads()).putInt(g.numLayers()).putInt(g.headDim()).putInt(g.maxSeqLen()).putInt(g.hadaN())
                .putInt(g.mhcLanes()).putInt(g.engramSlots()).putInt(g.engramSubDim()).putInt(g.numEngramTables())
                .putInt(g.engramConvTaps()).putInt(g.engramConvDilation());
        int[] orders = g.engramOrders();
        b.putInt(orders.length);
        for (int i = 0; i < 4; i++) b.putInt(i < orders.length ? orders[i] : 0);
        int[] sites = g.engramSites();
        b.putInt(sites.length);
        for (int i = 0; i < 4; i++) b.putInt(i < sites.length ? sites[i] : 0);
        b.putFloat(g.ropeTheta());
    }

    /** Named as in upstream's header and config (sites as engram_layers), plus the window the header means. */
    @Override
    public SequencedMap<String, Object> fields(ModelGeometry model) {
        Geometry g = Geometry.of(model);
        SequencedMap<String, Object> m = new LinkedHashMap<>();
        m.put("vocab_size", g.vocab());
        m.put("d_model", g.dModel());
        m.put("num_heads", g.numHeads());
        m.put("num_kv_heads", g.numKvHeads());
        m.put("num_layers", g.numLayers());
        m.put("head_dim", g.headDim());
        m.put("max_seq_len", g.maxSeqLen());
        m.put("hada_n", g.hadaN());
        m.put("mhc_lanes", g.mhcLanes());
        m.put("engram_slots", g.engramSlots());
        m.put("engram_sub_dim", g.engramSubDim());
        m.put("num_engram_tables", g.numEngramTables());
        m.put("engram_conv_taps", g.engramConvTaps());
        m.put("engram_conv_dilation", g.engramConvDilation());
        m.put("engram_orders", g.engramOrders());
        m.put("engram_layers", g.engramSites());
        m.put("rope_theta", g.ropeTheta());
        m.put("kv_window", Integer.toUnsignedLong(g.kvWindow()));
        m.put("sliding_window", g.slidingWindowText());
        m.put("kv_bits", Integer.toUnsignedLong(g.kvBits()));
        return m;
    }
}
