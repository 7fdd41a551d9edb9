package dev.needlewb.reference.v3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.convert.WeightSources;
import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.converter.names.BitsMap;
import dev.needlewb.converter.synth.SyntheticV3Cact;
import dev.needlewb.converter.v3.V3HeadShape;
import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.core.v3.V3Geometry;
import dev.needlewb.golden.Golden;
import dev.needlewb.reference.MiniGolden;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The Needle 3 reference built from a .cact alone: its config from the header and tensor shapes. */
class V3StoredModelTest {
    /**
     * The .cact's CQ dequantization equals upstream's stored float32 values bit for bit
     * (CactFileGoldenTest's rule), so the model is the golden deq model and the float64 tolerance
     * of {@link V3ForwardGoldenTest#TOLERANCE} applies.
     */
    @ParameterizedTest
    @ValueSource(strings = {"s001", "s007", "s040"})
    void goldenCactGivesTheDeqLogits(String seq) throws Exception {
        V3Model model = fromCact(Golden.v3mini("mini3.cact"));
        double[][] logits = model.forward(V3Golden.tokens(seq), V3Options.DEFAULT);
        String item = "logits." + seq + ".deq.q0";
        double err = MiniGolden.relativeError(MiniGolden.flat(logits), V3Golden.array("forward.npz", item).asDoubles());
        assertThat(err).as("%s relative error", item).isLessThan(V3ForwardGoldenTest.TOLERANCE);
    }

    @Test
    void configIsTheCheckpointsWhereTheFileCanTell() throws Exception {
        V3Config fromFile = fromCact(Golden.v3mini("mini3.cact")).config();
        V3Config ckpt = V3Golden.checkpoint().config();
        assertThat(fromFile.qkDim()).isEqualTo(ckpt.qkDim());
        assertThat(fromFile.vDim()).isEqualTo(ckpt.vDim());
        assertThat(fromFile.globalLayers()).isEqualTo(ckpt.globalLayers());
        assertThat(fromFile.slidingWindow()).isEqualTo(ckpt.slidingWindow());
        assertThat(fromFile.qkvConvTaps()).isEqualTo(ckpt.qkvConvTaps());
        assertThat(fromFile.engram().tables()).isEqualTo(ckpt.engram().tables());
        assertThat(fromFile.engram().subDim()).isEqualTo(ckpt.engram().subDim());
        assertThat(fromFile.engramSeedStride()).isEqualTo(ckpt.engramSeedStride());
        assertThat(fromFile.engramLayers()).isEqualTo(ckpt.engramLayers());
        assertThat(fromFile.logitRows()).isEqualTo(ckpt.logitRows());
        assertThat(fromFile.attentionGate()).isEqualTo(ckpt.attentionGate());
        assertThat(fromFile.hadaFactorMode()).isEqualTo(ckpt.hadaFactorMode());
    }

    @Test
    void shapesRevealTheHeadsAndTheirWidths(@TempDir Path dir) throws Exception {
        V3Geometry g = V3Geometry.mini();
        var heads = List.of(new V3HeadShape(V3ProbeHead.EMBEDDING, 3, 2, 24), new V3HeadShape(V3ProbeHead.ROUTER, 2, 5, 3));
        Path file = dir.resolve("heads.cact");
        Files.write(file, CactWriter.toBytes(SyntheticV3Cact.build(g, 5, BitsMap.parse("default=4"), heads, null)));
        V3Config c = fromCact(file).config();
        assertThat(c.embeddingProbes()).isEqualTo(3);
        assertThat(c.embeddingQueries()).isEqualTo(2);
        assertThat(c.embeddingDim()).isEqualTo(24);
        assertThat(c.routerProbes()).isEqualTo(2);
        assertThat(c.routerQueries()).isEqualTo(5);
    }

    static V3Model fromCact(Path path) throws Exception {
        ModelWeights w;
        try (CactFile cact = CactFile.open(path)) {
            w = WeightSources.fromCact(cact, false);
        }
        return V3StoredModel.load(w);
    }
}
