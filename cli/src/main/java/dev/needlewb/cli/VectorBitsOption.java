package dev.needlewb.cli;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.simd.VectorWidth;
import picocli.CommandLine.Option;

/**
 * {@code --vector-bits 128|256|512}: the vector width the kernels run at in this process (to measure
 * a narrower machine's code path; {@code -XX:MaxVectorSize} in {@code NEEDLE_WB_JAVA_OPTS} narrows what
 * the JIT itself may use). The kernels fix their width when their classes load, so {@link #applyEarly}
 * sets it from the command line before anything else runs; within a running JVM (the tests) the option
 * can only confirm the width already in use.
 */
final class VectorBitsOption {
    static final String NAME = "--vector-bits";

    @Option(names = NAME, paramLabel = "128|256|512",
            description = "Run the kernels at this vector width (default: the machine's widest, or NEEDLE_VECTOR_BITS).")
    Integer bits;

    /** Applies {@code --vector-bits N} (or {@code --vector-bits=N}) from a process's arguments. */
    static void applyEarly(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String value = null;
            if (args[i].equals(NAME) && i + 1 < args.length) value = args[i + 1];
            else if (args[i].startsWith(NAME + "=")) value = args[i].substring(NAME.length() + 1);
            if (value != null) System.setProperty(VectorWidth.PROPERTY, value);
        }
    }

    /** Throws when the width asked for is not the one in use; returns a warning line when it is not SIMD here, else null. */
    String check() throws WorkbenchException {
        if (bits != null && bits != VectorWidth.BITS) {
            throw new WorkbenchException(ErrorKind.BAD_OPTION, NAME + " " + bits + ": this process already runs its kernels at " + VectorWidth.BITS
                    + " bits (the width is fixed when the kernels load; give the option on a fresh command line)");
        }
        return VectorWidth.nativeWidth() ? null : "needle-wb: warning: " + VectorWidth.describe();
    }
}
