package dev.needlewb.engine.torch;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import java.util.Map;

/**
 * Needle 3's Kronecker MLP gathers as a file stores them ({@code hada_p1}, {@code hada_p2}, FP32
 * integers), for the torch engine, whose Flax tree does not carry them: {@code p1} after stage 1,
 * {@code p2} after stage 2. Each is checked to be a permutation of 0..n-1 before anything gathers with it.
 */
public record MlpPermutations(int[] p1, int[] p2) {
    public MlpPermutations {
        p1 = p1.clone();
        p2 = p2.clone();
    }

    /** The permutations among a model's tensors ({@code .cact} names), or null when it has none (Needle 2). */
    public static MlpPermutations of(Map<String, NpyArray> tensors) throws WorkbenchException {
        NpyArray p1 = tensors.get("hada_p1"), p2 = tensors.get("hada_p2");
        if (p1 == null && p2 == null) return null;
        return new MlpPermutations(checked("hada_p1", p1), checked("hada_p2", p2));
    }

    private static int[] checked(String name, NpyArray stored) throws WorkbenchException {
        if (stored == null) throw new WorkbenchException(ErrorKind.MISSING_KEY, "the weights hold no " + name + " (the MLP permutation)");
        float[] values = stored.asFloats();
        int n = values.length;
        int[] p = new int[n];
        boolean[] seen = new boolean[n];
        for (int i = 0; i < n; i++) {
            float v = values[i];
            if (!(v >= 0 && v < n && v == Math.rint(v)) || seen[(int) v]) {
                throw new WorkbenchException(ErrorKind.BAD_VALUE, name + "[" + i + "] = " + v + ": not a permutation of 0.." + (n - 1));
            }
            p[i] = (int) v;
            seen[p[i]] = true;
        }
        return p;
    }
}
