package dev.needlewb.engine.kernel;

import dev.needlewb.core.simd.VectorWidth;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * W consecutive bytes as W int or float lanes, at every width. At 8 and 16 lanes a byte vector of W
 * lanes is widened with one conversion. At 4 lanes there is no 32-bit byte shape, and a conversion
 * from 8 byte lanes to 4 int lanes is not compiled (C2 runs it in Java), so a 16-byte vector is loaded
 * and one byte permutation moves the wanted bytes into the int lanes: into the low byte where the bits
 * above may be anything (codes), or into the high byte followed by an arithmetic shift (signed values).
 */
public final class ByteLanes {
    private static final VectorSpecies<Float> F = Lanes.F;
    private static final VectorSpecies<Integer> I = VectorWidth.INTS;
    private static final int W = Lanes.W;
    private static final boolean PERMUTED = W == 4;
    /** The byte species loaded: W lanes, or 16 at 4 lanes. */
    private static final VectorSpecies<Byte> LOADED = PERMUTED ? ByteVector.SPECIES_PREFERRED.withShape(I.vectorShape())
            : VectorWidth.bytesFor(W);
    /** Bytes a load may read past those it uses: arrays read by {@link #signed} need this much slack. */
    public static final int SLACK = LOADED.length();
    /** At 4 lanes: byte {@code 4 part + m} to the low byte of int lane m, and byte m to the high byte of int lane m. */
    private static final VectorShuffle<Byte> LOW0 = lowSpread(0), LOW1 = lowSpread(1), LOW2 = lowSpread(2), LOW3 = lowSpread(3);
    private static final VectorShuffle<Byte> HIGH = PERMUTED ? VectorShuffle.fromOp(LOADED, i -> i % 4 == 3 ? i / 4 : 0) : null;

    private ByteLanes() {}

    /**
     * Bytes {@code part W .. part W + W - 1} of the 16 at {@code chunk} (a multiple of 16 within
     * {@code segment}), one per int lane in its low 8 bits; the bits above are unspecified, so only a
     * consumer of the low byte (a shift by less than 8 then a lookup by the low bits) may read them.
     */
    static IntVector codes(MemorySegment segment, long chunk, int part) {
        return PERMUTED ? permutedCodes(segment, chunk, part) : convertedCodes(segment, chunk, part);
    }

    /** {@code a[at .. at + W)} as signed values in float lanes (the array needs {@link #SLACK} bytes past them). */
    public static FloatVector signed(byte[] a, int at) {
        return PERMUTED ? permutedSigned(ByteVector.fromArray(LOADED, a, at)) : convertedSigned(ByteVector.fromArray(LOADED, a, at));
    }

    // Each form in a method of its own, small enough that C2 always inlines it: a vector that crosses
    // a call C2 did not inline is boxed, and the Vector API then runs in Java.

    private static IntVector permutedCodes(MemorySegment segment, long chunk, int part) {
        VectorShuffle<Byte> spread = part == 0 ? LOW0 : part == 1 ? LOW1 : part == 2 ? LOW2 : LOW3;
        return ByteVector.fromMemorySegment(LOADED, segment, chunk, ByteOrder.LITTLE_ENDIAN).rearrange(spread).reinterpretAsInts();
    }

    private static IntVector convertedCodes(MemorySegment segment, long chunk, int part) {
        return (IntVector) ByteVector.fromMemorySegment(LOADED, segment, chunk + (long) part * W, ByteOrder.LITTLE_ENDIAN)
                .convertShape(VectorOperators.B2I, I, 0);
    }

    private static FloatVector permutedSigned(ByteVector bytes) {
        return (FloatVector) bytes.rearrange(HIGH).reinterpretAsInts().lanewise(VectorOperators.ASHR, 24).convert(VectorOperators.I2F, 0);
    }

    private static FloatVector convertedSigned(ByteVector bytes) {
        return (FloatVector) bytes.convertShape(VectorOperators.B2F, F, 0);
    }

    /** The spread of part {@code part} (fields, not an array: see {@link Lanes#SWAP1}). */
    private static VectorShuffle<Byte> lowSpread(int part) {
        return PERMUTED ? VectorShuffle.fromOp(LOADED, i -> 4 * part + i / 4) : null;
    }
}
