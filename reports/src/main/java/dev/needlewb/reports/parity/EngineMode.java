package dev.needlewb.reports.parity;

import dev.needlewb.engine.kernel.NumericMode;
import dev.needlewb.reference.ForwardOptions;

/** An engine configuration and the reference run it is held to, with the profile that fits the pair. */
public enum EngineMode {
    EXACT("exact", NumericMode.EXACT, "strict", "reference q0 (quant=False, float KV)"),
    INT8("int8", NumericMode.INT8, "int8", "reference quant=True with int8 KV emulation");

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
        return this == EXACT ? ForwardOptions.DEFAULT : ForwardOptions.DEFAULT.withQuant(true).withInt8Kv(true);
    }

    /** By label ("exact", "int8"), or null. */
    public static EngineMode byLabel(String label) {
        for (EngineMode m : values()) if (m.label.equals(label)) return m;
        return null;
    }
}
