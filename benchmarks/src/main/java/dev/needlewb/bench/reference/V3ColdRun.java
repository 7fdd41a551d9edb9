package dev.needlewb.bench.reference;

import dev.needlewb.bench.PhaseClock;
import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.reference.v3.SyntheticV3Params;
import dev.needlewb.reference.v3.V3Decoder;
import dev.needlewb.reference.v3.V3Model;
import dev.needlewb.reference.v3.V3Options;
import java.util.EnumSet;
import java.util.Map;

/**
 * A timed harness for the cold Needle 3 reference run on the released geometry, in this fresh
 * JVM: the model built from a synthetic parameter tree and its first 256-token forward (the
 * "cold" figure), then a warm forward and cached decode steps. Prints wall and process CPU time
 * of each phase and the machine's load ({@link PhaseClock}). Run:
 * {@code java --add-modules=jdk.incubator.vector --enable-native-access=ALL-UNNAMED -Xmx8g
 * -cp benchmarks/target/benchmarks.jar dev.needlewb.bench.reference.V3ColdRun}.
 */
public final class V3ColdRun {
    private static final int PROMPT = 256;
    private static final int STEPS = 32;

    private V3ColdRun() {}

    public static void main(String[] args) throws Exception {
        PhaseClock.printLoad("at start");
        PhaseClock t = new PhaseClock();
        V3Config config = V3Config.released();
        Map<String, NpyArray> params = SyntheticV3Params.flax(config, EnumSet.of(V3ProbeHead.CONFIDENCE), 7);
        int[] prompt = ReferenceBench.tokens(PROMPT, config.vocabSize(), 11);
        t.phase("synthetic tree (not part of the run)");
        V3Model model = V3Model.load(params, config);
        double[] load = t.phase("load: widen and check every weight");
        model.forward(prompt, V3Options.DEFAULT);
        double[] first = t.phase("first forward, 256 tokens");
        System.out.printf("cold run (load + first forward): wall %.2f s, cpu %.2f s%n", load[0] + first[0], load[1] + first[1]);
        model.forward(prompt, V3Options.DEFAULT);
        t.phase("second forward, 256 tokens");
        V3Decoder decoder = model.decoder(PROMPT + 2 * STEPS, V3Options.DEFAULT);
        decoder.prefill(prompt);
        t.phase("decoder prefill, 256 tokens");
        int[] next = ReferenceBench.tokens(2 * STEPS, config.vocabSize(), 13);
        for (int i = 0; i < STEPS; i++) decoder.step(next[i]);
        t.phase(STEPS + " first decode steps (single-row weight copies made on the way)");
        for (int i = STEPS; i < 2 * STEPS; i++) decoder.step(next[i]);
        double[] steps = t.phase(STEPS + " next decode steps");
        System.out.printf("decode step: wall %.1f ms, cpu %.1f ms%n", 1000 * steps[0] / STEPS, 1000 * steps[1] / STEPS);
        PhaseClock.printLoad("at the end");
    }
}
