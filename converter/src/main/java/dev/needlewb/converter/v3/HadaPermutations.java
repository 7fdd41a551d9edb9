package dev.needlewb.converter.v3;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.converter.cact.CactBytes;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.converter.cq.codebook.LegacyRandomState;
import dev.needlewb.core.FormatException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The Kronecker MLP's fixed gathers {@code hada_p1} / {@code hada_p2} ({@code _hada_perms},
 * architecture.py:693-701): {@code RandomState(11 | 13).permutation(n)}; with {@code ladder_widths}
 * set, two halves shuffled apart (seeds s and s + 977, the second offset by n/2). A {@code .cact}
 * stores them as FP32 (export.py:290-297), which the reader checks before anything indexes with them.
 */
public final class HadaPermutations {
    /** The two gathers: their tensor names and the seeds upstream draws them from. */
    public enum Gather {
        P1("hada_p1", 11),
        P2("hada_p2", 13);

        public final String tensor;
        public final int seed;

        Gather(String tensor, int seed) {
            this.tensor = tensor;
            this.seed = seed;
        }

        /** Upstream's draw of this gather for length {@code n}, split in halves or not. */
        public int[] draw(int n, boolean split) {
            return HadaPermutations.draw(seed, n, split);
        }

        /** Whether {@code values} are exactly upstream's draw of this gather (unsplit or split). */
        public boolean isUpstreams(float[] values, boolean split) {
            int[] p = draw(values.length, split);
            for (int i = 0; i < p.length; i++) {
                if (values[i] != p[i]) return false;
            }
            return true;
        }

        /** The gather stored under tensor {@code name}, or null. */
        public static Gather named(String name) {
            for (Gather g : values()) {
                if (g.tensor.equals(name)) return g;
            }
            return null;
        }
    }

    private static final int SPLIT_SEED_OFFSET = 977;
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private HadaPermutations() {}

    /** The permutation upstream draws from {@code seed} for length {@code n}, split in halves or not. */
    private static int[] draw(int seed, int n, boolean split) {
        if (!split) return new LegacyRandomState(seed).permutation(n);
        int half = n / 2;
        int[] low = new LegacyRandomState(seed).permutation(half);
        int[] high = new LegacyRandomState(seed + SPLIT_SEED_OFFSET).permutation(half);
        int[] p = new int[2 * half];
        System.arraycopy(low, 0, p, 0, half);
        for (int i = 0; i < half; i++) p[half + i] = half + high[i];
        return p;
    }

    /** The first entry of a stored permutation that breaks the rule: its position and what is wrong. */
    record Problem(int position, String text) {}

    /**
     * The first problem of {@code n} little-endian float32 values that must be a permutation:
     * every value an integer of 0..n-1, each once (upstream's writer stores
     * {@code np.asarray(p, np.float32)} of a permutation, export.py:290-297; the engine gathers
     * with it), or null.
     */
    static Problem problem(MemorySegment floats, int n) {
        boolean[] seen = new boolean[n];
        for (int i = 0; i < n; i++) {
            float v = floats.get(F32, 4L * i);
            int index = (int) v;
            boolean integer = v >= 0 && v < n && index == v;
            if (!integer || seen[index]) {
                return new Problem(i, "value " + v + " at position " + i + (integer ? " repeats an earlier one" : " is not an integer of 0.." + (n - 1))
                        + ": hada_p1/hada_p2 must be permutations (export.py:290-297)");
            }
            seen[index] = true;
        }
        return null;
    }

    /** Checks a validated FP32 permutation record, naming its offending float's byte offset. */
    static void check(CactBytes b, TensorRecord r) throws FormatException {
        Problem p = problem(b.bytes().asSlice(r.offset(), r.nbytes()), (int) r.dim(0));
        if (p != null) throw new FormatException(ErrorKind.BAD_VALUE, b.file(), r.index(), r.name(), r.offset() + 4L * p.position(), p.text());
    }
}
