package dev.needlewb.reports.parity;

import dev.needlewb.converter.WorkbenchException;
import dev.needlewb.engine.BatchPrefill;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.Session;
import dev.needlewb.engine.TapSink;
import dev.needlewb.engine.kernel.NumericMode;
import dev.needlewb.reference.ForwardOptions;

/** An engine configuration and the reference run it is held to, with the profile that fits the pair. */
public enum EngineMode {
    EXACT("exact", NumericMode.EXACT, "strict", "reference q0 (quant=False, float KV)"),
    INT8("int8", NumericMode.INT8, "int8", "reference quant=True with int8 KV emulation"),
    /** The batch prefill through libtorch: float32 on dense weights, the whole sequence at once. */
    TORCH("torch", NumericMode.EXACT, "strict", "reference q0 (quant=False, float KV)");

    private final String label;
    private final NumericMode mode;
    private final String defaultProfile;
    private final String referenceRun;

    EngineMode(String label, NumericMode mode, String defaultProfile, String referenceRun) {
        this.label = label;
        this.mode = mode;
        this.defaultProfile = defaultProfile;
        this.referenceRun = referenceRun;
    }

    public String label() {
        return label;
    }

    public NumericMode numericMode() {
        return mode;
    }

    public String defaultProfile() {
        return defaultProfile;
    }

    /** What the reference computes for this engine, in words. */
    public String referenceRun() {
        return referenceRun;
    }

    /** The reference options that match this engine (taps and window are added by the caller). */
    public ForwardOptions referenceOptions() {
        return this == INT8 ? ForwardOptions.DEFAULT.withQuant(true).withInt8Kv(true) : ForwardOptions.DEFAULT;
    }

    /**
     * Runs {@code tokens} from position 0 on {@code engine} (opened in {@link #numericMode}), recording
     * every tap into {@code taps}: token by token natively, or in one batch prefill for {@link #TORCH}.
     */
    public void run(Engine engine, int[] tokens, TapSink taps) throws WorkbenchException {
        if (this == TORCH) {
            try (BatchPrefill batch = BatchPrefill.open(engine)) {
                batch.prefill(engine.newSession(), tokens, taps);
            }
        } else {
            Session session = engine.newSession(taps);
            for (int token : tokens) session.step(token);
        }
    }

    /** By label ("exact", "int8", "torch"), or null. */
    public static EngineMode byLabel(String label) {
        for (EngineMode m : values()) if (m.label.equals(label)) return m;
        return null;
    }
}
