package dev.needlewb.reports.toolcalls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.engine.kernel.NumericMode;
import dev.needlewb.golden.Golden;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code eval toolcalls}' native engine on upstream's Needle 3 mini file (sliding window 16 with a global layer,
 * a QKV conv of 3 taps): answering the cases with prompt prefixes shared between them gives every case the same
 * ids, calls and candidate probabilities (computed from the logits of every decode step), bit for bit, as
 * answering each with nothing shared, while stepping fewer prompt tokens.
 */
class V3PrefixSharingTest {
    @ParameterizedTest
    @EnumSource(NumericMode.class)
    void sharedPrefixesChangeNoAnswerAndStepFewerTokens(NumericMode mode) throws Exception {
        try (CactFile cact = CactFile.open(Golden.v3mini("mini3.cact"))) {
            ToolCallRunner runner = MiniCases.runner(cact);
            List<ToolCallRunner.Prepared> prepared = MiniCases.prepared(runner);
            List<Answer> shared = new ArrayList<>(), alone = new ArrayList<>();
            try (CaseEngine sharing = new NativeCaseEngine("shared", cact, mode, NativeCaseEngine.PromptPath.NATIVE, 1);
                 CaseEngine forgetting = new NativeCaseEngine("alone", cact, mode, NativeCaseEngine.PromptPath.NATIVE, 1)) {
                for (ToolCallRunner.Prepared p : prepared) {
                    shared.add(sharing.answer(runner, p, 24));
                    forgetting.forgetPrefixes();
                    alone.add(forgetting.answer(runner, p, 24));
                }
            }
            long steppedShared = 0, steppedAlone = 0, prompt = 0;
            for (int i = 0; i < prepared.size(); i++) {
                Answer s = shared.get(i), a = alone.get(i);
                assertThat(s.ids()).as("case %d ids", i).containsExactly(a.ids());
                assertThat(s.calls()).as("case %d calls", i).isEqualTo(a.calls());
                assertThat(s.steps()).as("case %d steps", i).hasSameSizeAs(a.steps());
                for (int t = 0; t < s.steps().size(); t++) {
                    assertThat(s.steps().get(t).ids()).as("case %d step %d", i, t).containsExactly(a.steps().get(t).ids());
                    assertThat(s.steps().get(t).probs()).as("case %d step %d", i, t).containsExactly(a.steps().get(t).probs());
                }
                steppedShared += s.promptTokensStepped();
                steppedAlone += a.promptTokensStepped();
                prompt += a.promptTokens();
            }
            assertThat(steppedAlone).isEqualTo(prompt);
            // the cases share their system turn and tools block
            assertThat(steppedShared).isLessThan(prompt / 2);
        }
    }
}
