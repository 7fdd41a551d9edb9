package dev.needlewb.reports.toolcalls;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.engine.kernel.NumericMode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The engines {@code eval toolcalls --engine} can name ({@code torch}: the prompt on libtorch, which
 * only needle-wb-torch.jar carries). Another engine joins by adding a factory under its name.
 */
public final class CaseEngines {
    /** Opens one engine over an open model file with a thread count. */
    @FunctionalInterface
    public interface Factory {
        CaseEngine open(CactFile cact, int threads) throws WorkbenchException;
    }

    private static final Map<String, Factory> FACTORIES = new LinkedHashMap<>();

    static {
        register("exact", (cact, threads) -> new NativeCaseEngine("exact", cact, NumericMode.EXACT, NativeCaseEngine.PromptPath.NATIVE, threads));
        register("int8", (cact, threads) -> new NativeCaseEngine("int8", cact, NumericMode.INT8, NativeCaseEngine.PromptPath.NATIVE, threads));
        register("batch", (cact, threads) -> new NativeCaseEngine("batch", cact, NumericMode.EXACT, NativeCaseEngine.PromptPath.BATCH, threads));
        // The prompt on libtorch (needle-wb-torch.jar), decoding natively in exact mode.
        register("torch", (cact, threads) -> new NativeCaseEngine("torch", cact, NumericMode.EXACT, NativeCaseEngine.PromptPath.TORCH, threads));
    }

    private CaseEngines() {}

    public static synchronized void register(String name, Factory factory) {
        FACTORIES.put(name, factory);
    }

    /** Fails on an unknown name, listing the known ones. */
    public static synchronized Factory factory(String name) throws WorkbenchException {
        Factory f = FACTORIES.get(name);
        if (f == null) throw new WorkbenchException(ErrorKind.BAD_OPTION, "unknown engine '" + name + "': use " + String.join(", ", FACTORIES.keySet()));
        return f;
    }
}
