package dev.needlewb.engine;

import ai.djl.engine.EngineException;
import ai.djl.pytorch.jni.JniUtils;
import dev.needlewb.converter.WorkbenchException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Starts DJL's PyTorch engine offline. libtorch comes from the {@code pytorch-native-cpu} jar on
 * the classpath: on first use DJL extracts it into its cache ({@code ~/.djl.ai/pytorch}, or
 * {@code $DJL_CACHE_DIR}; about 430 MB, a few seconds) and loads it from there afterwards.
 * {@code ai.djl.offline=true} is set before DJL initialises, so nothing is ever downloaded; a
 * missing or unloadable libtorch is reported instead.
 *
 * <p>libtorch's bundled OpenMP spins its idle workers by default. When the cores are shared (other
 * processes, or the engine's own row threads) a spinning worker holds a core its partner needs, and
 * every parallel op waits for a descheduled thread: measured here with 2 threads under load, a
 * 256x512x1536 GEMM ran at 8 GFLOPS instead of 68 and an element-wise op took milliseconds. So
 * unless the user set {@code OMP_WAIT_POLICY}, it is set to {@code PASSIVE} in the process
 * environment (libc {@code setenv} through FFM) before libtorch and its OpenMP load.
 */
final class TorchRuntime {
    static final String ENGINE = "PyTorch";
    private static final String WAIT_POLICY = "OMP_WAIT_POLICY";

    private TorchRuntime() {}

    /** Loads libtorch (once per process) and sets its intra-op thread count, which is process-wide. */
    static synchronized void start(int threads) throws WorkbenchException {
        System.setProperty("ai.djl.offline", "true");
        if (System.getenv(WAIT_POLICY) == null) setenv(WAIT_POLICY, "PASSIVE");
        try {
            ai.djl.engine.Engine.getEngine(ENGINE);
        } catch (EngineException | IllegalArgumentException | UnsatisfiedLinkError e) {
            throw new WorkbenchException("batch prefill needs libtorch from the pytorch-native-cpu jar on the classpath"
                    + " (loaded offline, never downloaded): " + e.getMessage());
        }
        JniUtils.setNumThreads(threads);
    }

    private static void setenv(String name, String value) {
        Linker linker = Linker.nativeLinker();
        MethodHandle setenv = linker.downcallHandle(linker.defaultLookup().find("setenv").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        try (Arena arena = Arena.ofConfined()) {
            int rc = (int) setenv.invokeExact(arena.allocateFrom(name), arena.allocateFrom(value), 0);
            if (rc != 0) throw new IllegalStateException("setenv " + name + " failed: " + rc);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }
}
