package dev.needlewb.engine;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactFormat;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.converter.v2.V2Header;
import dev.needlewb.converter.v3.V3HeaderField;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.core.v3.V3Geometry;
import java.util.Optional;

/**
 * The engine's registry: how the engine loads a file of each generation, and which generations it
 * does not run (yet). The one place the engine names an implementation; the switch is exhaustive,
 * so a new generation is listed here by the compiler. Each generation's case builds the {@link EngineShape}
 * of its header for the one {@link Engine}.
 */
public final class EngineGenerations {
    /** Loads a validated file of one generation into an engine. */
    @FunctionalInterface
    interface Loader {
        Engine load(CactFile file, boolean ownsFile, EngineOptions options) throws WorkbenchException;
    }

    private EngineGenerations() {}

    static Optional<Loader> find(Generation g) {
        return switch (g) {
            case NEEDLE2 -> Optional.of((file, owns, options) -> {
                EngineShape shape = EngineShape.of(Geometry.of(file.geometry()));
                checkSites(file, shape, V2Header.OFF_SITES);
                return new Engine(file, owns, options, shape);
            });
            case NEEDLE3 -> Optional.of((file, owns, options) -> {
                V3Geometry v3 = V3Geometry.of(file.geometry());
                TensorRecord gate = file.tensor("layer00.gate_proj");
                EngineShape shape = EngineShape.of(v3, gate != null && gate.dim(0) == v3.numHeads() && v3.vHeadDim() != 1);
                checkSites(file, shape, V3HeaderField.ENGRAM_SITES.offset());
                return new Engine(file, owns, options, shape);
            });
        };
    }

    /** Refuses a model whose engram sites repeat a layer (the header's sites array starts at {@code sitesOffset}). */
    private static void checkSites(CactFile file, EngineShape shape, long sitesOffset) throws FormatException {
        int repeated = shape.repeatedSite();
        if (repeated >= 0) {
            throw new FormatException(ErrorKind.UNSUPPORTED, file.path(), sitesOffset + 4L * repeated, "engram site " + repeated + " repeats layer "
                    + shape.engramSites()[repeated] + ": the engine injects one site per layer (upstream adds both)");
        }
    }

    /** The loader of {@code file}'s generation. */
    static Loader of(CactFile file) throws FormatException {
        Generation g = file.geometry().generation();
        Optional<Loader> loader = find(g);
        if (loader.isEmpty()) throw new FormatException(ErrorKind.WRONG_GENERATION, file.path(), CactFormat.OFF_TAG, notRun(g));
        return loader.get();
    }

    /**
     * Refuses a file the engine cannot run because of its generation, before a command does any
     * other work with it (one line naming the generation; the CLI exits 2).
     */
    public static void require(CactFile file) throws FormatException {
        of(file);
    }

    /**
     * Whether the engine of {@code file} takes a KV window and sinks on top of the model (Needle 2: a deployment's
     * kv_window, a tool prefix pinned); Needle 3 attends through its own mask only.
     */
    public static boolean takesKvWindow(CactFile file) {
        return takesKvWindow(file.geometry());
    }

    /** The same for a model of geometry {@code g}. */
    static boolean takesKvWindow(ModelGeometry g) {
        return g.generation() != Generation.NEEDLE3;
    }

    /** Why a file of {@code g} is refused: e.g. {@code Needle 3 files are not run by the engine yet (it runs Needle 2)}. */
    static String notRun(Generation g) {
        StringBuilder runs = new StringBuilder();
        for (Generation other : Generation.values()) {
            if (find(other).isPresent()) runs.append(runs.isEmpty() ? "" : ", ").append(other);
        }
        return g + " files are not run by the engine yet (it runs " + runs + ")";
    }
}
