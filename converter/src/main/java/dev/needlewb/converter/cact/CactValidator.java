package dev.needlewb.converter.cact;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.converter.cq.CqCodebooks;
import dev.needlewb.converter.cq.CqPacking;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Checks a whole {@code .cact} before any tensor data is read, and requires the canonical layout
 * upstream writes: each blob at the next 64-byte boundary after the previous one (the first after
 * the directory), zero padding between, the file ending at the last blob, unused shape fields and
 * the record pad zero, group and bits 0 except for CQ. That is what makes a file rewrite byte for
 * byte. Every problem is a {@link FormatException} naming the file, tensor and byte offset.
 *
 * <p>The tag picks the generation ({@link CactGenerations}); its {@link HeaderCodec} decodes and
 * checks the geometry and its {@link CactGeneration#layout} says which tensor each record must be.
 * The rules here are the container's, the same for every generation: each either protects the
 * reader (bounds, overflow, alignment, sizes) or is a fact of upstream's {@code export._pack_cact},
 * named where it is made. What upstream writes but is unusual is not refused: see {@link CactNotes}.
 */
public final class CactValidator {
    /** A tag is the least a file must hold to be read at all. */
    private static final int TAG_BYTES = 4;

    /** A validated file: its generation's support, geometry, codebook, layout and records. */
    public record Validated(CactGeneration generation, ModelGeometry geometry, float[] codebook, CactLayout layout,
            List<TensorRecord> records, int cqGroup) {}

    private CactValidator() {}

    /** Validates the {@code .cact} in {@code seg}; {@code file} is the name errors cite (may be null). */
    public static Validated validate(MemorySegment seg, Path file) throws FormatException {
        return validate(seg, file, null);
    }

    /**
     * The same, with the geometry of a header that stores none ({@link CactGeneration#header(int, Path, ModelGeometry)};
     * null when the user gave none).
     */
    public static Validated validate(MemorySegment seg, Path file, ModelGeometry supplied) throws FormatException {
        long length = seg.byteSize();
        // safety: the tag decides which header follows
        if (length < TAG_BYTES) {
            throw new FormatException(ErrorKind.TRUNCATED, file, length, "file is " + length + " bytes, shorter than the " + TAG_BYTES
                    + "-byte .cact tag (truncated?)");
        }
        CactBytes b = new CactBytes(seg, file, 0);
        // _pack_cact writes its TAG; read_export asserts it
        int tag = b.i32(CactFormat.OFF_TAG);
        CactGeneration generation = CactGenerations.ofTag(tag, file);
        HeaderCodec codec = generation.header(tag, file, supplied);
        int headerBytes = codec.headerBytes();
        b = new CactBytes(seg, file, headerBytes);
        // safety: the fixed header must be there before any field is read
        if (length < headerBytes) {
            throw new FormatException(ErrorKind.TRUNCATED, file, length, "file is " + length + " bytes, shorter than the "
                    + headerBytes + "-byte header (truncated?)");
        }
        // _pack_cact concatenates _cq_codebook_np(b, group) for CB_BITS = (2, 3, 4): 4 + 8 + 16 floats
        long codebookLen = b.u32(CactFormat.OFF_CODEBOOK_LEN);
        if (codebookLen != CqCodebooks.HEADER_LENGTH) {
            throw new FormatException(ErrorKind.BAD_HEADER_FIELD, file, CactFormat.OFF_CODEBOOK_LEN, "codebook_len " + codebookLen
                    + " must be " + CqCodebooks.HEADER_LENGTH + " (cb2[4] | cb3[8] | cb4[16])");
        }
        long numTensors = b.u32(CactFormat.OFF_NUM_TENSORS);
        // safety: the directory must lie inside the file before a record is read
        long directoryEnd = b.recordOffset(numTensors);
        if (directoryEnd > length) {
            throw new FormatException(ErrorKind.BAD_HEADER_FIELD, file, CactFormat.OFF_NUM_TENSORS, "num_tensors " + numTensors + " needs a directory up to byte "
                    + directoryEnd + " but the file has " + length + " bytes");
        }
        ModelGeometry geometry = codec.read(seg, file);
        float[] codebook = new float[CqCodebooks.HEADER_LENGTH];
        for (int i = 0; i < codebook.length; i++) {
            long at = headerBytes + 4L * i;
            codebook[i] = b.f32(at);
            // Lloyd-Max centres are means of normal samples over sqrt(group): always finite
            if (!Float.isFinite(codebook[i])) throw new FormatException(ErrorKind.NON_FINITE, file, at, "codebook entry " + i + " is " + codebook[i]);
        }
        CactLayout layout = generation.layout(geometry, numTensors, b);
        DirectoryCheck directory = new DirectoryCheck(b, layout, (int) numTensors);
        List<TensorRecord> records = directory.run();
        generation.checkValues(b, records);
        return new Validated(generation, geometry, codebook, layout, records, directory.cqGroup);
    }

    /** Checks every directory record against the layout, in file order. */
    private static final class DirectoryCheck {
        private final CactBytes b;
        private final CactLayout layout;
        private final int count;
        private final List<TensorRecord> records = new ArrayList<>();
        private int cqGroup;
        private int index;
        private String name;

        DirectoryCheck(CactBytes b, CactLayout layout, int count) {
            this.b = b;
            this.layout = layout;
            this.count = count;
        }

        List<TensorRecord> run() throws FormatException {
            long end = b.recordOffset(count);
            for (index = 0; index < count; index++) {
                name = layout.slot(index).name();
                TensorRecord r = record(end);
                end = r.offset() + r.nbytes();
                records.add(r);
            }
            // _pack_cact's buffer ends with the last blob
            if (end != b.length()) {
                throw new FormatException(ErrorKind.TRAILING_BYTES, b.file(), end, "file has " + (b.length() - end)
                        + " bytes after the last blob (canonical files end at the last blob)");
            }
            return records;
        }

        private FormatException fail(ErrorKind kind, long offset, String problem) {
            return new FormatException(kind, b.file(), index, name, offset, problem);
        }

        private TensorRecord record(long previousEnd) throws FormatException {
            long rec = b.recordOffset(index);
            CactLayout.Slot slot = layout.slot(index);
            int code = b.u8(rec + CactFormat.REC_DTYPE);
            CactDType dtype = CactDType.ofCode(code);
            if (dtype == null) throw fail(ErrorKind.UNSUPPORTED_DTYPE, rec, "unknown dtype " + code + " (1 FP16, 2 FP32, 3 CQ, 4 RAW)");
            int ndim = b.u8(rec + CactFormat.REC_NDIM);
            // safety (4 shape fields); upstream's deepest tensor is mhc_b_res (L, n, n)
            if (ndim > 4) throw fail(ErrorKind.BAD_HEADER_FIELD, rec + CactFormat.REC_NDIM, "ndim " + ndim + " exceeds the 4 shape fields");
            // _pack_cact writes pad 0 and zero shape fields past ndim (list(shape) + [0, 0, 0, 0])[:4]
            int pad = b.u16(rec + CactFormat.REC_PAD);
            if (pad != 0) throw fail(ErrorKind.NONZERO_RESERVED, rec + CactFormat.REC_PAD, "record pad is " + pad + ", must be 0");
            long[] shape = new long[ndim];
            for (int i = 0; i < 4; i++) {
                long dim = b.u32(rec + CactFormat.REC_SHAPE + 4L * i);
                if (i < ndim) shape[i] = dim;
                else if (dim != 0) throw fail(ErrorKind.NONZERO_RESERVED, rec + CactFormat.REC_SHAPE + 4L * i, "unused shape field " + i + " is " + dim + ", must be 0");
            }
            long offset = b.i64(rec + CactFormat.REC_OFFSET);
            long nbytes = b.i64(rec + CactFormat.REC_NBYTES);
            long groupField = b.u32(rec + CactFormat.REC_GROUP);
            long bitsField = b.u32(rec + CactFormat.REC_BITS);
            checkQuantFields(rec, dtype, ndim, groupField, bitsField);
            int group = (int) groupField;
            int bits = (int) bitsField;
            long implied = impliedBytes(rec, dtype, shape, group, bits);
            // _tensors: _q (CQ) for every matrix, _fp16 for the rest, RAW tokenizer (FP32 and
            // dense matrices are accepted besides, never written upstream)
            if (!slot.dtypes().contains(dtype)) {
                throw fail(ErrorKind.UNSUPPORTED_DTYPE, rec, "dtype " + dtype + " is not allowed here (expected " + slot.dtypes() + ")");
            }
            checkShape(rec, slot, shape);
            // safety, and _q's blob is packed codes + norms, _fp16's arr.tobytes()
            if (implied >= 0 && nbytes != implied) {
                throw fail(ErrorKind.SHAPE_MISMATCH, rec + CactFormat.REC_NBYTES, "nbytes " + Long.toUnsignedString(nbytes) + ", but " + dtype
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
                if (ndim != 2) throw fail(ErrorKind.SHAPE_MISMATCH, rec + CactFormat.REC_NDIM, "a CQ tensor is a matrix, ndim is " + ndim);
                if (!CqPacking.isSupportedRecordBits(bits)) {
                    throw fail(ErrorKind.BAD_HEADER_FIELD, rec + CactFormat.REC_BITS, "unsupported CQ bits " + bits + " (2, 3, 4, or 5 = ternary)");
                }
                // The workbench's limit: export.main writes group 128 and build_export(group=G) any
                // power of two; the bit-exact dequantizer reproduces numpy's order for 64 and 128.
                if (group != CactFormat.GROUPS[0] && group != CactFormat.GROUPS[1]) {
                    throw fail(ErrorKind.BAD_HEADER_FIELD, rec + CactFormat.REC_GROUP, "unsupported CQ group " + group + " (64 or 128)");
                }
                if (cqGroup == 0) {
                    cqGroup = (int) group;
                } else if (group != cqGroup) {
                    throw fail(ErrorKind.BAD_HEADER_FIELD, rec + CactFormat.REC_GROUP, "CQ group " + group + " differs from the file's group " + cqGroup
                            + " (the header holds one codebook)");
                }
            } else {
                // _Tensor defaults group = bits = 0; the tokenizer's shape is ()
                if (group != 0) throw fail(ErrorKind.BAD_HEADER_FIELD, rec + CactFormat.REC_GROUP, "group " + group + " on a " + dtype + " tensor, must be 0");
                if (bits != 0) throw fail(ErrorKind.BAD_HEADER_FIELD, rec + CactFormat.REC_BITS, "bits " + bits + " on a " + dtype + " tensor, must be 0");
                if (dtype == CactDType.RAW && ndim != 0) throw fail(ErrorKind.SHAPE_MISMATCH, rec + CactFormat.REC_NDIM, "a RAW blob has ndim 0, not " + ndim);
            }
        }

        private long impliedBytes(long rec, CactDType dtype, long[] shape, int group, int bits) throws FormatException {
            try {
                return TensorBytes.of(dtype, shape, group, bits);
            } catch (ArithmeticException e) {
                throw fail(ErrorKind.TOO_LARGE, rec + CactFormat.REC_SHAPE, "shape " + Arrays.toString(shape) + " overflows: its byte size exceeds 2^63");
            }
        }

        /** The slot's shape: fixed by the geometry, or (probe heads) by its rule over the records before it. */
        private void checkShape(long rec, CactLayout.Slot slot, long[] shape) throws FormatException {
            long[] expected = slot.expected(shape, records);
            if (!Arrays.equals(shape, expected)) {
                String want = Arrays.toString(expected).replace("-1", "n>=1").replace("-2", "n>=0");
                throw fail(ErrorKind.SHAPE_MISMATCH, rec + CactFormat.REC_NDIM, "shape " + Arrays.toString(shape) + ", expected " + want);
            }
        }

        private void checkPlacement(long rec, long offset, long nbytes, long previousEnd) throws FormatException {
            // _pack_cact: each blob at _align(end of the previous), the first after the directory,
            // zero bytes between; bounds and overlap are also the reader's safety
            long at = rec + CactFormat.REC_OFFSET;
            String where = "offset " + Long.toUnsignedString(offset);
            if (offset % CactFormat.ALIGN != 0) throw fail(ErrorKind.MISALIGNED, at, where + " is not 64-byte aligned");
            if (Long.compareUnsigned(offset, b.length()) > 0) {
                throw fail(ErrorKind.BAD_OFFSET, at, where + " lies past the end of the file (" + b.length() + " bytes; truncated?)");
            }
            if (Long.compareUnsigned(offset, previousEnd) < 0) {
                throw fail(ErrorKind.OVERLAP, at, where + " overlaps the previous " + (index == 0 ? "directory" : "blob") + ", which ends at " + previousEnd);
            }
            long canonical = CactFormat.align(previousEnd);
            if (offset != canonical) {
                throw fail(ErrorKind.BAD_OFFSET, at, where + " leaves a gap: the canonical layout puts this blob at " + canonical
                        + " (next 64-byte boundary after byte " + previousEnd + ")");
            }
            if (Long.compareUnsigned(nbytes, b.length() - offset) > 0) {
                throw fail(ErrorKind.TRUNCATED, at, "blob [" + offset + ", +" + Long.toUnsignedString(nbytes) + ") runs past the end of the file ("
                        + b.length() + " bytes; truncated?)");
            }
            for (long p = previousEnd; p < offset; p++) {
                if (b.u8(p) != 0) throw fail(ErrorKind.NONZERO_RESERVED, p, "padding byte before the blob is not zero");
            }
        }
    }
}
