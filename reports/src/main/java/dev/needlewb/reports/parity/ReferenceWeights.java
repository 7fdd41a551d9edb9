package dev.needlewb.reports.parity;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

/**
 * Whose weights the reference read and how they relate to the weights the engines run (the
 * model's dequantized weights): identical, or different by the largest per-tensor relative L2
 * difference {@code ||against - model|| / ||model||}, as when a training checkpoint is held
 * against its 2-bit export.
 */
public record ReferenceWeights(String source, boolean identical, int tensors, String largestTensor, double largestRelL2) {

    /** The reference reads the model's own dequantized weights. */
    public static ReferenceWeights own(String model, int tensors) {
        return new ReferenceWeights(model, true, tensors, null, 0);
    }

    /** Compares every parameter of {@code model} with the same parameter of {@code against}. */
    public static ReferenceWeights compare(String source, Map<String, NpyArray> model, Map<String, NpyArray> against)
            throws WorkbenchException {
        String worst = null;
        double worstRel = 0;
        boolean identical = true;
        for (Map.Entry<String, NpyArray> e : model.entrySet()) {
            NpyArray other = against.get(e.getKey());
            if (other == null) throw new WorkbenchException(ErrorKind.MISSING_KEY, source + ": has no parameter " + e.getKey() + ", which the model has");
            if (!Arrays.equals(other.shape(), e.getValue().shape())) {
                throw new WorkbenchException(ErrorKind.SHAPE_MISMATCH, source + ": parameter " + e.getKey() + " has shape " + Arrays.toString(other.shape())
                        + ", the model's is " + Arrays.toString(e.getValue().shape()));
            }
            double[] m = e.getValue().asDoubles(), a = other.asDoubles();
            double diff = 0, norm = 0;
            for (int i = 0; i < m.length; i++) {
                double d = a[i] - m[i];
                diff += d * d;
                norm += m[i] * m[i];
            }
            if (diff > 0) identical = false;
            double rel = norm > 0 ? Math.sqrt(diff / norm) : diff > 0 ? Double.POSITIVE_INFINITY : 0;
            if (worst == null || rel > worstRel) {
                worst = e.getKey();
                worstRel = rel;
            }
        }
        return new ReferenceWeights(source, identical, model.size(), identical ? null : worst, identical ? 0 : worstRel);
    }

    /** One sentence for reports. */
    public String describe() {
        if (identical) return source + ": identical to the model's dequantized weights (" + tensors + " parameter arrays, bit for bit)";
        return String.format(Locale.ROOT, "%s: differs from the model's dequantized weights (largest relative L2 difference %.3g, in %s): "
                + "comparisons on it measure quantization plus engine error, those on the model's own weights the engine alone",
                source, largestRelL2, largestTensor);
    }
}
