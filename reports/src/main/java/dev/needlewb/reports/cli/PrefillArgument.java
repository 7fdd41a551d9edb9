package dev.needlewb.reports.cli;

import dev.needlewb.converter.WorkbenchException;
import dev.needlewb.engine.BatchPrefill;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.Prefill;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** {@code --prefill native|batch}: how the engine commands feed the prompt. */
final class PrefillArgument {
    enum Kind { NATIVE, BATCH }

    @Option(names = "--prefill", paramLabel = "native|batch", defaultValue = "native", converter = KindConverter.class,
            description = "native: token by token on the packed kernels; batch: the whole prompt at once on float32"
                    + " dense weights built at start (default: ${DEFAULT-VALUE}).")
    Kind kind;

    boolean batch() {
        return kind == Kind.BATCH;
    }

    /** The report name of the choice. */
    String name() {
        return kind.name().toLowerCase(Locale.ROOT);
    }

    /** A batch prefill of {@code engine}, or null for native prefill (a try-with-resources resource either way). */
    BatchPrefill open(Engine engine) throws WorkbenchException {
        return batch() ? BatchPrefill.open(engine) : null;
    }

    /** The prefill to run: {@code batch} from {@link #open}, or native when that was null. */
    static Prefill chosen(BatchPrefill batch) {
        return batch != null ? batch : Prefill.NATIVE;
    }

    static final class KindConverter implements ITypeConverter<Kind> {
        @Override
        public Kind convert(String value) {
            return switch (value.toLowerCase(Locale.ROOT)) {
                case "native" -> Kind.NATIVE;
                case "batch" -> Kind.BATCH;
                default -> throw new TypeConversionException("unknown prefill '" + value + "': use native or batch");
            };
        }
    }
}
