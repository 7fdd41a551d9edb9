package dev.needlewb.engine.grammar;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.core.tokenizer.Tokenizer;
import dev.needlewb.engine.generate.Sampler;
import dev.needlewb.engine.MiniTokenizer;
import dev.needlewb.golden.Golden;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Token-level property test: whatever the logits say (here: fresh random logits every step, the
 * worst case a model can be), the masked picks always end in a call list that parses as JSON and
 * validates against the raw tools schema (checked by {@link SchemaValidator}, which shares no
 * code with the automaton), within the token budget.
 */
class ConstrainedDecodingTest {
    static Tokenizer tokenizer;
    static TokenTrie tokens;
    static GrammarMasks masks;
    static JsonNode tools;

    @BeforeAll
    static void load() throws Exception {
        Path path = Golden.mini("mini.cact");
        try (CactFile cact = CactFile.open(path)) {
            tokenizer = MiniTokenizer.of(cact);
        }
        tokens = new TokenTrie(tokenizer);
        masks = new GrammarMasks(GrammarFixtures.grammar(), tokens);
        tools = new ObjectMapper().readTree(Files.readString(GrammarFixtures.toolsFile()));
    }

    record Run(int[] ids, boolean complete) {}

    static Run decode(long seed, int maxNew, Sampler sampler, double scale) {
        return decode(masks, seed, maxNew, sampler, scale);
    }

    /** Constrained picks from fresh Gaussian logits (standard deviation {@code scale}) every step. */
    static Run decode(GrammarMasks masks, long seed, int maxNew, Sampler sampler, double scale) {
        SplittableRandom random = new SplittableRandom(seed);
        ConstrainedDecoding d = new ConstrainedDecoding(masks, 8, null);
        List<Integer> ids = new ArrayList<>();
        float[] logits = new float[masks.tokens().vocab()];
        for (int count = 0; count < maxNew; count++) {
            for (int i = 0; i < logits.length; i++) logits[i] = (float) (random.nextGaussian() * scale);
            int t = d.choose(logits, sampler, maxNew - count);
            d.accept(t);
            if (t == masks.tokens().eosId()) break;
            ids.add(t);
        }
        return new Run(ids.stream().mapToInt(Integer::intValue).toArray(), d.complete());
    }

    @Test
    void everyOutputParsesAndValidatesWhateverTheLogits() throws Exception {
        ObjectMapper json = new ObjectMapper();
        int calls = 0, withArguments = 0;
        for (int run = 0; run < 300; run++) {
            int maxNew = 12 + run % 7 * 30;
            Sampler sampler = run % 2 == 0 ? Sampler.greedy() : Sampler.of(1.0, 1.0, run);
            Run r = decode(run, maxNew, sampler, 1 + run % 3 * 4);
            assertThat(r.complete()).as("run %d closed its call list within %d tokens", run, maxNew).isTrue();
            assertThat(r.ids().length).isLessThanOrEqualTo(maxNew);
            String text = ToolCallAnswer.callsJson(r.ids(), tokenizer);
            assertThat(text).as("run %d", run).isNotNull();
            JsonNode parsed = json.readTree(text);
            assertThat(SchemaValidator.calls(parsed, tools)).as("run %d: %s", run, text).isEmpty();
            calls += parsed.size();
            for (JsonNode c : parsed) if (!c.get("arguments").isEmpty()) withArguments++;
        }
        // the property must have been exercised on real calls, not only on empty lists
        assertThat(calls).isGreaterThan(100);
        assertThat(withArguments).isGreaterThan(50);
    }

    @Test
    void theShortestBudgetStillClosesTheList() throws Exception {
        ConstrainedDecoding d = new ConstrainedDecoding(masks, 8, null);
        int minimum = d.minimumTokens();
        assertThat(minimum).isEqualTo(4);
        for (long seed = 0; seed < 20; seed++) {
            Run r = decode(seed, minimum, Sampler.greedy(), 5);
            assertThat(r.complete()).isTrue();
            assertThat(ToolCallAnswer.callsJson(r.ids(), tokenizer)).isEqualTo("[]");
        }
    }
}
