package dev.needlewb.cli;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.engine.EngineOptions;
import dev.needlewb.engine.kernel.NumericMode;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import java.io.PrintWriter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** The engine options shared by the commands that run the engine: numeric mode, threads, vector width. */
final class EngineArguments {
    @Option(names = "--mode", paramLabel = "int8|exact", defaultValue = "int8", converter = ModeConverter.class,
            description = "int8: int8 activations and codebook in the packed kernels, 8-bit KV cache (production); exact: float32 activations and codebook in the same packed kernels, float32 KV cache (default: ${DEFAULT-VALUE}).")
    NumericMode mode;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "2",
            description = "Threads for the matrix rows, at most the processors (default: ${DEFAULT-VALUE}).")
    int threads;

    @Mixin
    VectorBitsOption vectorBits;

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    /** Production options (header window, header max_seq_len) with this mode and thread count. */
    EngineOptions options() throws WorkbenchException {
        PrintWriter err = command.commandLine().getErr();
        int capped = ThreadCount.of(threads, err);
        String warning = vectorBits.check();
        if (warning != null) err.println(warning);
        return EngineOptions.production().withMode(mode).withThreads(capped);
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
