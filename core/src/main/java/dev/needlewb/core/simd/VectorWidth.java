package dev.needlewb.core.simd;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * The physical vector width every kernel of the workbench runs on, chosen once per process: the
 * widest shape C2 compiles to SIMD on this machine ({@code SPECIES_PREFERRED}, which follows
 * {@code -XX:MaxVectorSize}), or a narrower one asked for with the system property
 * {@value #PROPERTY} or the environment variable {@value #ENV} ({@code 128}, {@code 256} or
 * {@code 512}). A shape wider than the machine's runs the Vector API's per-lane Java fallback: correct
 * but one to two orders of magnitude slower, so {@link #nativeWidth()} says whether it is SIMD.
 *
 * <p>Kernels whose arithmetic has a fixed number of logical lanes (16 in the engine, NumPy's 8 in the
 * quantizer) map them onto {@code logical / lanes} physical vectors of this width, so their results do
 * not depend on the width; see each kernel.
 */
public final class VectorWidth {
    public static final String PROPERTY = "needle.vector.bits";
    public static final String ENV = "NEEDLE_VECTOR_BITS";

    /** The widest vector the JIT compiles here, in bits (at most 512, at least 128). */
    public static final int MACHINE_BITS = clamp(FloatVector.SPECIES_PREFERRED.vectorBitSize());
    /** Where {@link #BITS} came from: {@code machine}, or the property or variable that set it. */
    public static final String SOURCE;
    /** The width in use, in bits: 128, 256 or 512. */
    public static final int BITS;

    static {
        String property = System.getProperty(PROPERTY);
        String env = System.getenv(ENV);
        if (property != null && !property.isBlank()) {
            BITS = parse(property, "-D" + PROPERTY);
            SOURCE = "-D" + PROPERTY + "=" + property.trim();
        } else if (env != null && !env.isBlank()) {
            BITS = parse(env, ENV);
            SOURCE = ENV + "=" + env.trim();
        } else {
            BITS = MACHINE_BITS;
            SOURCE = "machine";
        }
    }

    private static final VectorShape SHAPE = VectorShape.forBitSize(BITS);
    public static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_PREFERRED.withShape(SHAPE);
    public static final VectorSpecies<Double> DOUBLES = DoubleVector.SPECIES_PREFERRED.withShape(SHAPE);
    public static final VectorSpecies<Integer> INTS = IntVector.SPECIES_PREFERRED.withShape(SHAPE);
    public static final VectorSpecies<Long> LONGS = LongVector.SPECIES_PREFERRED.withShape(SHAPE);
    public static final VectorSpecies<Byte> BYTES = ByteVector.SPECIES_PREFERRED.withShape(SHAPE);
    /** Float lanes per vector: 4, 8 or 16. */
    public static final int FLOAT_LANES = FLOATS.length();
    /**
     * The narrowest shape the workbench runs on (128 bits: SSE/AVX on x86, NEON on ARM), so SIMD on
     * every machine it supports, whatever {@link #BITS} is. For kernels built on the one 16-entry byte
     * shuffle every ISA has (pshufb, tbl), which crosses 128-bit lanes, and so costs several instructions,
     * at any wider shape.
     */
    public static final VectorShape NARROWEST = VectorShape.S_128_BIT;

    private VectorWidth() {}

    /** True when {@link #BITS} is at most what the JIT compiles to SIMD here. */
    public static boolean nativeWidth() {
        return BITS <= MACHINE_BITS;
    }

    /** One line for logs and reports, e.g. {@code 256-bit vectors (8 float lanes; machine 256-bit, machine)}. */
    public static String describe() {
        return BITS + "-bit vectors (" + FLOAT_LANES + " float lanes; machine " + MACHINE_BITS + "-bit, " + SOURCE
                + (nativeWidth() ? "" : "; wider than the machine: Java fallback, not SIMD") + ")";
    }

    /**
     * A float species of {@code lanes} lanes (2 to 16): for kernels whose arithmetic fixes fewer lanes
     * than {@link #FLOATS} has (NumPy's 8 accumulators) or that widen floats to {@link #DOUBLES}.
     */
    public static VectorSpecies<Float> floatsFor(int lanes) {
        return FloatVector.SPECIES_PREFERRED.withShape(VectorShape.forBitSize(lanes * Float.SIZE));
    }

    /**
     * A byte species of {@code lanes} lanes, or of 8 lanes when {@code lanes} is 4 (the Vector API has
     * no 32-bit shape): a kernel that wants four bytes loads eight and converts the lower half.
     */
    public static VectorSpecies<Byte> bytesFor(int lanes) {
        return ByteVector.SPECIES_PREFERRED.withShape(VectorShape.forBitSize(Math.max(64, lanes * Byte.SIZE)));
    }

    /**
     * Vector registers the JIT may allocate here: 32 on AArch64 (NEON and SVE) and on x86 with AVX-512
     * enabled ({@code -XX:UseAVX=3}, whatever {@code MaxVectorSize} says, since EVEX encodes xmm16-31
     * too); 16 on x86 without it. Register-blocked kernels size their blocks by this, not by the width:
     * a 128-bit NEON machine has as many registers as an AVX-512 one. Reads a JVM flag (about 25 ms at a
     * cold start), so only kernels that need it ask.
     */
    public static int registers() {
        String arch = System.getProperty("os.arch", "");
        if (arch.equals("aarch64") || arch.equals("arm64")) return 32;
        try {
            var flags = java.lang.management.ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            return Integer.parseInt(flags.getVMOption("UseAVX").getValue()) >= 3 ? 32 : 16;
        } catch (RuntimeException e) {
            return 16;
        }
    }

    private static int parse(String value, String what) {
        int bits;
        try {
            bits = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " must be 128, 256 or 512, got '" + value + "'");
        }
        if (bits != 128 && bits != 256 && bits != 512) {
            throw new IllegalArgumentException(what + " must be 128, 256 or 512, got " + bits);
        }
        return bits;
    }

    private static int clamp(int bits) {
        return Math.max(128, Math.min(512, bits));
    }
}
