package dev.needlewb.cli;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.engine.BatchPrefill;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.Prefill;
import dev.needlewb.engine.torch.TorchPrefill;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** {@code --prefill native|batch|torch}: how the engine commands feed the prompt. */
final class PrefillArgument {
    enum Kind { NATIVE, BATCH, TORCH }

    @Option(names = "--prefill", paramLabel = "native|batch|torch", defaultValue = "native", converter = KindConverter.class,
            description = {"native: token by token on the packed kernels; batch: the whole prompt at once on float32"
                    + " dense weights built at start; torch: the whole prompt on libtorch (float32, the model's dequantized weights;"
                    + " on the engine's --threads; needs torch/target/needle-wb-torch.jar). Decoding continues natively (default: ${DEFAULT-VALUE})."})
    Kind kind;

    /** Whether a prefill other than native must be set up (its setup time is reported apart). */
    boolean setUp() {
        return kind != Kind.NATIVE;
    }

    /** The report name of the choice. */
    String name() {
        return kind.name().toLowerCase(Locale.ROOT);
    }

    /** The chosen prefill and how to free what it holds. */
    record Opened(Prefill prefill, Runnable release) implements AutoCloseable {
        @Override
        public void close() {
            release.run();
        }
    }

    /** The prefill for {@code engine} running {@code model}: the batch path's dense weights, or {@code model} loaded into libtorch. */
    Opened open(Engine engine, CactFile model) throws WorkbenchException {
        return switch (kind) {
            case NATIVE -> new Opened(Prefill.NATIVE, () -> {});
            case BATCH -> {
                BatchPrefill batch = BatchPrefill.open(engine);
                yield new Opened(batch, batch::close);
            }
            case TORCH -> {
                TorchPrefill torch = TorchPrefill.of(model, engine.options().threads());
                yield new Opened(torch, torch::close);
            }
        };
    }

    static final class KindConverter implements ITypeConverter<Kind> {
        @Override
        public Kind convert(String value) {
            return switch (value.toLowerCase(Locale.ROOT)) {
                case "native" -> Kind.NATIVE;
                case "batch" -> Kind.BATCH;
                case "torch" -> Kind.TORCH;
                default -> throw new TypeConversionException("unknown prefill '" + value + "': use native, batch or torch");
            };
        }
    }
}
