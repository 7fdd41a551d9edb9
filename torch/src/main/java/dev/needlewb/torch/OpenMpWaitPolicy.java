package dev.needlewb.torch;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * libtorch's OpenMP threads sleep between parallel regions instead of spinning, unless the user
 * chose a policy. The spinning default made a torch prefill 5 to 30 times slower on a 2-core machine
 * shared with other work (the spinners take the cores the working thread needs; see
 * docs/performance.md). OpenMP reads {@code OMP_WAIT_POLICY} from the C environment once, when
 * libtorch's bundled libgomp is loaded, so this sets it there (Java's own environment copy cannot)
 * and must run before the first call into libtorch.
 */
final class OpenMpWaitPolicy {
    static final String VARIABLE = "OMP_WAIT_POLICY";
    static final String PASSIVE = "PASSIVE";

    private OpenMpWaitPolicy() {}

    /** Sets {@code OMP_WAIT_POLICY=PASSIVE} in the process environment unless it already has a value; returns the value in force. */
    static synchronized String passiveUnlessSet() {
        Linker linker = Linker.nativeLinker();
        try (Arena arena = Arena.ofConfined()) {
            MethodHandle setenv = linker.downcallHandle(linker.defaultLookup().find("setenv").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
            MethodHandle getenv = linker.downcallHandle(linker.defaultLookup().find("getenv").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.ADDRESS.withTargetLayout(ValueLayout.JAVA_BYTE), ValueLayout.ADDRESS));
            MemorySegment name = arena.allocateFrom(VARIABLE);
            int failed = (int) setenv.invokeExact(name, arena.allocateFrom(PASSIVE), 0);
            if (failed != 0) throw new IllegalStateException("setenv(" + VARIABLE + ") failed");
            MemorySegment value = (MemorySegment) getenv.invokeExact(name);
            return value.reinterpret(Long.MAX_VALUE).getString(0);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("setenv(" + VARIABLE + ") failed", e);
        }
    }
}
