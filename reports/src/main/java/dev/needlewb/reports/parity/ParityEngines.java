package dev.needlewb.reports.parity;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.engine.BatchPrefill;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.EngineOptions;
import dev.needlewb.engine.torch.TorchModel;
import dev.needlewb.engine.torch.TorchSource;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;

/**
 * The engines parity runs on one model, each opened on first use and kept until closed, so that a
 * sweep over many prompts loads an engine (and the batch path's dense weights) once, not once per
 * prompt. Every run starts a fresh session; the torch engine's model is opened per run (its
 * libtorch weights are what {@code torch} gives).
 */
public final class ParityEngines implements AutoCloseable {
    private final CactFile cact;
    private final TorchSource torch;
    private final int window;
    private final int sinks;
    private final int maxPositions;
    private final Map<EngineMode, Engine> engines = new EnumMap<>(EngineMode.class);
    private BatchPrefill batch;

    /**
     * Engines on {@code cact} with {@code window} (0: none) and {@code sinks}, for prompts of at most
     * {@code maxPositions} tokens; {@code torch} opens the torch engine's model (null when
     * {@link EngineMode#TORCH} is not run).
     */
    public ParityEngines(CactFile cact, TorchSource torch, int window, int sinks, int maxPositions) {
        this.cact = cact;
        this.torch = torch;
        this.window = window;
        this.sinks = sinks;
        this.maxPositions = maxPositions;
    }

    /** Runs {@code tokens} through {@code mode} and keeps the taps named in {@code wanted} (see {@link EngineMode#run}). */
    EngineTaps run(EngineMode mode, int[] tokens, Set<String> wanted) throws WorkbenchException {
        EngineTaps taps = new EngineTaps(wanted, tokens.length);
        if (mode == EngineMode.TORCH) {
            try (TorchModel model = torch.open()) {
                model.forward(tokens, window, sinks, taps);
            }
            return taps;
        }
        Engine engine = engine(mode);
        if (mode == EngineMode.BATCH && batch == null) batch = BatchPrefill.open(engine);
        mode.run(engine, mode == EngineMode.BATCH ? batch : null, tokens, taps);
        return taps;
    }

    private Engine engine(EngineMode mode) throws WorkbenchException {
        Engine engine = engines.get(mode);
        if (engine == null) {
            engine = Engine.load(cact, EngineOptions.exact(maxPositions).withMode(mode.numericMode()).withWindow(window, sinks));
            engines.put(mode, engine);
        }
        return engine;
    }

    /** How many native engines are open (each mode's, loaded on its first run). */
    int enginesLoaded() {
        return engines.size();
    }

    @Override
    public void close() {
        if (batch != null) batch.close();
        engines.values().forEach(Engine::close);
        engines.clear();
        batch = null;
    }
}
