package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.engine.BatchPrefill;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.EngineOptions;
import dev.needlewb.engine.Prefill;
import dev.needlewb.golden.Golden;
import dev.needlewb.reports.report.Report;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code generate --heads} on upstream's Needle 3 mini file (a confidence head), and the inputs it refuses in one line. */
class GenerateHeadsCliTest {
    @Test
    void jsonCarriesTheConfidenceHeadOverThePrompt() throws Exception {
        Path v3 = Golden.v3mini("mini3.cact");
        for (String prefill : new String[] {"native", "batch"}) {
            CliRun run = CliRun.of("generate", v3.toString(), "--prompt", "hello world", "--max-new", "2", "--mode", "exact", "--prefill", prefill,
                    "--heads", "--json");
            assertThat(run.exit()).as(run.err()).isZero();
            JsonNode out = Report.JSON.readTree(run.out());
            JsonNode heads = out.path("heads");
            double logit = heads.path("confidence_logit").asDouble();
            assertThat(heads.path("confidence").asDouble()).isEqualTo(1 / (1 + Math.exp(-logit)));
            assertThat(heads.has("router_logits")).isFalse();
            int[] prompt = new int[out.path("prompt_ids").size()];
            for (int i = 0; i < prompt.length; i++) prompt[i] = out.path("prompt_ids").get(i).asInt();
            // the same as the engine's API on the prompt the command printed, within float32 rounding of the prefill path
            try (Engine e = Engine.open(v3, EngineOptions.exact(prompt.length)); BatchPrefill b = BatchPrefill.open(e)) {
                double want = e.probeHeads(prompt, prefill.equals("batch") ? b : Prefill.NATIVE).confidenceLogit();
                assertThat(logit).as(prefill).isEqualTo(want);
            }
        }
        CliRun text = CliRun.of("generate", v3.toString(), "--prompt", "hello world", "--max-new", "2", "--heads");
        assertThat(text.exit()).as(text.err()).isZero();
        assertThat(text.out()).contains("confidence: logit ");
    }

    @Test
    void aModelWithoutNeedle3HeadsAndTheTorchPrefillAreRefused() throws Exception {
        CliRun v2 = CliRun.of("generate", MiniVariants.mini().toString(), "--prompt", "hi", "--max-new", "2", "--heads");
        assertThat(v2.exit()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(v2.err().strip()).doesNotContain("\n").contains("--heads").contains("Needle 2");
        CliRun torch = CliRun.of("generate", Golden.v3mini("mini3.cact").toString(), "--prompt", "hi", "--heads", "--prefill", "torch");
        assertThat(torch.exit()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(torch.err().strip()).doesNotContain("\n").contains("--heads with --prefill torch");
    }
}
