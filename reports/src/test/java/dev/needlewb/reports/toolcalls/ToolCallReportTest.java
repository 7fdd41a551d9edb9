package dev.needlewb.reports.toolcalls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.tokenizer.ToolSchemas;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The tool-call report's table and verdict follow the answers it compares; its page has one h1. */
class ToolCallReportTest {

    private static Answer answer(String calls) {
        return new Answer(new int[] {5, 6, 7}, calls, List.of(), 2, 2_000_000, 3_000_000, 40, 30);
    }

    @Test
    void agreementRowAndVerdictFollowTheAnswers() throws Exception {
        String weather = "[{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}]";
        ToolSchemas none = ToolSchemas.parse("[]", "t");
        List<ToolCallCase> cases = List.of(new ToolCallCase("one", 1, "weather?", "", none, null, null),
                new ToolCallCase("two", 2, "time?", "", none, null, null));
        List<ToolCallEval.EngineRun> runs = List.of(
                new ToolCallEval.EngineRun("exact", List.of(answer(weather), answer("[{\"name\":\"get_time\",\"arguments\":{}}]")), 1),
                new ToolCallEval.EngineRun("int8", List.of(answer(weather), answer("[{\"name\":\"get_date\",\"arguments\":{}}]")), 1));
        ToolCallEval eval = new ToolCallEval(cases, List.of());
        ToolCallReport report = new ToolCallReport(eval, runs, ThresholdProfile.named("strict"), null, 2);
        Agreement a = eval.agreements(runs).getFirst();
        assertThat(a.callRate()).isEqualTo(0.5);

        String md = report.markdown(List.of());
        assertThat(md).startsWith("# Tool-call agreement: FAIL (profile strict)\n\n2 cases,");
        assertThat(md).contains(String.format(Locale.ROOT, "| int8 vs exact | 50.0%% | 50.0%% | %s | 0 | FAIL |",
                Double.isNaN(a.argumentRate()) ? "n/a" : String.format(Locale.ROOT, "%.1f%%", 100 * a.argumentRate())));
        String html = report.html();
        assertThat(html.split("<h1>", -1)).as("one h1").hasSize(2);
        assertThat(html).contains("<p class=\"fail\">FAIL under profile strict</p>");
    }
}
