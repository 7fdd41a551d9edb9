package dev.needlewb.converter.cq;

import dev.needlewb.core.simd.VectorWidth;
import java.util.Arrays;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code codebook[code] * norm} for a run of codes: a group's values before the Hadamard
 * rotation. Each lane is one float32 product, the same rounding as the scalar expression, so the
 * result is the same at every vector width. With a codebook that fits one float vector (at 512 bits
 * every CQ codebook, at 128 bits ternary and 2-bit) the lookup is a lane permutation; otherwise it is
 * a scalar loop, a small share of a dequantization next to its Hadamard product. Codes must lie in
 * {@code [0, codebook.length)}.
 */
final class ScaledCodebook {
    private static final VectorSpecies<Float> FLOATS = VectorWidth.FLOATS;
    private static final VectorSpecies<Integer> INTS = VectorWidth.INTS;
    private static final int FLOAT_LANES = FLOATS.length();
    /** The codes of one load: one per float lane, or 8 (two float vectors) at 4 lanes, the narrowest byte shape. */
    private static final VectorSpecies<Byte> CODES = VectorWidth.bytesFor(FLOAT_LANES);
    private static final int CODES_PER_LOAD = CODES.length();

    private final float[] codebook;
    /** The codebook padded to one float vector, or null when it does not fit. */
    private final float[] table;

    ScaledCodebook(float[] codebook) {
        this.codebook = codebook.clone();
        this.table = codebook.length <= FLOAT_LANES ? Arrays.copyOf(codebook, FLOAT_LANES) : null;
    }

    /** Writes {@code codebook[codes[from + k]] * norm} to {@code out[outOff + k]} for k in [0, n). */
    void lookup(byte[] codes, int from, int n, float norm, float[] out, int outOff) {
        int k = 0;
        if (table != null) {
            FloatVector entries = FloatVector.fromArray(FLOATS, table, 0);
            for (; k <= n - CODES_PER_LOAD; k += CODES_PER_LOAD) {
                ByteVector loaded = ByteVector.fromArray(CODES, codes, from + k);
                IntVector low = (IntVector) loaded.convertShape(VectorOperators.B2I, INTS, 0);
                entries.rearrange(low.toShuffle().cast(FLOATS)).mul(norm).intoArray(out, outOff + k);
                if (CODES_PER_LOAD > FLOAT_LANES) {
                    IntVector high = (IntVector) loaded.convertShape(VectorOperators.B2I, INTS, 1);
                    entries.rearrange(high.toShuffle().cast(FLOATS)).mul(norm).intoArray(out, outOff + k + FLOAT_LANES);
                }
            }
        }
        for (; k < n; k++) out[outOff + k] = codebook[codes[from + k]] * norm;
    }
}
