package dev.needlewb.engine.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.core.tokenizer.Tokenizer;
import dev.needlewb.core.tokenizer.ToolSchemas;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.EngineOptions;
import dev.needlewb.engine.MiniTokenizer;
import dev.needlewb.golden.Golden;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ContrastiveHeadTest {
    static CactFile cact;
    static Engine exact;
    static ContrastiveHead head;
    static Tokenizer tokenizer;

    @BeforeAll
    static void open() throws Exception {
        Path path = Golden.mini("mini.cact");
        cact = CactFile.open(path);
        tokenizer = MiniTokenizer.of(cact);
        exact = Engine.load(cact, EngineOptions.exact(EngineOptions.FROM_HEADER));
        head = ContrastiveHead.of(cact);
    }

    @AfterAll
    static void close() {
        exact.close();
        cact.close();
    }

    /** Upstream encode_contrastive on the .cact's dequantized weights (golden heads.npz, quant=False). */
    @ParameterizedTest
    @ValueSource(strings = {"s001", "s007", "s040"}) // s300 is longer than the engine's 256 positions
    void matchesUpstreamEncodeContrastive(String sequence) {
        JsonNode seq = Golden.json(Golden.mini("sequences.json")).get(sequence);
        int[] tokens = StreamSupport.stream(seq.get("tokens").spliterator(), false).mapToInt(JsonNode::asInt).toArray();
        double[] want = Golden.array(Golden.mini("heads.npz"), "contrastive." + sequence + ".deq.q0").asDoubles();
        double[] got = head.embed(exact, tokens);
        double worst = 0;
        for (int i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(got[i] - want[i]));
        // a unit vector from float32 cells: the engine's exact mode keeps logits within ~1e-6 relative of float64
        assertThat(worst).as("max |engine - upstream| over %d components", want.length).isLessThan(1e-5);
    }

    @Test
    void ranksEveryToolWithScoresInCosineRange() throws Exception {
        ToolSchemas tools = ToolSchemas.parse("[{\"name\":\"weather\",\"description\":\"Weather for a city\",\"parameters\":{\"type\":\"object\"}},"
                + "{\"name\":\"alarm\",\"description\":\"Set an alarm\",\"parameters\":{\"type\":\"object\"}},"
                + "{\"name\":\"call\",\"description\":\"Phone a contact\",\"parameters\":{\"type\":\"object\"}}]", "t.json");
        ToolRetrieval retrieval = new ToolRetrieval(exact, head, tokenizer, tools);
        ToolRetrieval.Ranked[] ranked = retrieval.rank("What is the weather in Paris?");
        assertThat(Arrays.stream(ranked).mapToInt(ToolRetrieval.Ranked::index).sorted().toArray()).containsExactly(0, 1, 2);
        for (int i = 1; i < ranked.length; i++) assertThat(ranked[i].score()).isLessThanOrEqualTo(ranked[i - 1].score());
        // cosine of unit vectors, with float rounding of the norms (1e-9)
        for (ToolRetrieval.Ranked r : ranked) assertThat(Math.abs(r.score())).isLessThanOrEqualTo(1 + 1e-9);
        ToolSchemas top = retrieval.top("What is the weather in Paris?", 2);
        assertThat(top.names()).hasSize(2).isSubsetOf(tools.names());
        assertThat(top.names()).containsExactlyElementsOf(tools.names().stream().filter(top.names()::contains).toList());
        assertThat(retrieval.top("anything", 3).names()).isEqualTo(tools.names());
    }
}
