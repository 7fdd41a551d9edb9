package dev.needlewb.reference;

import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.convert.WeightSources;
import dev.needlewb.converter.convert.WeightTargets;
import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.names.NameRow;
import dev.needlewb.converter.names.Transform;
import dev.needlewb.golden.Golden;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reference read straight from .cact-layout tensors is the reference read from the stacked
 * Flax tree the converter builds of the same tensors: every leaf and every layer slice bit for
 * bit, and so the logits (exact equality: the same float32 values widened the same way).
 */
class TensorLeavesTest {
    private static Geometry geometry;
    private static ModelWeights weights;
    private static Map<String, NpyArray> tree;

    @BeforeAll
    static void load() throws WorkbenchException {
        try (CactFile cact = CactFile.open(Golden.mini("mini.cact"))) {
            geometry = Geometry.of(cact.geometry());
            weights = WeightSources.fromCact(cact, false);
        }
        tree = WeightTargets.checkpoint(weights, new FlaxCheckpoint(FlaxCheckpoint.FORMAT_VERSION, new LinkedHashMap<>(), Map.of(), null, Map.of())).params();
    }

    @Test
    void everyLeafAndLayerSliceEqualsTheStackedTree() throws WorkbenchException {
        FlaxLeaves tensors = new TensorLeaves(weights);
        FlaxLeaves stacked = new StackedLeaves(tree);
        assertThat(tree).hasSizeGreaterThan(20);
        for (var e : tree.entrySet()) {
            String key = e.getKey();
            assertThat(tensors.shape(key)).as(key).containsExactly(e.getValue().shape());
            assertThat(tensors.descr(key)).as(key).isEqualTo(e.getValue().descr());
            assertThat(tensors.widen(key)).as(key).isEqualTo(stacked.widen(key));
            int[] shape = e.getValue().shape();
            if (shape.length < 2) continue;
            for (int l = 0; l < shape[0]; l++) {
                assertThat(tensors.widenLayer(key, l)).as(key + " layer " + l).isEqualTo(stacked.widenLayer(key, l));
            }
        }
        assertThat(tensors.shape("no/such/leaf")).isNull();
        assertThat(tensors.hasTree("contrastive_head")).isEqualTo(stacked.hasTree("contrastive_head"));
    }

    @Test
    void theModelsGiveIdenticalLogits() throws WorkbenchException {
        int[] ids = MiniGolden.tokens("s040");
        double[][] fromTensors = ReferenceModel.fromWeights(weights, geometry).forward(ids, ForwardOptions.DEFAULT);
        double[][] fromTree = ReferenceModel.fromFlaxParams(tree, geometry).forward(ids, ForwardOptions.DEFAULT);
        assertThat(fromTensors).isDeepEqualTo(fromTree);
    }

    @Test
    void aNonZeroContrastiveBiasIsRefusedAsTheCheckpointWriterRefusesIt() {
        NameRow bias = weights.names().rows().stream().filter(r -> r.transform() == Transform.ZERO_FILL).findFirst().orElseThrow();
        float[] values = new float[Math.toIntExact(NpyArray.elementCount(bias.shape()))];
        values[values.length - 1] = 0.5f;
        var tensors = new LinkedHashMap<>(weights.tensors());
        tensors.put(bias.name(), NpyArray.ofFloats(bias.shape(), values));
        ModelWeights withBias = new ModelWeights(weights.names(), tensors, null);
        assertThat(refused(ErrorKind.UNSUPPORTED, () -> ReferenceModel.fromWeights(withBias, geometry))).hasMessageContaining(bias.torchKey());
    }
}
