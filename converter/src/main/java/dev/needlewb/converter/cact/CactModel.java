package dev.needlewb.converter.cact;

import dev.needlewb.converter.cq.CqCodebooks;
import dev.needlewb.core.generation.ModelGeometry;
import java.util.ArrayList;
import java.util.List;

/**
 * An in-memory {@code .cact}: geometry of its generation (with kv_window, kv_bits), the 28 header codebook floats
 * and the tensors in canonical order. {@link CactWriter} turns it into the canonical byte layout.
 */
public record CactModel(ModelGeometry geometry, float[] codebook, List<CactTensor> tensors) {

    public CactModel {
        if (codebook.length != CqCodebooks.HEADER_LENGTH) {
            throw new IllegalArgumentException("codebook has " + codebook.length + " floats, needs " + CqCodebooks.HEADER_LENGTH);
        }
        codebook = codebook.clone();
        tensors = List.copyOf(tensors);
    }

    @Override
    public float[] codebook() {
        return codebook.clone();
    }

    /**
     * The model a file holds; tensor data are views of the file's bytes in memory, so use the model
     * before closing {@code file}.
     */
    public static CactModel from(CactFile file) {
        List<CactTensor> list = new ArrayList<>(file.numTensors());
        for (TensorRecord r : file.tensors()) {
            list.add(new CactTensor(r.name(), r.dtype(), r.shape(), r.group(), r.bits(), file.blob(r.index())));
        }
        return new CactModel(file.geometry(), file.codebook(), list);
    }

    /** The tensor with this name, or null. */
    public CactTensor tensor(String name) {
        for (CactTensor t : tensors) {
            if (t.name().equals(name)) return t;
        }
        return null;
    }
}
