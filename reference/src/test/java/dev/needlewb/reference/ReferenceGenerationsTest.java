package dev.needlewb.reference;

import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.convert.WeightSources;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.golden.Golden;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The reference of a model is the one its generation registers; a generation without one is refused by name. */
class ReferenceGenerationsTest {
    @Test
    void needle2WeightsGetTheNeedle2Reference() throws Exception {
        ModelWeights weights;
        try (CactFile cact = CactFile.open(Golden.mini("mini.cact"))) {
            weights = WeightSources.fromCact(cact, false);
        }
        ReferenceForward ref = ReferenceGenerations.of(Generation.NEEDLE2, Path.of("mini.cact")).fromWeights(weights);
        assertThat(ref).isInstanceOf(ReferenceModel.class);
        assertThat(ref.geometry()).isEqualTo(weights.names().geometry());
        assertThat(ref.forward(new int[] {2, 5, 6}, ForwardOptions.DEFAULT)[2]).hasSize(ref.geometry().outVocab());
    }

    @Test
    void aGenerationWithoutAReferenceIsOneLineNamingTheFile() {
        // the wording is the point: one line naming the file and what this version lacks
        assertThat(refused(ErrorKind.WRONG_GENERATION, () -> ReferenceGenerations.of(Generation.NEEDLE3, Path.of("mini3.cact"))))
                .hasMessage("mini3.cact: Needle 3 models have no float64 reference in this version yet");
    }
}
