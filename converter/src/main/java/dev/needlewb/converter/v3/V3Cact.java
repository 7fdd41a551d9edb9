package dev.needlewb.converter.v3;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.converter.cact.CactBytes;
import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactGeneration;
import dev.needlewb.converter.cact.CactLayout;
import dev.needlewb.converter.cact.CactModel;
import dev.needlewb.converter.cact.CactTensor;
import dev.needlewb.converter.cact.HeaderCodec;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.converter.names.BitsMap;
import dev.needlewb.converter.names.NameMap;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.core.v3.V3Geometry;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Needle 3's {@code .cact} support: the {@code <48If} header, the {@link V3Tensor} table, its permutation check and notes. */
public final class V3Cact implements CactGeneration {
    public static final V3Cact INSTANCE = new V3Cact();

    private V3Cact() {}

    @Override
    public Generation generation() {
        return Generation.NEEDLE3;
    }

    @Override
    public HeaderCodec header() {
        return V3Header.INSTANCE;
    }

    /** Needle 3 has one header layout. */
    @Override
    public HeaderCodec header(int tag, Path file, ModelGeometry supplied) {
        return V3Header.INSTANCE;
    }

    @Override
    public CactLayout layout(ModelGeometry g, long numTensors, CactBytes bytes) throws FormatException {
        return V3Layout.read(V3Geometry.of(g), numTensors, bytes);
    }

    /** The heads are those whose probes the model holds; the tokenizer is there when the last tensor is RAW. */
    @Override
    public CactLayout layout(CactModel model) throws WorkbenchException {
        V3Geometry g = V3Geometry.of(model.geometry());
        List<V3ProbeHead> heads = new ArrayList<>();
        for (V3ProbeHead h : V3ProbeHead.values()) {
            if (model.tensor(V3Tensor.HEAD_PROBES.nameFor(h)) != null) heads.add(h);
        }
        List<CactTensor> ts = model.tensors();
        boolean tokenizer = !ts.isEmpty() && ts.getLast().dtype() == CactDType.RAW;
        CactLayout layout = V3Layout.of(g, heads, tokenizer);
        if (layout.size() != ts.size()) {
            throw new WorkbenchException(ErrorKind.SHAPE_MISMATCH, "cannot write .cact: " + ts.size() + " tensors, but " + g + " with heads " + heads
                    + (tokenizer ? " and a tokenizer" : "") + " has " + layout.size());
        }
        // what the reader refuses is not written: the permutations (the rest of a record the writer checks itself)
        for (HadaPermutations.Gather gather : HadaPermutations.Gather.values()) {
            CactTensor t = model.tensor(gather.tensor);
            if (t.dtype() != CactDType.FP32 || t.data().byteSize() != 4L * g.hadaN()) continue;
            HadaPermutations.Problem p = HadaPermutations.problem(t.data(), g.hadaN());
            if (p != null) throw new WorkbenchException(ErrorKind.BAD_VALUE, "cannot write .cact: tensor " + gather.tensor + ": " + p.text());
        }
        return layout;
    }

    /** hada_p1 and hada_p2 must be permutations of 0..hada_n-1: the engine gathers with them. */
    @Override
    public void checkValues(CactBytes bytes, List<TensorRecord> records) throws FormatException {
        for (TensorRecord r : records) {
            if (HadaPermutations.Gather.named(r.name()) != null) HadaPermutations.check(bytes, r);
        }
    }

    @Override
    public NameMap names(CactFile file) {
        return V3Names.of(file);
    }

    @Override
    public List<String> notes(CactFile file) {
        return V3Notes.of(file);
    }

    /** The v3 exporter's only width: every matrix CQ4 (WEIGHT_BITS, quantize.py:61; _cq_pack refuses others, export.py:185-186). */
    @Override
    public BitsMap defaultBits() {
        return BitsMap.uniform(4);
    }

    /** Upstream's _pack_cact refuses a tokenizer of more pieces than the vocab; fewer is allowed (export.py:402-403). */
    @Override
    public String tokenizerProblem(long pieces, ModelGeometry g) {
        return pieces <= g.vocab() ? null
                : "the tokenizer has " + pieces + " pieces, more than the header's vocab " + g.vocab() + " (export.py:402-403 refuses it)";
    }

    @Override
    public void checkTokenizer(byte[] blob, ModelGeometry g) throws WorkbenchException {
        if (blob.length < 4) throw new WorkbenchException(ErrorKind.BAD_TOKENIZER, "tokenizer blob has " + blob.length + " bytes");
        String problem = tokenizerProblem(ByteBuffer.wrap(blob).order(ByteOrder.LITTLE_ENDIAN).getInt(0) & 0xFFFFFFFFL, g);
        if (problem != null) throw new WorkbenchException(ErrorKind.MODEL_MISMATCH, problem);
    }
}
