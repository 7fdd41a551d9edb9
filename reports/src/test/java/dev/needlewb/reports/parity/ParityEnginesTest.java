package dev.needlewb.reports.parity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.convert.WeightSources;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.engine.torch.TorchSource;
import dev.needlewb.golden.Golden;
import dev.needlewb.reference.ReferenceForward;
import dev.needlewb.reference.ReferenceGenerations;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A sweep over prompts loads each engine once and gets, prompt after prompt, what a one-shot parity run gets. */
class ParityEnginesTest {
    private static final TorchSource NO_TORCH = null;
    private static final List<EngineMode> MODES = List.of(EngineMode.EXACT, EngineMode.INT8, EngineMode.BATCH);

    @Test
    void enginesKeptAcrossPromptsGiveTheOneShotRunsBitForBit() throws Exception {
        try (CactFile cact = CactFile.open(Golden.v3mini("mini3.cact"))) {
            ReferenceForward reference = ReferenceGenerations.of(Generation.NEEDLE3).fromWeights(WeightSources.fromCact(cact, false));
            // Prompts longer and shorter than v3mini's 16-position window, the long one first so that a kept
            // session state would show in the short one.
            int[][] prompts = {ids(40, 3), ids(5, 11), ids(23, 7)};
            try (ParityEngines kept = new ParityEngines(cact, null, 0, 0, cact.geometry().maxSeqLen())) {
                for (int[] prompt : prompts) {
                    for (EngineMode mode : MODES) {
                        List<Parity.ReferenceRun> refs = List.of(new Parity.ReferenceRun(reference, null,
                                Map.of(mode, ToleranceProfile.resolve(mode.reference(false, Generation.NEEDLE3).defaultProfile()))));
                        Comparison sweep = Parity.run(refs, cact, kept, prompt, 0, 0, List.of(mode), false).againstReference().getFirst();
                        Comparison once = Parity.run(refs, cact, NO_TORCH, prompt, 0, 0, List.of(mode), false).againstReference().getFirst();
                        assertThat(sweep.taps()).hasSameSizeAs(once.taps());
                        for (int t = 0; t < once.taps().size(); t++) {
                            assertThat(sweep.taps().get(t).metrics()).as(mode + " " + once.taps().get(t).name()).isEqualTo(once.taps().get(t).metrics());
                        }
                        assertThat(sweep.passed()).isTrue();
                    }
                }
                assertThat(kept.enginesLoaded()).isEqualTo(MODES.size());
            }
        }
    }

    private static int[] ids(int n, int seed) {
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) ids[i] = 20 + (i * 37 + seed * 11) % 400;
        return ids;
    }
}
