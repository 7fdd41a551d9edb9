package dev.needlewb.reports.parity;

import dev.needlewb.engine.TapSink;
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
