package dev.needlewb.reference;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.convert.WeightSources;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.golden.Golden;
import org.junit.jupiter.api.Test;

/** The reference of a model is the one its generation registers. */
class ReferenceGenerationsTest {
    @Test
    void needle2WeightsGetTheNeedle2Reference() throws Exception {
        ModelWeights weights;
        try (CactFile cact = CactFile.open(Golden.mini("mini.cact"))) {
            weights = WeightSources.fromCact(cact, false);
        }
        ReferenceForward ref = ReferenceGenerations.of(Generation.NEEDLE2).fromWeights(weights);
        assertThat(ref).isInstanceOf(ReferenceModel.class);
        assertThat(ref.geometry()).isEqualTo(weights.names().geometry());
        assertThat(ref.forward(new int[] {2, 5, 6}, ForwardOptions.DEFAULT)[2]).hasSize(ref.geometry().outVocab());
    }

    @Test
    void aNeedle3CheckpointAndCactBothGetTheNeedle3Reference() throws Exception {
        var ckpt = dev.needlewb.converter.flax.v3.V3CheckpointReader.read(Golden.v3mini("mini3.ckpt.pkl"));
        var geometry = new dev.needlewb.converter.flax.v3.V3ConfigGeometry(ckpt.config());
        ReferenceForward ref = ReferenceGenerations.of(Generation.NEEDLE3).fromFlaxParams(ckpt.params(), geometry);
        assertThat(ref).isInstanceOf(dev.needlewb.reference.v3.V3Reference.class);
        assertThat(ref.forward(new int[] {2, 5, 6}, ForwardOptions.DEFAULT)[2]).hasSize(geometry.outVocab());
        ModelWeights weights;
        try (CactFile cact = CactFile.open(Golden.v3mini("mini3.cact"))) {
            weights = WeightSources.fromCact(cact, false);
        }
        ReferenceForward fromCact = ReferenceGenerations.of(Generation.NEEDLE3).fromWeights(weights);
        assertThat(fromCact).isInstanceOf(dev.needlewb.reference.v3.V3Reference.class);
        assertThat(fromCact.geometry().outVocab()).isEqualTo(geometry.outVocab());
    }
}
