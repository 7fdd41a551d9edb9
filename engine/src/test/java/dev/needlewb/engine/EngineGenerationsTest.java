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
    void aNeedle3FileLoadsThroughTheRegistryWithItsOwnShape() throws Exception {
        try (CactFile cact = CactFile.open(Golden.v3mini("mini3.cact"))) {
            EngineGenerations.require(cact);
            try (Engine engine = Engine.load(cact, EngineOptions.exact(64))) {
                assertThat(engine.geometry()).isEqualTo(cact.geometry());
                assertThat(engine.windowText()).isEqualTo("16 (global layers [2]) (the model's sliding_window)");
                Session s = engine.newSession();
                assertThat(s.step(2)).hasSize(cact.geometry().outVocab());
            }
        }
    }

    @Test
    void everyGenerationHasAnEngine() {
        for (Generation g : Generation.values()) assertThat(EngineGenerations.find(g)).as(g.toString()).isPresent();
    }
}
