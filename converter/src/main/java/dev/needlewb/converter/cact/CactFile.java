package dev.needlewb.converter.cact;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cq.CqBlob;
import dev.needlewb.converter.cq.CqCodebooks;
import dev.needlewb.converter.cq.CqDequantizer;
import dev.needlewb.converter.cq.CqPacking;
import dev.needlewb.converter.cq.InvalidCodeException;
import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.core.io.FileSnapshot;
import dev.needlewb.core.tokenizer.TokenizerVocab;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * A validated {@code .cact} of any generation the workbench reads, copied into memory
 * ({@link FileSnapshot}; or over caller-owned bytes): its geometry, codebook, directory and
 * tensor data. The copy, not a mapping, is what lets a file be replaced or truncated while a run
 * uses it (docs/reliability.md gives the choice and its cost). Opening runs the
 * {@link CactValidator} over the whole header, codebook and directory before any tensor data is
 * read, so {@link CactModel#from} + {@link CactWriter} reproduce a file byte for byte. Every
 * problem is a {@link FormatException} naming the file, tensor and byte offset.
 */
public final class CactFile implements AutoCloseable {
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Path path;
    private final FileSnapshot snapshot;
    private final MemorySegment bytes;
    private final CactGeneration generation;
    private final ModelGeometry geometry;
    private final float[] codebook;
    private final List<TensorRecord> tensors;
    private final CactLayout layout;
    private final int cqGroup;

    private CactFile(Path path, FileSnapshot snapshot, MemorySegment bytes, CactValidator.Validated v) {
        this.path = path;
        this.snapshot = snapshot;
        this.bytes = bytes;
        this.generation = v.generation();
        this.geometry = v.geometry();
        this.codebook = v.codebook();
        this.tensors = List.copyOf(v.records());
        this.layout = v.layout();
        this.cqGroup = v.cqGroup();
    }

    /**
     * Reads {@code file} into memory and validates it, refusing non-finite weights; close the
     * result to free the copy.
     */
    public static CactFile open(Path file) throws WorkbenchException {
        return open(file, NonFinitePolicy.REFUSE);
    }

    /**
     * Reads {@code file} into memory and validates it; with {@link NonFinitePolicy#REFUSE} a NaN
     * or infinity in an FP16/FP32 tensor or a CQ group norm is refused, naming the first tensor
     * and the float's byte offset. Close the result to free the copy.
     */
    public static CactFile open(Path file, NonFinitePolicy policy) throws WorkbenchException {
        return open(file, policy, null);
    }

    /**
     * The same for a file whose header may store no geometry (Needle 2's legacy 0x05E12A82
     * header): {@code supplied} gives it (null: such a file is refused at byte 0).
     */
    public static CactFile open(Path file, NonFinitePolicy policy, ModelGeometry supplied) throws WorkbenchException {
        FileSnapshot snapshot = FileSnapshot.read(file);
        try {
            CactFile cact = new CactFile(file, snapshot, snapshot.bytes(), CactValidator.validate(snapshot.bytes(), file, supplied));
            if (policy == NonFinitePolicy.REFUSE) refuseNonFinite(cact);
            return cact;
        } catch (FormatException | RuntimeException e) {
            snapshot.close();
            throw e;
        }
    }

    private static void refuseNonFinite(CactFile cact) throws FormatException {
        List<NonFiniteTensor> found = cact.nonFinite();
        if (found.isEmpty()) return;
        NonFiniteTensor first = found.getFirst();
        String more = found.size() == 1 ? "" : "; " + (found.size() - 1) + " more tensor" + (found.size() == 2 ? "" : "s") + " (needle-wb inspect lists them)";
        throw new FormatException(ErrorKind.NON_FINITE, cact.path, first.index(), first.name(), first.firstOffset(), first.describe() + more + "; "
                + NonFinitePolicy.OVERRIDE_HINT);
    }

    /** The tensors whose stored floats (values, CQ group norms) hold NaN or infinity, in directory order. */
    public List<NonFiniteTensor> nonFinite() {
        return NonFiniteTensor.of(this);
    }

    /**
     * Validates a {@code .cact} held in {@code bytes} (not copied; the caller keeps it alive).
     *
     * @param nameForMessages the file name errors cite (may be null)
     */
    public static CactFile parse(MemorySegment bytes, Path nameForMessages) throws FormatException {
        return new CactFile(nameForMessages, null, bytes, CactValidator.validate(bytes, nameForMessages));
    }

    public Path path() {
        return path;
    }

    /** Whether the file starts with its generation's older header (Needle 2's 0x05E12A82, geometry given by the user). */
    public boolean hasLegacyHeader() {
        return generation.generation().isLegacyTag(bytes.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), CactFormat.OFF_TAG));
    }

    /** What this file's generation supplies: its header codec, layout, names and notes. */
    public CactGeneration generation() {
        return generation;
    }

    /** The header geometry, of the file's generation's own type. */
    public ModelGeometry geometry() {
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

    /** The canonical layout this file follows (its generation's, for its geometry and optional parts). */
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
     * The RAW tokenizer, parsed and checked (null if the file has none): every count and length
     * inside the blob, and its piece count against the header's vocab as upstream's
     * {@code _pack_cact} of the file's generation requires (a longer vocabulary would encode ids
     * past the embedding).
     */
    public TokenizerVocab tokenizerVocab() throws FormatException {
        if (!hasTokenizer()) return null;
        TensorRecord r = tensors.getLast();
        TokenizerVocab vocab = TokenizerVocab.parse(blob(r.index()), path, r.index(), r.offset());
        String problem = generation.tokenizerProblem(vocab.size(), geometry);
        if (problem != null) throw fail(ErrorKind.MODEL_MISMATCH, r.index(), r.name(), r.offset(), problem);
        return vocab;
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
            throw fail(ErrorKind.TOO_LARGE, index, r.name(), r.offset(), r.elementCount() + " values do not fit one Java array");
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
                    throw fail(ErrorKind.BAD_CODE, index, r.name(), r.offset() + e.byteOffset(), e.getMessage());
                }
            }
            case RAW -> throw new IllegalArgumentException("tensor " + index + " (" + r.name() + ") is RAW: use tokenizerBlob()");
        };
    }

    private FormatException fail(ErrorKind kind, int index, String name, long offset, String problem) {
        return new FormatException(kind, path, index, name, offset, problem);
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

    /** Frees the copy (no-op for {@link #parse}d bytes). Views obtained earlier become invalid. */
    @Override
    public void close() {
        if (snapshot != null) snapshot.close();
    }
}
