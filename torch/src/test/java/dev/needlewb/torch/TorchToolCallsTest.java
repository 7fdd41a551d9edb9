package dev.needlewb.torch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needlewb.golden.Golden;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code eval toolcalls --engine exact,torch}: prompts through libtorch answer short cases (the mini model has 256 positions) as native exact does. */
class TorchToolCallsTest {
    private static final String WEATHER = "{\"name\":\"get_weather\",\"parameters\":{\"type\":\"object\",\"properties\":"
            + "{\"city\":{\"type\":\"string\",\"maxLength\":12},\"days\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":7}},\"required\":[\"city\"]}}";
    private static final String ALARM = "{\"name\":\"alarm\",\"parameters\":{\"type\":\"object\",\"properties\":"
            + "{\"hour\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":23}},\"required\":[\"hour\"]}}";

    @Test
    void torchPromptsAgreeWithExact(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("r");
        Path cases = dir.resolve("cases.jsonl");
        Files.writeString(cases, String.join("\n",
                "{\"id\":\"w\",\"query\":\"Weather in Paris\",\"tools\":[" + WEATHER + "]}",
                "{\"id\":\"r\",\"query\":\"Rain in Rome?\",\"tools\":[" + WEATHER + "," + ALARM + "]}",
                "{\"id\":\"a\",\"query\":\"Wake me at 6\",\"tools\":[" + WEATHER + "," + ALARM + "]}",
                "{\"id\":\"o\",\"query\":\"Oslo weather for 3 days\",\"tools\":[" + WEATHER + "]}") + "\n");
        Cli run = Cli.run("eval", "toolcalls", Golden.mini("mini.cact").toString(), "--cases", cases.toString(),
                "--engine", "exact,torch", "--profile", "strict", "--out", out.toString());
        assertThat(run.exit()).as(run.err() + run.out()).isZero();
        JsonNode body = new ObjectMapper().readTree(out.resolve("toolcalls.json").toFile()).get("toolcalls");
        assertThat(body.get("cases").asInt()).isEqualTo(4);
        JsonNode agreement = body.get("agreement").get(0);
        assertThat(agreement.get("engine").asText()).isEqualTo("torch");
        // the prompt's logits differ from native prefill's by < 2e-6 of the row's largest (TorchPrefillTest):
        // greedy picks can only differ at a near-tie, which the strict profile would report
        assertThat(agreement.get("call_agreement").asDouble()).isEqualTo(1.0);
    }
}
