package dev.needlewb.engine;

import java.util.Arrays;

/** Splits the batch path's whole-prompt intermediates {@code [T, ...]} into the per-position taps a {@link TapSink} takes. */
final class BatchTaps {
    static final BatchTaps NONE = new BatchTaps(null);

    private final TapSink sink;

    BatchTaps(TapSink sink) {
        this.sink = sink;
    }

    boolean wants(String name) {
        return sink != null && sink.wants(name);
    }

    /** Records row {@code pos} of {@code values} ({@code [T, shape...]} row-major) as position {@code pos}, for every position. */
    void record(String name, float[] values, int... shape) {
        if (!wants(name)) return;
        int n = 1;
        for (int s : shape) n *= s;
        for (int pos = 0; pos < values.length / n; pos++) sink.record(name, pos, Arrays.copyOfRange(values, pos * n, (pos + 1) * n), shape);
    }
}
