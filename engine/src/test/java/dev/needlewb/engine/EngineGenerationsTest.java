package dev.needlewb.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.golden.Golden;
import org.junit.jupiter.api.Test;

/** The engine runs the generations its registry lists and names the others in its refusal. */
class EngineGenerationsTest {
    @Test
    void aNeedle2FileLoadsThroughTheRegistry() throws Exception {
        try (CactFile cact = CactFile.open(Golden.mini("mini.cact"))) {
            EngineGenerations.require(cact);
            try (Engine engine = Engine.load(cact, EngineOptions.production())) {
                assertThat(engine.geometry()).isEqualTo(cact.geometry());
            }
        }
    }

    @Test
    void aGenerationWithoutAnEngineIsRefusedByName() {
        assertThat(EngineGenerations.find(Generation.NEEDLE2)).isPresent();
        assertThat(EngineGenerations.find(Generation.NEEDLE3)).isEmpty();
        assertThat(EngineGenerations.notRun(Generation.NEEDLE3)).isEqualTo("Needle 3 files are not run by the engine yet (it runs Needle 2)");
    }
}
