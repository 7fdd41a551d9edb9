package dev.needlewb.converter.cq;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code codebook[code] * norm} for a run of codes: a group's values before the Hadamard
 * rotation. Each lane is one float32 product, the same rounding as the scalar expression. With a
 * codebook that fits one vector (every CQ codebook on 512-bit hardware) the lookup is a lane
 * permutation; otherwise it is a scalar loop. Codes must lie in {@code [0, codebook.length)}.
 */
final class ScaledCodebook {
    private static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_PREFERRED;
    private static final int L = FLOATS.length();
    private static final VectorSpecies<Integer> INTS = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Byte> BYTES = VectorSpecies.of(byte.class, VectorShape.forBitSize(L * Byte.SIZE));

    private final float[] codebook;
    /** The codebook padded to one vector, or null when it does not fit. */
    private final FloatVector table;

    ScaledCodebook(float[] codebook) {
        this.codebook = codebook.clone();
        this.table = codebook.length <= L ? FloatVector.fromArray(FLOATS, java.util.Arrays.copyOf(codebook, L), 0) : null;
    }

    /** Writes {@code codebook[codes[from + k]] * norm} to {@code out[outOff + k]} for k in [0, n). */
    void lookup(byte[] codes, int from, int n, float norm, float[] out, int outOff) {
        int k = 0;
        if (table != null) {
            for (; k <= n - L; k += L) {
                IntVector idx = (IntVector) ByteVector.fromArray(BYTES, codes, from + k).convertShape(VectorOperators.B2I, INTS, 0);
                table.rearrange(idx.toShuffle().cast(FLOATS)).mul(norm).intoArray(out, outOff + k);
            }
        }
        for (; k < n; k++) out[outOff + k] = codebook[codes[from + k]] * norm;
    }
}
