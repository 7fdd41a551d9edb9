package dev.needlewb.reports.parity;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.EngineOptions;
import dev.needlewb.engine.Session;
import dev.needlewb.engine.TapSink;
import dev.needlewb.engine.torch.TorchModel;
import dev.needlewb.engine.torch.TorchSource;
import dev.needlewb.converter.cact.CactFile;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Collects an engine session's per-position taps into whole-sequence arrays [T, ...] laid out as
 * the reference's, keeping only the names the reference recorded.
 */
final class EngineTaps implements TapSink {
    private final Set<String> wanted;
    private final int positions;
    private final Map<String, float[]> arrays = new LinkedHashMap<>();

    EngineTaps(Set<String> wanted, int positions) {
        this.wanted = wanted;
        this.positions = positions;
    }

    /**
     * Runs {@code mode} on {@code cact} (see {@link EngineMode#run}), or {@link EngineMode#TORCH} on the
     * model {@code torch} opens, and keeps the taps named in {@code wanted}.
     */
    static EngineTaps run(EngineMode mode, CactFile cact, TorchSource torch, int[] tokens, Set<String> wanted, int window, int sinks)
            throws WorkbenchException {
        EngineTaps taps = new EngineTaps(wanted, tokens.length);
        if (mode == EngineMode.TORCH) {
            try (TorchModel model = torch.open()) {
                model.forward(tokens, window, sinks, taps);
            }
            return taps;
        }
        EngineOptions options = EngineOptions.exact(tokens.length).withMode(mode.numericMode()).withWindow(window, sinks);
        try (Engine engine = Engine.load(cact, options)) {
            mode.run(engine, tokens, taps);
        }
        return taps;
    }

    @Override
    public boolean wants(String name) {
        return wanted.contains(name);
    }

    @Override
    public void record(String name, int position, float[] values, int... shape) {
        int size = 1;
        for (int s : shape) size *= s;
        final int rowSize = size;
        // A probe head is one row for the whole sequence.
        int rows = ProbeHeadTaps.isHead(name) ? 1 : positions;
        float[] all = arrays.computeIfAbsent(name, n -> new float[rows * rowSize]);
        if (all.length != rows * rowSize) {
            throw new IllegalStateException("engine tap " + name + " changed size to " + rowSize + " at position " + position);
        }
        System.arraycopy(values, 0, all, position * rowSize, rowSize);
    }

    /** The tap's values [T, ...], or null if the engine never recorded it. */
    float[] get(String name) {
        return arrays.get(name);
    }
}
