package dev.needlewb.engine.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;

/**
 * Codebook lookups keyed by the low four bits of each int lane (a 16-lane permute takes its index
 * modulo 16, so the bits above need no mask). A nibble holds one 4-bit code, or two 2-bit codes:
 * then {@link #low} reads the code in bits 0-1 and {@link #high} the code in bits 2-3 of the same
 * nibble, so a byte's four 2-bit codes cost one shift instead of three.
 */
record NibbleTables(IntVector lowBits, IntVector highBits, boolean pairs) {

    /** Tables for a 4-entry (2-bit) or 16-entry (4-bit) codebook. */
    static NibbleTables of(float[] values) {
        int n = PackedCqMatrix.F16.length();
        float[] low = new float[n];
        float[] high = new float[n];
        boolean pairs = values.length == 4;
        for (int i = 0; i < n; i++) {
            low[i] = values[pairs ? i & 3 : i];
            high[i] = values[pairs ? i >> 2 : i];
        }
        return new NibbleTables(FloatVector.fromArray(PackedCqMatrix.F16, low, 0).reinterpretAsInts(),
                FloatVector.fromArray(PackedCqMatrix.F16, high, 0).reinterpretAsInts(), pairs);
    }

    FloatVector low(IntVector nibbles) {
        return nibbles.selectFrom(lowBits).reinterpretAsFloats();
    }

    FloatVector high(IntVector nibbles) {
        return nibbles.selectFrom(highBits).reinterpretAsFloats();
    }
}
