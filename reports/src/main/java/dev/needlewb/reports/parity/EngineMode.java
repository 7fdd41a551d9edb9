package dev.needlewb.reports.parity;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.engine.BatchPrefill;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.Session;
import dev.needlewb.engine.TapSink;
import dev.needlewb.engine.kernel.NumericMode;
import dev.needlewb.reference.ForwardOptions;

/** An engine configuration and the reference run it is held to, with the profile that fits the pair. */
public enum EngineMode {
    EXACT("exact", NumericMode.EXACT),
    INT8("int8", NumericMode.INT8),
    /** The batch prefill: float32 on dense weights, the whole sequence at once. */
    BATCH("batch", NumericMode.EXACT),
    /** libtorch (module torch): float32 on the dense weights, the whole sequence at once; runs no native session. */
    TORCH("torch", NumericMode.EXACT);

    private static final ReferenceConfig FLOAT = new ReferenceConfig("reference q0 (quant=False, float KV)",
            ForwardOptions.DEFAULT, "strict");
    private static final ReferenceConfig QUANT_INT8_KV = new ReferenceConfig("reference quant=True with int8 KV emulation",
            ForwardOptions.DEFAULT.withQuant(true).withInt8Kv(true), "int8");
    private static final ReferenceConfig QUANT_FLOAT_KV = new ReferenceConfig("reference quant=True (A8 fake quant, float KV)",
            ForwardOptions.DEFAULT.withQuant(true), "quant");
    /** Needle 3's quant=True under its deploy settings (configure_deploy(8, 8)): A8 activations, A8 per head on Q, K and V. */
    private static final String V3_DEPLOY = "reference quant=True (Needle 3 deploy: A8 activations, A8 per head on Q, K and V)";
    private static final ReferenceConfig V3_QUANT_INT8 = new ReferenceConfig(V3_DEPLOY, ForwardOptions.DEFAULT.withQuant(true), "int8-v3");
    private static final ReferenceConfig V3_QUANT = new ReferenceConfig(V3_DEPLOY, ForwardOptions.DEFAULT.withQuant(true), "quant");

    private final String label;
    private final NumericMode mode;

    EngineMode(String label, NumericMode mode) {
        this.label = label;
        this.mode = mode;
    }

    public String label() {
        return label;
    }

    public NumericMode numericMode() {
        return mode;
    }

    /**
     * The reference run this engine is held to on a model of {@code generation}: its own numerics (q0 for the
     * float engines; for int8, Needle 2's quant=True with int8 KV emulation, Needle 3's deploy quant=True, whose
     * per-head A8 K/V upstream itself applies), or with {@code quant} upstream's quant=True for every engine,
     * which measures how far a float engine is from the A8 model upstream trains and evaluates.
     */
    public ReferenceConfig reference(boolean quant, Generation generation) {
        boolean v3 = generation == Generation.NEEDLE3;
        if (this == INT8) return v3 ? V3_QUANT_INT8 : QUANT_INT8_KV;
        if (!quant) return FLOAT;
        return v3 ? V3_QUANT : QUANT_FLOAT_KV;
    }

    /**
     * Runs {@code tokens} from position 0 on {@code engine} (opened in {@link #numericMode}), recording
     * every tap into {@code taps} (and the probe heads it asks for, pooled over the whole sequence): token by token
     * natively, or in one prefill on {@code batch} (opened on {@code engine}; unused otherwise) for {@link #BATCH}
     * ({@link #TORCH} runs no engine: see {@link ParityEngines#run}).
     */
    public void run(Engine engine, BatchPrefill batch, int[] tokens, TapSink taps) throws WorkbenchException {
        if (this == TORCH) throw new IllegalStateException("the torch engine runs on libtorch, not on a native engine");
        boolean heads = engine.probeHeads().stream().anyMatch(h -> taps.wants(ProbeHeadTaps.tapName(h)));
        Session session = this == BATCH ? engine.newSession() : engine.newSession(taps);
        if (heads) session.poolingProbeCells();
        if (this == BATCH) {
            batch.prefill(session, tokens, taps);
        } else {
            for (int token : tokens) session.step(token);
        }
        if (heads) ProbeHeadTaps.record(session.probeHeads(), taps);
    }

    /** By label ("exact", "int8", "batch", "torch"), or null. */
    public static EngineMode byLabel(String label) {
        for (EngineMode m : values()) if (m.label.equals(label)) return m;
        return null;
    }
}
