package dev.needlewb.cli;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.engine.EngineOptions;
import dev.needlewb.engine.kernel.NumericMode;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** The engine options shared by the commands that run the engine: numeric mode, threads, vector width. */
final class EngineArguments {
    @Option(names = "--mode", paramLabel = "int8|exact", defaultValue = "int8", converter = ModeConverter.class,
            description = "int8: int8 activations and codebook in the packed kernels, 8-bit KV cache (production); exact: float32 activations and codebook in the same packed kernels, float32 KV cache (default: ${DEFAULT-VALUE}).")
    NumericMode mode;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "2", description = "Threads for the matrix rows (default: ${DEFAULT-VALUE}).")
    int threads;

    @Mixin
    VectorBitsOption vectorBits;

    /** Production options (header window, header max_seq_len) with this mode and thread count. */
    EngineOptions options() throws WorkbenchException {
        if (threads < 1) throw new WorkbenchException("--threads must be at least 1, got " + threads);
        String warning = vectorBits.check();
        if (warning != null) System.err.println(warning);
        return EngineOptions.production().withMode(mode).withThreads(threads);
    }

    static final class ModeConverter implements ITypeConverter<NumericMode> {
        @Override
        public NumericMode convert(String value) {
            return switch (value.toLowerCase(Locale.ROOT)) {
                case "int8" -> NumericMode.INT8;
                case "exact" -> NumericMode.EXACT;
                default -> throw new TypeConversionException("unknown mode '" + value + "': use int8 or exact");
            };
        }
    }
}
