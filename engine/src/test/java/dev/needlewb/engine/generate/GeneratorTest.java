package dev.needlewb.engine.generate;

import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.core.tokenizer.TokenizerVocab;
import dev.needlewb.engine.BatchPrefill;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.EngineOptions;
import dev.needlewb.core.tokenizer.Tokenizer;
import dev.needlewb.golden.Golden;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("width")
class GeneratorTest {
    static CactFile cact;
    static Engine exact;
    static Generator generator;
    static Tokenizer tokenizer;

    @BeforeAll
    static void open() throws Exception {
        Path path = Golden.mini("mini.cact");
        cact = CactFile.open(path);
        TensorRecord record = cact.tensors().getLast();
        tokenizer = new Tokenizer(TokenizerVocab.parse(cact.tokenizerBlob(), path, record.index(), record.offset()));
        exact = Engine.load(cact, EngineOptions.exact(EngineOptions.FROM_HEADER));
        generator = new Generator(exact, tokenizer);
    }

    @AfterAll
    static void close() {
        exact.close();
        cact.close();
    }

    static int[] ints(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false).mapToInt(JsonNode::asInt).toArray();
    }

    @Test
    void exactGreedyReproducesUpstreamCachedGeneration() throws Exception {
        JsonNode want = Golden.json(Golden.mini("decode.json")).get("generate_cached").get("deq.kv0");
        int[] prompt = ints(want.get("prompt_ids"));
        // The golden prompt is BOS + encode(prompt text): our tokenizer must give the same ids.
        int[] encoded = tokenizer.encode("What is the weather in Paris?");
        assertThat(prompt[0]).isEqualTo(tokenizer.bosId());
        assertThat(java.util.Arrays.copyOfRange(prompt, 1, prompt.length)).containsExactly(encoded);
        // Exact ids: the golden run's smallest top1-top2 logit margin (0.785) dwarfs the engine's
        // float32-vs-float64 logit error, so greedy picks cannot flip.
        Generator.Result r = generator.generate(prompt, want.get("max_new_tokens").asInt(), Sampler.greedy(), true, null);
        assertThat(r.generatedIds()).containsExactly(ints(want.get("generated_ids")));
        assertThat(r.text()).isEqualTo(want.get("text").asText());
        assertThat(r.stopReason()).isEqualTo(Generator.StopReason.MAX_NEW);
        assertThat(r.timings().decodeSteps()).isEqualTo(r.generatedIds().length - 1);
    }

    @Test
    void batchPrefillGeneratesTheUpstreamIdsToo() throws Exception {
        JsonNode want = Golden.json(Golden.mini("decode.json")).get("generate_cached").get("deq.kv0");
        int[] prompt = ints(want.get("prompt_ids"));
        try (BatchPrefill batch = BatchPrefill.open(exact)) {
            // The batch prompt's logits are within float32 rounding of native ones, far inside the 0.785 margin.
            Generator.Result r = new Generator(exact, tokenizer, batch).generate(prompt, want.get("max_new_tokens").asInt(),
                    Sampler.greedy(), true, null);
            assertThat(r.generatedIds()).containsExactly(ints(want.get("generated_ids")));
        }
    }

    @Test
    void streamedDeltasConcatenateToTheFinalText() throws Exception {
        int[] prompt = {tokenizer.bosId(), 300, 301, 302};
        List<Integer> ids = new ArrayList<>();
        StringBuilder streamed = new StringBuilder();
        Generator.Result r = generator.generate(prompt, 20, Sampler.of(1.5, 1, 7), false, (id, delta) -> {
            if (id >= 0) ids.add(id);
            streamed.append(delta);
        });
        assertThat(ids).containsExactlyElementsOf(java.util.Arrays.stream(r.generatedIds()).boxed().toList());
        assertThat(streamed.toString()).isEqualTo(r.text());
    }

    @Test
    void aSeedFixesTheSampleAndDifferentSeedsDiffer() throws Exception {
        int[] prompt = {tokenizer.bosId(), 300, 301, 302};
        int[] a = generator.generate(prompt, 16, Sampler.of(1.0, 0.9, 42), false, null).generatedIds();
        int[] b = generator.generate(prompt, 16, Sampler.of(1.0, 0.9, 42), false, null).generatedIds();
        assertThat(a).containsExactly(b);
        boolean someSeedDiffers = false;
        for (long seed = 1; seed <= 5 && !someSeedDiffers; seed++) {
            int[] c = generator.generate(prompt, 16, Sampler.of(1.0, 0.9, seed), false, null).generatedIds();
            someSeedDiffers = !java.util.Arrays.equals(a, c);
        }
        assertThat(someSeedDiffers).isTrue();
    }

    @Test
    void generationStopsWhenTheSessionIsFull() throws Exception {
        try (Engine small = Engine.load(cact, EngineOptions.exact(6))) {
            Generator.Result r = new Generator(small, tokenizer).generate(new int[] {tokenizer.bosId(), 300, 301, 302}, 10,
                    Sampler.greedy(), false, null);
            assertThat(r.generatedIds()).hasSize(2);
            assertThat(r.stopReason()).isEqualTo(Generator.StopReason.MAX_POSITIONS);
        }
    }

    @Test
    void tinyNucleusIsGreedy() {
        float[] logits = {0.1f, 3f, 2.9f, -1f};
        // top-p 0.01 keeps only the most likely token whatever the temperature or seed.
        Sampler s = Sampler.of(5.0, 0.01, 3);
        for (int i = 0; i < 50; i++) assertThat(s.next(logits)).isEqualTo(1);
        assertThat(Sampler.greedy().next(new float[] {1f, 2f, 2f})).isEqualTo(1);
    }

    @Test
    void badPromptsAreUserErrors() throws Exception {
        try (Engine small = Engine.load(cact, EngineOptions.exact(3))) {
            Generator g = new Generator(small, tokenizer);
            refused(ErrorKind.BAD_PROMPT, () -> g.generate(new int[] {2, 300, 301, 302}, 4, Sampler.greedy(), true, null));
        }
        refused(ErrorKind.BAD_PROMPT, () -> generator.generate(new int[] {2, 99999}, 4, Sampler.greedy(), true, null));
        refused(ErrorKind.BAD_PROMPT, () -> generator.generate(new int[0], 4, Sampler.greedy(), true, null));
        try (Engine small = Engine.load(cact, EngineOptions.exact(3)); BatchPrefill batch = BatchPrefill.open(small)) {
            Generator g = new Generator(small, tokenizer, batch);
            refused(ErrorKind.BAD_PROMPT, () -> g.generate(new int[] {2, 300, 301, 302}, 4, Sampler.greedy(), true, null));
            refused(ErrorKind.BAD_PROMPT, () -> g.generate(new int[] {2, 99999}, 4, Sampler.greedy(), true, null));
        }
    }
}
