package dev.needlewb.converter.cact;

import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cq.CqBlob;
import dev.needlewb.converter.cq.CqCodebooks;
import dev.needlewb.converter.cq.CqDequantizer;
import dev.needlewb.converter.cq.CqPacking;
import dev.needlewb.converter.cq.InvalidCodeException;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.names.ModelTensor;
import dev.needlewb.converter.names.ProbeHead;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * A validated {@code .cact}, memory-mapped (or over caller-owned bytes). Opening checks the whole
 * header, codebook and directory before any tensor data is read, and requires the canonical
 * layout upstream writes: each blob at the next 64-byte boundary after the previous one (the
 * first after the directory), zero padding between, the file ending at the last blob, unused
 * shape/order/site fields and the record pad zero, group and bits 0 except for CQ. That is what
 * makes {@link CactModel#from} + {@link CactWriter} reproduce a file byte for byte. The one blob
 * read while validating is {@code heads.manifest}, because its codes name the head tensors.
 * Every problem is a {@link FormatException} naming the file, tensor and byte offset.
 *
 * <p>Each check either protects the reader (bounds, overflow, alignment, sizes) or is a fact of
 * upstream's {@code export._pack_cact}, named where it is made; {@link GeometryRules} covers the
 * header geometry. What upstream writes but is unusual is not refused: see {@link CactNotes}.
 */
public final class CactFile implements AutoCloseable {
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Path path;
    private final Arena arena;
    private final MemorySegment bytes;
    private final Geometry geometry;
    private final float[] codebook;
    private final List<TensorRecord> tensors;
    private final CactLayout layout;
    private final int cqGroup;

    private CactFile(Path path, Arena arena, MemorySegment bytes, Validated v) {
        this.path = path;
        this.arena = arena;
        this.bytes = bytes;
        this.geometry = v.geometry;
        this.codebook = v.codebook;
        this.tensors = List.copyOf(v.records);
        this.layout = v.layout;
        this.cqGroup = v.cqGroup;
    }

    /** Maps and validates {@code file}; close the result to unmap. */
    public static CactFile open(Path file) throws WorkbenchException {
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            MemorySegment seg = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
            return new CactFile(file, arena, seg, validate(seg, file));
        } catch (IOException e) {
            arena.close();
            throw WorkbenchException.cannotRead(file, e);
        } catch (FormatException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * Validates a {@code .cact} held in {@code bytes} (not copied; the caller keeps it alive).
     *
     * @param nameForMessages the file name errors cite (may be null)
     */
    public static CactFile parse(MemorySegment bytes, Path nameForMessages) throws FormatException {
        return new CactFile(nameForMessages, null, bytes, validate(bytes, nameForMessages));
    }

    public Path path() {
        return path;
    }

    public Geometry geometry() {
        return geometry;
    }

    public int numTensors() {
        return tensors.size();
    }

    /** The 28 header codebook floats {@code cb2[4] | cb3[8] | cb4[16]}. */
    public float[] codebook() {
        return codebook.clone();
    }

    /** The CQ group every CQ tensor of this file uses, or 0 if it has none. */
    public int cqGroup() {
        return cqGroup;
    }

    /**
     * The codebook dequantization uses for record bits 2, 3, 4 (from the header, valid for this
     * file's group) or 5 (ternary, analytic for {@code group}).
     */
    public float[] codebookFor(int bits, int group) {
        if (bits == CqPacking.TERNARY_RECORD_BITS) return CqCodebooks.ternary(group);
        if (cqGroup != 0 && group != cqGroup) {
            throw new IllegalArgumentException("the header codebook is for group " + cqGroup + ", not " + group);
        }
        return CqCodebooks.fromHeader(codebook, bits);
    }

    /** The canonical layout this file follows. */
    public CactLayout layout() {
        return layout;
    }

    public List<TensorRecord> tensors() {
        return tensors;
    }

    public TensorRecord tensor(int index) {
        return tensors.get(index);
    }

    /** The tensor with this canonical name, or null. */
    public TensorRecord tensor(String name) {
        int i = layout.indexOf(name);
        return i < 0 ? null : tensors.get(i);
    }

    /** The stored bytes of tensor {@code index} (a view; valid until close). */
    public MemorySegment blob(int index) {
        TensorRecord r = tensors.get(index);
        return bytes.asSlice(r.offset(), r.nbytes());
    }

    /** The packed view of CQ tensor {@code index} (codes then norms). */
    public CqBlob cqBlob(int index) {
        TensorRecord r = tensors.get(index);
        if (r.dtype() != CactDType.CQ) throw new IllegalArgumentException("tensor " + index + " (" + r.name() + ") is " + r.dtype());
        return new CqBlob(r.dim(0), r.dim(1), r.group(), r.bits(), blob(index));
    }

    /** Whether the file ends with a RAW tokenizer (upstream's build_export writes none without a tokenizer). */
    public boolean hasTokenizer() {
        return layout.hasTokenizer();
    }

    /** The RAW tokenizer blob (a view; parsing it is the tokenizer package's job), or null if the file has none. */
    public MemorySegment tokenizerBlob() {
        return hasTokenizer() ? blob(tensors.size() - 1) : null;
    }

    /**
     * Float32 values of numeric tensor {@code index}, row-major in its directory shape: FP16
     * widened, FP32 as stored, CQ dequantized exactly as upstream {@code read_export}.
     *
     * @throws FormatException if the CQ codes are invalid or the tensor does not fit one array
     */
    public float[] dequantize(int index) throws FormatException {
        TensorRecord r = tensors.get(index);
        if (r.dtype() != CactDType.RAW && r.elementCount() > Integer.MAX_VALUE - 8) {
            throw fail(index, r.name(), r.offset(), r.elementCount() + " values do not fit one Java array");
        }
        MemorySegment blob = blob(index);
        return switch (r.dtype()) {
            case FP16 -> {
                float[] out = new float[(int) r.elementCount()];
                for (int i = 0; i < out.length; i++) out[i] = Float.float16ToFloat(blob.getAtIndex(U16, i));
                yield out;
            }
            case FP32 -> blob.toArray(F32);
            case CQ -> {
                try {
                    yield CqDequantizer.dequantize(cqBlob(index), codebookFor(r.bits(), r.group()));
                } catch (InvalidCodeException e) {
                    throw fail(index, r.name(), r.offset() + e.byteOffset(), e.getMessage());
                }
            }
            case RAW -> throw new IllegalArgumentException("tensor " + index + " (" + r.name() + ") is RAW: use tokenizerBlob()");
        };
    }

    /** File length in bytes. */
    public long fileBytes() {
        return bytes.byteSize();
    }

    /** SHA-256 of the whole file, lower-case hex. */
    public String sha256() {
        return sha256(bytes);
    }

    /** SHA-256 of a segment, lower-case hex. */
    public static String sha256(MemorySegment seg) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            long chunk = 1 << 20;
            for (long at = 0; at < seg.byteSize(); at += chunk) {
                md.update(seg.asSlice(at, Math.min(chunk, seg.byteSize() - at)).asByteBuffer());
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** Unmaps the file (no-op for {@link #parse}d bytes). Views obtained earlier become invalid. */
    @Override
    public void close() {
        if (arena != null) arena.close();
    }

    // ---------------------------------------------------------------- validation

    private record Validated(Geometry geometry, float[] codebook, CactLayout layout, List<TensorRecord> records, int cqGroup) {}

    private FormatException fail(int index, String name, long offset, String problem) {
        return new FormatException(path, index, name, offset, problem);
    }

    private static Validated validate(MemorySegment seg, Path file) throws FormatException {
        long length = seg.byteSize();
        // safety: the fixed header must be there before any field is read
        if (length < CactFormat.HEADER_BYTES) {
            throw new FormatException(file, length, "file is " + length + " bytes, shorter than the "
                    + CactFormat.HEADER_BYTES + "-byte header (truncated?)");
        }
        // _pack_cact writes TAG; read_export asserts it
        int tag = seg.get(U32, 0);
        if (tag != CactFormat.TAG) {
            throw new FormatException(file, 0, String.format("tag 0x%08X is not the .cact tag 0x%08X", tag, CactFormat.TAG));
        }
        // _pack_cact concatenates _cq_codebook_np(b, group) for CB_BITS = (2, 3, 4): 4 + 8 + 16 floats
        long codebookLen = u32(seg, CactFormat.OFF_CODEBOOK_LEN);
        if (codebookLen != CqCodebooks.HEADER_LENGTH) {
            throw new FormatException(file, CactFormat.OFF_CODEBOOK_LEN, "codebook_len " + codebookLen
                    + " must be " + CqCodebooks.HEADER_LENGTH + " (cb2[4] | cb3[8] | cb4[16])");
        }
        long numTensors = u32(seg, CactFormat.OFF_NUM_TENSORS);
        // safety: the directory must lie inside the file before a record is read
        long directoryEnd = CactFormat.recordOffset(numTensors);
        if (directoryEnd > length) {
            throw new FormatException(file, CactFormat.OFF_NUM_TENSORS, "num_tensors " + numTensors + " needs a directory up to byte "
                    + directoryEnd + " but the file has " + length + " bytes");
        }
        Geometry geometry = readGeometry(seg, file);
        float[] codebook = new float[CqCodebooks.HEADER_LENGTH];
        for (int i = 0; i < codebook.length; i++) {
            codebook[i] = seg.get(F32, CactFormat.HEADER_BYTES + 4L * i);
            // Lloyd-Max centres are means of normal samples over sqrt(group): always finite
            if (!Float.isFinite(codebook[i])) {
                throw new FormatException(file, CactFormat.HEADER_BYTES + 4L * i, "codebook entry " + i + " is " + codebook[i]);
            }
        }
        CactLayout.Extras extras = CactLayout.extras(geometry, numTensors);
        if (extras == null) {
            throw new FormatException(file, CactFormat.OFF_NUM_TENSORS, "num_tensors " + numTensors + " fits no layout of this geometry: "
                    + CactLayout.coreCount(geometry) + " core tensors, then optionally a manifest and 3 tensors per probe head (at most "
                    + ProbeHead.values().length + "), then optionally the tokenizer");
        }
        List<ProbeHead> headList = extras.heads() == 0 ? List.of() : readManifest(seg, file, geometry, extras.heads());
        CactLayout layout = CactLayout.of(geometry, headList, extras.tokenizer());
        return new DirectoryCheck(seg, file, layout, geometry, codebook, (int) numTensors).run();
    }

    private static long u32(MemorySegment seg, long offset) {
        return Integer.toUnsignedLong(seg.get(U32, offset));
    }

    private static Geometry readGeometry(MemorySegment seg, Path file) throws FormatException {
        int[] orders = usedEntries(seg, file, CactFormat.OFF_NUM_ORDERS, CactFormat.OFF_ORDERS, "engram orders");
        int[] sites = usedEntries(seg, file, CactFormat.OFF_NUM_SITES, CactFormat.OFF_SITES, "engram sites");
        Geometry g = new Geometry(
                seg.get(U32, CactFormat.OFF_VOCAB), seg.get(U32, CactFormat.OFF_D_MODEL),
                seg.get(U32, CactFormat.OFF_NUM_HEADS), seg.get(U32, CactFormat.OFF_NUM_KV_HEADS),
                seg.get(U32, CactFormat.OFF_NUM_LAYERS), seg.get(U32, CactFormat.OFF_HEAD_DIM),
                seg.get(U32, CactFormat.OFF_MAX_SEQ_LEN), seg.get(U32, CactFormat.OFF_HADA_N),
                seg.get(U32, CactFormat.OFF_MHC_LANES), seg.get(U32, CactFormat.OFF_ENGRAM_SLOTS),
                seg.get(U32, CactFormat.OFF_ENGRAM_SUB_DIM), seg.get(U32, CactFormat.OFF_ENGRAM_TABLES),
                seg.get(U32, CactFormat.OFF_CONV_TAPS), seg.get(U32, CactFormat.OFF_CONV_DILATION),
                orders, sites, seg.get(F32, CactFormat.OFF_ROPE_THETA),
                seg.get(U32, CactFormat.OFF_KV_WINDOW), seg.get(U32, CactFormat.OFF_KV_BITS));
        GeometryRules.Violation v = GeometryRules.check(g);
        if (v != null) throw new FormatException(file, v.headerOffset(), "header geometry: " + v.problem());
        return g;
    }

    /** The used entries of a count + 4-slot header array; unused slots must be zero. */
    private static int[] usedEntries(MemorySegment seg, Path file, int countOffset, int arrayOffset, String what)
            throws FormatException {
        long count = u32(seg, countOffset);
        if (count > 4) throw new FormatException(file, countOffset, "header geometry: " + count + " " + what + ", at most 4 fit the header");
        // _pack_cact pads orders4 / sites4 with zeros
        int[] used = new int[(int) count];
        for (int i = 0; i < 4; i++) {
            int v = seg.get(U32, arrayOffset + 4L * i);
            if (i < count) {
                used[i] = v;
            } else if (v != 0) {
                throw new FormatException(file, arrayOffset + 4L * i, "header geometry: unused " + what + " slot " + i
                        + " holds " + Integer.toUnsignedString(v) + ", must be 0");
            }
        }
        return used;
    }

    /**
     * Reads the probe-head codes: 1 (contrastive) and/or 2 (confidence), in that order, as
     * {@code _head_tensors} writes them (HEAD_CODES order, FP16 vector of H codes).
     */
    private static List<ProbeHead> readManifest(MemorySegment seg, Path file, Geometry g, int heads) throws FormatException {
        int index = (int) CactLayout.coreCount(g);
        long rec = CactFormat.recordOffset(index);
        String name = ModelTensor.HEADS_MANIFEST.single().name();
        CactDType dtype = CactDType.ofCode(seg.get(ValueLayout.JAVA_BYTE, rec) & 0xFF);
        int ndim = seg.get(ValueLayout.JAVA_BYTE, rec + CactFormat.REC_NDIM) & 0xFF;
        if ((dtype != CactDType.FP16 && dtype != CactDType.FP32) || ndim != 1 || u32(seg, rec + CactFormat.REC_SHAPE) != heads) {
            throw new FormatException(file, index, name, rec, "expected an FP16 vector of " + heads
                    + " head codes (dtype code " + (seg.get(ValueLayout.JAVA_BYTE, rec) & 0xFF) + ", ndim " + ndim + ")");
        }
        long offset = seg.get(U64, rec + CactFormat.REC_OFFSET);
        int width = dtype == CactDType.FP16 ? 2 : 4;
        if (offset < 0 || offset > seg.byteSize() - (long) width * heads) {
            throw new FormatException(file, index, name, rec + CactFormat.REC_OFFSET, "blob at " + Long.toUnsignedString(offset)
                    + " runs past the end of the file (" + seg.byteSize() + " bytes)");
        }
        List<ProbeHead> list = new ArrayList<>();
        for (int i = 0; i < heads; i++) {
            double code = width == 2 ? Float.float16ToFloat(seg.get(U16, offset + 2L * i)) : seg.get(F32, offset + 4L * i);
            ProbeHead h = ProbeHead.ofCode(code);
            if (h == null || (!list.isEmpty() && h.ordinal() <= list.getLast().ordinal())) {
                throw new FormatException(file, index, name, offset + (long) width * i, "head code " + code
                        + " is not 1 (contrastive) or 2 (confidence) in increasing order");
            }
            list.add(h);
        }
        return list;
    }

    /** Checks every directory record against the layout, in file order. */
    private static final class DirectoryCheck {
        private final MemorySegment seg;
        private final Path file;
        private final CactLayout layout;
        private final Geometry geometry;
        private final float[] codebook;
        private final int count;
        private final List<TensorRecord> records = new ArrayList<>();
        private int cqGroup;
        private int index;
        private String name;

        DirectoryCheck(MemorySegment seg, Path file, CactLayout layout, Geometry geometry, float[] codebook, int count) {
            this.seg = seg;
            this.file = file;
            this.layout = layout;
            this.geometry = geometry;
            this.codebook = codebook;
            this.count = count;
        }

        Validated run() throws FormatException {
            long end = CactFormat.recordOffset(count);
            for (index = 0; index < count; index++) {
                name = layout.slot(index).name();
                TensorRecord r = record(end);
                end = r.offset() + r.nbytes();
                records.add(r);
            }
            // _pack_cact's buffer ends with the last blob
            if (end != seg.byteSize()) {
                throw new FormatException(file, end, "file has " + (seg.byteSize() - end)
                        + " bytes after the last blob (canonical files end at the last blob)");
            }
            return new Validated(geometry, codebook, layout, records, cqGroup);
        }

        private FormatException fail(long offset, String problem) {
            return new FormatException(file, index, name, offset, problem);
        }

        private TensorRecord record(long previousEnd) throws FormatException {
            long rec = CactFormat.recordOffset(index);
            CactLayout.Slot slot = layout.slot(index);
            int code = seg.get(ValueLayout.JAVA_BYTE, rec) & 0xFF;
            CactDType dtype = CactDType.ofCode(code);
            if (dtype == null) throw fail(rec, "unknown dtype " + code + " (1 FP16, 2 FP32, 3 CQ, 4 RAW)");
            int ndim = seg.get(ValueLayout.JAVA_BYTE, rec + CactFormat.REC_NDIM) & 0xFF;
            // safety (4 shape fields); upstream's deepest tensor is mhc_b_res (L, n, n)
            if (ndim > 4) throw fail(rec + CactFormat.REC_NDIM, "ndim " + ndim + " exceeds the 4 shape fields");
            // _pack_cact writes pad 0 and zero shape fields past ndim (list(shape) + [0, 0, 0, 0])[:4]
            int pad = seg.get(U16, rec + CactFormat.REC_PAD) & 0xFFFF;
            if (pad != 0) throw fail(rec + CactFormat.REC_PAD, "record pad is " + pad + ", must be 0");
            long[] shape = new long[ndim];
            for (int i = 0; i < 4; i++) {
                long dim = u32(seg, rec + CactFormat.REC_SHAPE + 4L * i);
                if (i < ndim) shape[i] = dim;
                else if (dim != 0) throw fail(rec + CactFormat.REC_SHAPE + 4L * i, "unused shape field " + i + " is " + dim + ", must be 0");
            }
            long offset = seg.get(U64, rec + CactFormat.REC_OFFSET);
            long nbytes = seg.get(U64, rec + CactFormat.REC_NBYTES);
            long groupField = u32(seg, rec + CactFormat.REC_GROUP);
            long bitsField = u32(seg, rec + CactFormat.REC_BITS);
            checkQuantFields(rec, dtype, ndim, groupField, bitsField);
            int group = (int) groupField;
            int bits = (int) bitsField;
            long implied = impliedBytes(rec, dtype, shape, group, bits);
            // _tensors: _q (CQ) for every matrix, _fp16 for the rest, RAW tokenizer (FP32 and
            // dense matrices are accepted besides, never written upstream)
            if (!slot.dtypes().contains(dtype)) {
                throw fail(rec, "dtype " + dtype + " is not allowed here (expected " + slot.dtypes() + ")");
            }
            checkShape(rec, slot, shape);
            // safety, and _q's blob is packed codes + norms, _fp16's arr.tobytes()
            if (implied >= 0 && nbytes != implied) {
                throw fail(rec + CactFormat.REC_NBYTES, "nbytes " + Long.toUnsignedString(nbytes) + ", but " + dtype
                        + Arrays.toString(shape) + (dtype == CactDType.CQ ? " at " + bits + " bits, group " + group : "")
                        + " needs " + implied);
            }
            checkPlacement(rec, offset, nbytes, previousEnd);
            return new TensorRecord(index, name, dtype, shape, offset, nbytes, group, bits);
        }

        private void checkQuantFields(long rec, CactDType dtype, int ndim, long group, long bits) throws FormatException {
            if (dtype == CactDType.CQ) {
                // _q packs a 2-D [out, in] matrix; _cq_pack takes bits in CB_BITS or TERNARY_BITS
                // (record 5); build_export uses one group for every tensor and the header codebook
                if (ndim != 2) throw fail(rec + CactFormat.REC_NDIM, "a CQ tensor is a matrix, ndim is " + ndim);
                if (!CqPacking.isSupportedRecordBits(bits)) {
                    throw fail(rec + CactFormat.REC_BITS, "unsupported CQ bits " + bits + " (2, 3, 4, or 5 = ternary)");
                }
                // The workbench's limit: export.main writes group 128 and build_export(group=G) any
                // power of two; the bit-exact dequantizer reproduces numpy's order for 64 and 128.
                if (group != CactFormat.GROUPS[0] && group != CactFormat.GROUPS[1]) {
                    throw fail(rec + CactFormat.REC_GROUP, "unsupported CQ group " + group + " (64 or 128)");
                }
                if (cqGroup == 0) {
                    cqGroup = (int) group;
                } else if (group != cqGroup) {
                    throw fail(rec + CactFormat.REC_GROUP, "CQ group " + group + " differs from the file's group " + cqGroup
                            + " (the header holds one codebook)");
                }
            } else {
                // _Tensor defaults group = bits = 0; the tokenizer's shape is ()
                if (group != 0) throw fail(rec + CactFormat.REC_GROUP, "group " + group + " on a " + dtype + " tensor, must be 0");
                if (bits != 0) throw fail(rec + CactFormat.REC_BITS, "bits " + bits + " on a " + dtype + " tensor, must be 0");
                if (dtype == CactDType.RAW && ndim != 0) throw fail(rec + CactFormat.REC_NDIM, "a RAW blob has ndim 0, not " + ndim);
            }
        }

        private long impliedBytes(long rec, CactDType dtype, long[] shape, int group, int bits) throws FormatException {
            try {
                return TensorBytes.of(dtype, shape, group, bits);
            } catch (ArithmeticException e) {
                throw fail(rec + CactFormat.REC_SHAPE, "shape " + Arrays.toString(shape) + " overflows: its byte size exceeds 2^63");
            }
        }

        /**
         * Probe heads: probes (P, d_model) with P >= 1 (ContrastiveHead.PROBES 4,
         * ConfidenceHead.PROBES 8), proj (out, P * d_model) and bias (out,) where out may be 0
         * (a contrastive head of contrastive_dim 0 is a Dense(0): zero-size, a note).
         */
        private void checkShape(long rec, CactLayout.Slot slot, long[] shape) throws FormatException {
            long[] expected = switch (slot.tensor()) {
                case HEAD_PROBES -> {
                    if (shape.length != 2 || shape[0] < 1) yield new long[] {-1, geometry.dModel()};
                    yield new long[] {shape[0], geometry.dModel()};
                }
                case HEAD_PROJ -> {
                    long probes = records.get(index - 1).dim(0);
                    long out = shape.length == 2 ? shape[0] : -2;
                    yield new long[] {out, probes * geometry.dModel()};
                }
                case HEAD_BIAS -> new long[] {records.get(index - 1).dim(0)};
                default -> slot.shape();
            };
            if (!Arrays.equals(shape, expected)) {
                String want = Arrays.toString(expected).replace("-1", "n>=1").replace("-2", "n>=0");
                throw fail(rec + CactFormat.REC_NDIM, "shape " + Arrays.toString(shape) + ", expected " + want);
            }
        }

        private void checkPlacement(long rec, long offset, long nbytes, long previousEnd) throws FormatException {
            // _pack_cact: each blob at _align(end of the previous), the first after the directory,
            // zero bytes between; bounds and overlap are also the reader's safety
            long at = rec + CactFormat.REC_OFFSET;
            String where = "offset " + Long.toUnsignedString(offset);
            if (offset % CactFormat.ALIGN != 0) throw fail(at, where + " is not 64-byte aligned");
            if (Long.compareUnsigned(offset, seg.byteSize()) > 0) {
                throw fail(at, where + " lies past the end of the file (" + seg.byteSize() + " bytes; truncated?)");
            }
            if (Long.compareUnsigned(offset, previousEnd) < 0) {
                throw fail(at, where + " overlaps the previous " + (index == 0 ? "directory" : "blob") + ", which ends at " + previousEnd);
            }
            long canonical = CactFormat.align(previousEnd);
            if (offset != canonical) {
                throw fail(at, where + " leaves a gap: the canonical layout puts this blob at " + canonical
                        + " (next 64-byte boundary after byte " + previousEnd + ")");
            }
            if (Long.compareUnsigned(nbytes, seg.byteSize() - offset) > 0) {
                throw fail(at, "blob [" + offset + ", +" + Long.toUnsignedString(nbytes) + ") runs past the end of the file ("
                        + seg.byteSize() + " bytes; truncated?)");
            }
            for (long p = previousEnd; p < offset; p++) {
                if (seg.get(ValueLayout.JAVA_BYTE, p) != 0) throw fail(p, "padding byte before the blob is not zero");
            }
        }
    }
}
