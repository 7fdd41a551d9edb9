package dev.needlewb.converter.export;

import dev.needlewb.converter.WorkbenchException;
import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactModel;
import dev.needlewb.converter.cact.CactTensor;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.convert.TensorConversion;
import dev.needlewb.converter.cq.CqBlob;
import dev.needlewb.converter.cq.CqCodes;
import dev.needlewb.converter.cq.CqDequantizer;
import dev.needlewb.converter.cq.CqPacking;
import dev.needlewb.converter.cq.CqQuantizer;
import dev.needlewb.converter.cq.InvalidCodeException;
import dev.needlewb.converter.cq.codebook.Codebooks;
import dev.needlewb.converter.io.NpyArray;
import dev.needlewb.converter.model.Geometry;
import dev.needlewb.converter.names.BitsMap;
import dev.needlewb.converter.names.NameMap;
import dev.needlewb.converter.names.NameRow;
import dev.needlewb.converter.names.Storage;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;

/**
 * Builds a {@code .cact} from weights as upstream's {@code export.build_export} does: the
 * canonical tensor order of the name map, CQ matrices at the bits map's width in groups of 128
 * (header codebook of that group), every other tensor float16 (round to nearest even), a
 * {@code heads.manifest} of the heads present, the contrastive bias as zeros when the source has
 * none, and the tokenizer blob last. Geometry and kv_window come from the name map.
 */
public final class CactExporter {
    /** Upstream's CQ group. */
    public static final int GROUP = 128;

    /** The model and what happened to each tensor, in file order. */
    public record Result(CactModel model, List<TensorConversion> tensors) {}

    private CactExporter() {}

    /** @param progress called with the number of tensors done after each one */
    public static Result export(ModelWeights w, BitsMap bits, IntConsumer progress) throws WorkbenchException {
        NameMap names = w.names();
        Geometry g = names.geometry();
        byte[] tokenizer = w.tokenizer();
        if (tokenizer == null) throw new WorkbenchException("a .cact needs a tokenizer: pass --tokenizer tok.model or FILE.cact");
        checkTokenizer(tokenizer, g);
        Map<Integer, CqQuantizer> quantizers = new HashMap<>();
        List<CactTensor> tensors = new ArrayList<>();
        List<TensorConversion> report = new ArrayList<>();
        List<NameRow> rows = names.cactRows();
        for (NameRow row : rows) {
            long[] shape = longs(row.shape());
            switch (row.storage()) {
                case RAW -> {
                    tensors.add(CactTensor.of(row.name(), CactDType.RAW, new long[0], 0, 0, tokenizer));
                    report.add(new TensorConversion(row.name(), row.transform(), Storage.RAW, 0, 0, false, 0, 0, -1, -1));
                }
                case CQ -> {
                    int b = bits.recordBitsFor(row.name());
                    CqQuantizer q = quantizers.computeIfAbsent(b, k -> CqQuantizer.of(k, GROUP));
                    float[] source = w.tensor(row).asFloats();
                    Encoded e = encodeCq(row.name(), q, source, row.shape()[0], row.shape()[1]);
                    tensors.add(new CactTensor(row.name(), CactDType.CQ, shape, GROUP, b, MemorySegment.ofArray(e.blob())));
                    double[] diff = TensorConversion.difference(e.values(), source);
                    report.add(new TensorConversion(row.name(), row.transform(), Storage.CQ, b, GROUP, false, diff[0], diff[1], -1, -1));
                }
                default -> {
                    float[] source = fp16Source(w, row, names);
                    Encoded e = encodeHalf(row.name(), source);
                    tensors.add(new CactTensor(row.name(), CactDType.FP16, shape, 0, 0, MemorySegment.ofArray(e.blob())));
                    double[] diff = TensorConversion.difference(e.values(), source);
                    report.add(new TensorConversion(row.name(), row.transform(), Storage.FP16, 0, 0, false, diff[0], diff[1], -1, -1));
                }
            }
            progress.accept(tensors.size());
        }
        return new Result(new CactModel(g, Codebooks.headerCodebook(GROUP), tensors), report);
    }

    /** An encoded blob and the values it decodes to. */
    record Encoded(byte[] blob, float[] values) {}

    /** CQ codes packed row after row, then the float16 norms; and the dequantized values. */
    static Encoded encodeCq(String name, CqQuantizer q, float[] values, int rows, int cols) throws WorkbenchException {
        CqCodes codes = q.quantize(name, values, rows, cols);
        byte[] packed = CqPacking.pack(codes.codes(), q.recordBits());
        ByteBuffer blob = ByteBuffer.allocate(packed.length + codes.norms().length * 2).order(ByteOrder.LITTLE_ENDIAN);
        blob.put(packed);
        blob.asShortBuffer().put(codes.norms());
        byte[] bytes = blob.array();
        try {
            float[] deq = CqDequantizer.dequantize(new CqBlob(rows, cols, q.group(), q.recordBits(), MemorySegment.ofArray(bytes)), q.codebook());
            return new Encoded(bytes, deq);
        } catch (InvalidCodeException e) {
            throw new IllegalStateException("the quantizer wrote an invalid code into " + name, e);
        }
    }

    /** Float16 bits (round to nearest even); non-finite weights are refused. */
    static Encoded encodeHalf(String name, float[] values) throws WorkbenchException {
        ByteBuffer blob = ByteBuffer.allocate(values.length * 2).order(ByteOrder.LITTLE_ENDIAN);
        float[] decoded = new float[values.length];
        for (int i = 0; i < values.length; i++) {
            if (!Float.isFinite(values[i])) throw new WorkbenchException("tensor " + name + ": element " + i + " is " + values[i]);
            short h = Float.floatToFloat16(values[i]);
            if (Float.isInfinite(Float.float16ToFloat(h))) {
                throw new WorkbenchException("tensor " + name + ": element " + i + " (" + values[i] + ") overflows float16");
            }
            blob.putShort(h);
            decoded[i] = Float.float16ToFloat(h);
        }
        return new Encoded(blob.array(), decoded);
    }

    private static float[] fp16Source(ModelWeights w, NameRow row, NameMap names) {
        return switch (row.transform()) {
            case DERIVED -> {
                float[] codes = new float[names.heads().size()];
                for (int i = 0; i < codes.length; i++) codes[i] = names.heads().get(i).head().code();
                yield codes;
            }
            case ZERO_FILL -> {
                NpyArray a = w.tensor(row);
                yield a == null ? new float[row.shape()[0]] : a.asFloats();
            }
            default -> w.tensor(row).asFloats();
        };
    }

    /** Upstream refuses a tokenizer whose vocabulary differs from the config's. */
    private static void checkTokenizer(byte[] blob, Geometry g) throws WorkbenchException {
        if (blob.length < 4) throw new WorkbenchException("tokenizer blob has " + blob.length + " bytes");
        long pieces = ByteBuffer.wrap(blob).order(ByteOrder.LITTLE_ENDIAN).getInt(0) & 0xFFFFFFFFL;
        if (pieces != g.vocab()) throw new WorkbenchException("tokenizer vocab " + pieces + " != model vocab " + g.vocab());
    }

    static long[] longs(int[] shape) {
        long[] out = new long[shape.length];
        for (int i = 0; i < shape.length; i++) out[i] = shape[i];
        return out;
    }
}
