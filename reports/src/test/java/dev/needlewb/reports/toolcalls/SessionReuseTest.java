package dev.needlewb.reports.toolcalls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.engine.kernel.NumericMode;
import dev.needlewb.golden.Golden;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A case's answer must not depend on the cases the same engine answered before it (state leaking
 * between requests is a known failure of the official engine): each case answered after all the
 * others by one reused session gives the same ids, bit for bit, as a fresh engine answering it alone.
 */
class SessionReuseTest {
    @ParameterizedTest
    @EnumSource(NumericMode.class)
    void answersDoNotDependOnEarlierCases(NumericMode mode) throws Exception {
        Path path = Golden.mini("mini.cact");
        try (CactFile cact = CactFile.open(path)) {
            ToolCallRunner runner = MiniCases.runner(cact);
            List<ToolCallRunner.Prepared> prepared = MiniCases.prepared(runner);
            List<int[]> reused = new ArrayList<>();
            try (CaseEngine engine = new NativeCaseEngine("e", cact, mode, NativeCaseEngine.PromptPath.NATIVE, 2)) {
                // in reverse, so every case but the last runs after others
                for (int i = prepared.size() - 1; i >= 0; i--) reused.add(0, engine.answer(runner, prepared.get(i), 48).ids());
            }
            for (int i = 0; i < prepared.size(); i++) {
                try (CaseEngine fresh = new NativeCaseEngine("e", cact, mode, NativeCaseEngine.PromptPath.NATIVE, 2)) {
                    assertThat(fresh.answer(runner, prepared.get(i), 48).ids()).as("case %d", i).containsExactly(reused.get(i));
                }
            }
        }
    }

    @Test
    void numbersCompareByValueAndArgumentsAreTalliedPerTool() {
        var a = CallComparison.parse("[{\"name\":\"t\",\"arguments\":{\"x\":1.0,\"y\":\"a\"}}]");
        var b = CallComparison.parse("[{\"name\":\"t\",\"arguments\":{\"y\":\"b\",\"x\":1}}]");
        assertThat(CallComparison.sameNames(a, b)).isTrue();
        assertThat(CallComparison.sameCalls(a, b)).isFalse();
        var tally = new java.util.TreeMap<String, int[]>();
        CallComparison.arguments(a, b, tally);
        assertThat(tally.get("t.x")).containsExactly(1, 1);
        assertThat(tally.get("t.y")).containsExactly(0, 1);
        assertThat(CallComparison.parse("[{\"name\"")).isNull();
    }
}
