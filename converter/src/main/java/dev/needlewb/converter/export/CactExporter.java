package dev.needlewb.converter.export;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactFormat;
import dev.needlewb.converter.cact.CactGenerations;
import dev.needlewb.converter.cact.CactModel;
import dev.needlewb.converter.cact.CactTensor;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.convert.ParallelTensors;
import dev.needlewb.converter.convert.TensorConversion;
import dev.needlewb.converter.cq.CqCodes;
import dev.needlewb.converter.cq.CqPacking;
import dev.needlewb.converter.cq.CqQuantizer;
import dev.needlewb.converter.cq.Fwht;
import dev.needlewb.converter.cq.codebook.Codebooks;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.converter.names.BitsMap;
import dev.needlewb.converter.names.NameMap;
import dev.needlewb.converter.names.NameRow;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * Builds a {@code .cact} from weights as upstream's {@code export.build_export} does: the
 * canonical tensor order of the name map, CQ matrices at the bits map's width in groups of 128
 * or 64 ({@code build_export(group=...)}; header codebook of that group), every other tensor float16 (round to nearest even), a
 * {@code heads.manifest} of the heads present, the contrastive bias as zeros when the source has
 * none, and the tokenizer blob last. Geometry and kv_window come from the name map; the
 * tokenizer rule and (in the writer) the header from the geometry's generation.
 */
public final class CactExporter {
    /** Upstream's CQ group: build_export's default, which export.main never changes. */
    public static final int GROUP = 128;

    /** The model and what happened to each tensor, in file order. */
    public record Result(CactModel model, List<TensorConversion> tensors) {}

    private CactExporter() {}

    /** Export in upstream's default group of 128. */
    public static Result export(ModelWeights w, BitsMap bits, IntConsumer progress) throws WorkbenchException {
        return export(w, bits, GROUP, progress);
    }

    /**
     * @param group the CQ group of every matrix, one of {@code CactFormat.GROUPS}
     * @param progress called with the number of tensors done after each one
     */
    public static Result export(ModelWeights w, BitsMap bits, int group, IntConsumer progress) throws WorkbenchException {
        if (group != CactFormat.GROUPS[0] && group != CactFormat.GROUPS[1]) {
            throw new WorkbenchException(ErrorKind.BAD_OPTION, "CQ group " + group + ": the workbench writes groups " + Arrays.toString(CactFormat.GROUPS));
        }
        NameMap names = w.names();
        ModelGeometry g = names.geometry();
        byte[] tokenizer = w.tokenizer();
        // export.main always passes get_tokenizer(config.vocab_size); only the build_export API
        // writes a file without one, which the reader accepts (a base without one keeps none)
        if (tokenizer == null) throw new WorkbenchException(ErrorKind.BAD_OPTION, "a .cact needs a tokenizer: pass --tokenizer tok.model or FILE.cact");
        CactGenerations.of(g.generation()).checkTokenizer(tokenizer, g);
        List<NameRow> rows = names.cactRows();
        List<Encoded> done = ParallelTensors.map(rows, i -> encode(w, rows.get(i), bits, group, tokenizer), progress);
        List<CactTensor> tensors = new ArrayList<>();
        List<TensorConversion> report = new ArrayList<>();
        for (Encoded e : done) {
            tensors.add(e.tensor());
            report.add(e.conversion());
        }
        return new Result(new CactModel(g, Codebooks.headerCodebook(group), tensors), report);
    }

    /** An encoded tensor and what happened to it. */
    record Encoded(CactTensor tensor, TensorConversion conversion) {}

    /** A blob and how far the values it decodes to are from the source: max abs and RMS. */
    record Blob(byte[] bytes, double maxAbsChange, double rmsChange) {}

    private static Encoded encode(ModelWeights w, NameRow row, BitsMap bits, int group, byte[] tokenizer) throws WorkbenchException {
        long[] shape = longs(row.shape());
        return switch (row.storage()) {
            case RAW -> new Encoded(CactTensor.of(row.name(), CactDType.RAW, new long[0], 0, 0, tokenizer),
                    new TensorConversion(row.name(), row.transform(), "raw", 0, 0, false, 0, 0, -1, -1));
            case CQ -> {
                int b = w.names().recordBits(row, bits);
                float[] source = w.tensor(row).asFloats();
                Blob blob = encodeCq(row.name(), CqQuantizer.of(b, group), source, row.shape()[0], row.shape()[1]);
                yield new Encoded(new CactTensor(row.name(), CactDType.CQ, shape, group, b, MemorySegment.ofArray(blob.bytes())),
                        new TensorConversion(row.name(), row.transform(), TensorConversion.cq(b, group), b, group, false, blob.maxAbsChange(), blob.rmsChange(), -1, -1));
            }
            case FP32 -> {
                Blob blob = encodeFloat(row.name(), w.tensor(row).asFloats());
                yield new Encoded(new CactTensor(row.name(), CactDType.FP32, shape, 0, 0, MemorySegment.ofArray(blob.bytes())),
                        new TensorConversion(row.name(), row.transform(), "fp32", 0, 0, false, 0, 0, -1, -1));
            }
            default -> {
                float[] source = fp16Source(w, row, w.names());
                Blob blob = encodeHalf(row.name(), source);
                yield new Encoded(new CactTensor(row.name(), CactDType.FP16, shape, 0, 0, MemorySegment.ofArray(blob.bytes())),
                        new TensorConversion(row.name(), row.transform(), "fp16", 0, 0, false, blob.maxAbsChange(), blob.rmsChange(), -1, -1));
            }
        };
    }

    /** CQ codes packed row after row, then the float16 norms; the error of the decoded values. */
    static Blob encodeCq(String name, CqQuantizer q, float[] values, int rows, int cols) throws WorkbenchException {
        CqCodes codes = q.quantize(name, values, rows, cols);
        byte[] packed = CqPacking.pack(codes.codes(), q.recordBits());
        ByteBuffer blob = ByteBuffer.allocate(packed.length + codes.norms().length * 2).order(ByteOrder.LITTLE_ENDIAN);
        blob.put(packed);
        blob.asShortBuffer().put(codes.norms());
        double[] error = cqError(codes, q.codebook(), values);
        return new Blob(blob.array(), error[0], error[1]);
    }

    /**
     * Max abs and RMS of decoded minus source values. For the statistics only, so the decode is
     * the float64 FWHT rather than upstream's bit-exact float32 matmul (they differ by float32
     * rounding, far below any quantization error).
     */
    private static double[] cqError(CqCodes c, float[] codebook, float[] source) {
        int group = c.group(), groups = c.groupsPerRow(), inPad = c.inPad(), cols = c.cols();
        byte[] idx = c.codes();
        short[] norms = c.norms();
        double[] buf = new double[group];
        double max = 0, sum = 0;
        for (int r = 0; r < c.rows(); r++) {
            for (int g = 0; g < groups; g++) {
                float norm = Float.float16ToFloat(norms[r * groups + g]);
                int at = r * inPad + g * group;
                for (int k = 0; k < group; k++) buf[k] = codebook[idx[at + k]] * norm;
                Fwht.normalized(buf, 0, group);
                int n = Math.min(group, cols - g * group);
                for (int k = 0; k < n; k++) {
                    double d = buf[k] - source[r * cols + g * group + k];
                    max = Math.max(max, Math.abs(d));
                    sum += d * d;
                }
            }
        }
        return new double[] {max, source.length == 0 ? 0 : Math.sqrt(sum / source.length)};
    }

    /**
     * Float16 bits (round to nearest even), as {@code np.asarray(arr, np.float16)}. Non-finite
     * weights and float16 overflow are refused: upstream would write them silently (NaN, or inf
     * past 65504), which no trained model holds; the workbench names the tensor instead.
     */
    static Blob encodeHalf(String name, float[] values) throws WorkbenchException {
        ByteBuffer blob = ByteBuffer.allocate(values.length * 2).order(ByteOrder.LITTLE_ENDIAN);
        float[] decoded = new float[values.length];
        for (int i = 0; i < values.length; i++) {
            if (!Float.isFinite(values[i])) throw new WorkbenchException(ErrorKind.NON_FINITE, "tensor " + name + ": element " + i + " is " + values[i]);
            short h = Float.floatToFloat16(values[i]);
            if (Float.isInfinite(Float.float16ToFloat(h))) {
                throw new WorkbenchException(ErrorKind.NON_FINITE, "tensor " + name + ": element " + i + " (" + values[i] + ") overflows float16");
            }
            blob.putShort(h);
            decoded[i] = Float.float16ToFloat(h);
        }
        double[] diff = TensorConversion.difference(decoded, values);
        return new Blob(blob.array(), diff[0], diff[1]);
    }

    /** Float32 as is (Needle 3's permutations); non-finite values are refused as for float16. */
    static Blob encodeFloat(String name, float[] values) throws WorkbenchException {
        for (int k = 0; k < values.length; k++) {
            if (!Float.isFinite(values[k])) throw new WorkbenchException(ErrorKind.NON_FINITE, "tensor " + name + ": element " + k + " is " + values[k]);
        }
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(values);
        return new Blob(b.array(), 0, 0);
    }

    private static float[] fp16Source(ModelWeights w, NameRow row, NameMap names) {
        return switch (row.transform()) {
            case DERIVED -> {
                int[] manifest = names.manifestCodes();
                float[] codes = new float[manifest.length];
                for (int i = 0; i < codes.length; i++) codes[i] = manifest[i];
                yield codes;
            }
            case ZERO_FILL -> {
                NpyArray a = w.tensor(row);
                yield a == null ? new float[row.shape()[0]] : a.asFloats();
            }
            default -> w.tensor(row).asFloats();
        };
    }

    static long[] longs(int[] shape) {
        long[] out = new long[shape.length];
        for (int i = 0; i < shape.length; i++) out[i] = shape[i];
        return out;
    }
}
