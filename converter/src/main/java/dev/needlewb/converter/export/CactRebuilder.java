package dev.needlewb.converter.export;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactModel;
import dev.needlewb.converter.cact.CactTensor;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.converter.convert.Floats;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.convert.ParallelTensors;
import dev.needlewb.converter.convert.TensorConversion;
import dev.needlewb.converter.cq.CqBlob;
import dev.needlewb.converter.cq.CqPacking;
import dev.needlewb.converter.cq.CqQuantizer;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.converter.names.NameRow;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * Writes weights back into the layout of a base {@code .cact}: the header, codebook, tokenizer
 * and manifest come from the base; a tensor whose values equal the base's dequantized values bit
 * for bit keeps the base's blob bytes; any other tensor is re-quantized at the base record's
 * width and group (CQ) or re-encoded in the base's dtype. An unedited round trip therefore
 * reproduces the base byte for byte, and re-quantization happens only where something changed
 * (CQ is not idempotent, so re-quantizing unchanged values could move codes).
 */
public final class CactRebuilder {
    private CactRebuilder() {}

    /** @param w weights read against {@code WeightSources.namesOf(base)} */
    public static CactExporter.Result rebuild(ModelWeights w, CactFile base, IntConsumer progress) throws WorkbenchException {
        ModelGeometry g = base.geometry();
        if (!w.names().geometry().equals(g)) {
            throw new WorkbenchException(ErrorKind.MODEL_MISMATCH, "the weights' geometry differs from the base " + base.path());
        }
        List<NameRow> rows = w.names().cactRows();
        if (rows.size() != base.numTensors()) {
            throw new WorkbenchException(ErrorKind.MODEL_MISMATCH, "the weights have " + rows.size() + " .cact tensors, the base " + base.path() + " has " + base.numTensors());
        }
        List<CactExporter.Encoded> done = ParallelTensors.map(rows, i -> rebuild(w, rows.get(i), base, i), progress);
        List<CactTensor> tensors = new ArrayList<>();
        List<TensorConversion> report = new ArrayList<>();
        for (CactExporter.Encoded d : done) {
            tensors.add(d.tensor());
            report.add(d.conversion());
        }
        return new CactExporter.Result(new CactModel(g, base.codebook(), tensors), report);
    }

    /** Tensor {@code i}: the base's blob if the values are unchanged, else re-encoded. */
    private static CactExporter.Encoded rebuild(ModelWeights w, NameRow row, CactFile base, int i) throws WorkbenchException {
        TensorRecord r = base.tensor(i);
        MemorySegment blob = base.blob(i);
        CactTensor kept = new CactTensor(r.name(), r.dtype(), r.shape(), r.group(), r.bits(), blob);
        if (!row.isWeight()) {
            return new CactExporter.Encoded(kept, new TensorConversion(row.name(), row.transform(), quantization(r), r.bits(), r.group(), true, 0, 0, 0, 0));
        }
        float[] baseValues = base.dequantize(i);
        NpyArray incoming = w.tensor(row);
        float[] values = incoming == null ? new float[baseValues.length] : incoming.asFloats();
        if (Floats.sameBits(values, baseValues)) {
            return new CactExporter.Encoded(kept, new TensorConversion(row.name(), row.transform(), quantization(r), r.bits(), r.group(), true, 0, 0, 0, 0));
        }
        CactExporter.Blob e = encode(r, values);
        long[] changed = r.dtype() == CactDType.CQ ? cqChanges(r, blob, e.bytes()) : new long[] {0, 0};
        return new CactExporter.Encoded(new CactTensor(r.name(), r.dtype(), r.shape(), r.group(), r.bits(), MemorySegment.ofArray(e.bytes())),
                new TensorConversion(row.name(), row.transform(), quantization(r), r.bits(), r.group(), false, e.maxAbsChange(), e.rmsChange(), changed[0], changed[1]));
    }

    private static CactExporter.Blob encode(TensorRecord r, float[] values) throws WorkbenchException {
        return switch (r.dtype()) {
            case CQ -> CactExporter.encodeCq(r.name(), CqQuantizer.of(r.bits(), r.group()), values, (int) r.dim(0), (int) r.dim(1));
            case FP16 -> CactExporter.encodeHalf(r.name(), values);
            case FP32 -> CactExporter.encodeFloat(r.name(), values);
            case RAW -> throw new IllegalStateException("RAW tensors carry no weights");
        };
    }

    /** Codes and group norms that differ between two CQ blobs of record {@code r}. */
    private static long[] cqChanges(TensorRecord r, MemorySegment before, byte[] after) {
        long rows = r.dim(0);
        long inPad = CqBlob.paddedCols(r.dim(1), r.group());
        int width = CqPacking.storedWidth(r.bits());
        long codeBytes = rows * inPad * width / 8;
        MemorySegment a = MemorySegment.ofArray(after);
        long codes = 0;
        long mask = (1L << width) - 1;
        for (long k = 0; k < rows * inPad; k++) {
            long bit = k * width;
            if ((bitsAt(before, bit) & mask) != (bitsAt(a, bit) & mask)) codes++;
        }
        long norms = 0;
        for (long o = codeBytes; o < r.nbytes(); o += 2) {
            if (before.get(ValueLayout.JAVA_SHORT_UNALIGNED, o) != a.get(ValueLayout.JAVA_SHORT_UNALIGNED, o)) norms++;
        }
        return new long[] {codes, norms};
    }

    /** The (up to 9) bits starting at bit {@code bit} of an LSB-first stream. */
    private static int bitsAt(MemorySegment s, long bit) {
        long at = bit >>> 3;
        int lo = s.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
        int hi = at + 1 < s.byteSize() ? s.get(ValueLayout.JAVA_BYTE, at + 1) & 0xFF : 0;
        return ((hi << 8) | lo) >>> (bit & 7);
    }

    private static String quantization(TensorRecord r) {
        return r.dtype() == CactDType.CQ ? TensorConversion.cq(r.bits(), r.group()) : r.dtype().name().toLowerCase(java.util.Locale.ROOT);
    }
}
