package dev.needlewb.reports.parity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactModel;
import dev.needlewb.converter.cact.CactTensor;
import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.converter.convert.WeightSources;
import dev.needlewb.converter.names.BitsMap;
import dev.needlewb.converter.synth.SyntheticV3Cact;
import dev.needlewb.converter.v3.V3HeadShape;
import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.v3.V3Geometry;
import dev.needlewb.engine.BatchPrefill;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.EngineOptions;
import dev.needlewb.engine.Prefill;
import dev.needlewb.engine.kernel.NumericMode;
import dev.needlewb.engine.probe.ProbeOutputs;
import dev.needlewb.reference.ForwardOptions;
import dev.needlewb.reference.ReferenceForward;
import dev.needlewb.reference.ReferenceGenerations;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The engine's three Needle 3 probe heads on the twelve geometries drawn by upstream's rules ({@link V3EngineGeometryTest#draw}),
 * each head with its own probes k and queries q, against the float64 reference on the same file's stored weights:
 * exact mode (token by token and in a batch prefill) against quant=False, int8 against the deploy quant=True. The
 * prompt ends in PAD tokens, which upstream's keep mask leaves out of the pool. The heads' FP16 gain, row bias and
 * bias are redrawn near unit scale (the generic synthetic's 0.02 would leave every head at its bias).
 */
@Tag("width")
public class V3EngineHeadsTest {
    private static final int POSITIONS = 24;
    private static final int TRAILING_PADS = 3;

    @ParameterizedTest
    @MethodSource("dev.needlewb.reports.parity.V3EngineGeometryTest#seeds")
    void headsMatchTheReference(long seed, @TempDir Path dir) throws Exception {
        SplittableRandom rnd = new SplittableRandom(seed);
        V3Geometry g = V3EngineGeometryTest.draw(rnd);
        List<V3HeadShape> heads = List.of(new V3HeadShape(V3ProbeHead.EMBEDDING, 1 + rnd.nextInt(4), 1 + rnd.nextInt(4), 8 + rnd.nextInt(57)),
                new V3HeadShape(V3ProbeHead.CONFIDENCE, 1 + rnd.nextInt(4), 1 + rnd.nextInt(4), 1),
                new V3HeadShape(V3ProbeHead.ROUTER, 1 + rnd.nextInt(4), 1 + rnd.nextInt(4), 3));
        CactModel model = SyntheticV3Cact.build(g, seed, BitsMap.parse(rnd.nextBoolean() ? "default=4" : "embedding=4,mhc=4,default=2"), heads, null);
        Path file = dir.resolve("h" + seed + ".cact");
        Files.write(file, CactWriter.toBytes(unitHeads(V3EngineGeometryTest.enlarge(model, g, seed % 3 == 0, rnd), rnd)));

        int[] tokens = new int[POSITIONS];
        for (int i = 0; i < POSITIONS - TRAILING_PADS; i++) tokens[i] = 1 + rnd.nextInt(g.vocab() - 1);
        ReferenceForward ref;
        try (CactFile cact = CactFile.open(file)) {
            ref = ReferenceGenerations.of(Generation.NEEDLE3).fromWeights(WeightSources.fromCact(cact, false));
        }
        Map<String, NpyArray> q0 = ref.extraOutputs(tokens, ForwardOptions.DEFAULT, true, false);
        Map<String, NpyArray> q1 = ref.extraOutputs(tokens, ForwardOptions.DEFAULT.withQuant(true), true, false);

        String what = g + (seed % 3 == 0 ? " headwise gate, block-untied factors" : "") + ", heads " + heads;
        // float32 cells and products against float64: measured at most 4.9e-7 (batch 5.7e-7) over these draws; 2e-6 is the strict profile's gate.
        assertThat(worst(run(file, NumericMode.EXACT, tokens, false), q0)).as("exact: %s", what).isLessThan(2e-6);
        assertThat(worst(run(file, NumericMode.EXACT, tokens, true), q0)).as("batch: %s", what).isLessThan(2e-6);
        // int8 against the deploy quant=True: measured 0.033..0.145 over these draws, as far as the exact engine is from it
        // (0.035..0.146), because upstream's quant=True re-quantizes the head's probes, queries and projection (CQ-4) on top of
        // the stored weights, which the engine runs as stored; against quant=False the int8 head measures 0.0041..0.0141.
        // Limits about 2x the worst.
        ProbeOutputs int8 = run(file, NumericMode.INT8, tokens, false);
        assertThat(worst(int8, q1)).as("int8 against quant=True: %s", what).isLessThan(0.3);
        assertThat(worst(int8, q0)).as("int8 against quant=False: %s", what).isLessThan(0.03);
    }

    private static ProbeOutputs run(Path file, NumericMode mode, int[] tokens, boolean batch) throws Exception {
        try (Engine e = Engine.open(file, EngineOptions.exact(tokens.length).withMode(mode)); BatchPrefill b = batch ? BatchPrefill.open(e) : null) {
            return e.probeHeads(tokens, b != null ? b : Prefill.NATIVE);
        }
    }

    /** The largest |engine - reference| over the three heads' outputs (the embedding unit-normalised, as upstream returns it). */
    private static double worst(ProbeOutputs got, Map<String, NpyArray> want) {
        double[][] pairs = {got.embedding(), want.get("embedding").asDoubles(), {got.confidenceLogit()}, want.get("confidence").asDoubles(),
                got.router(), want.get("router").asDoubles()};
        double worst = 0;
        for (int p = 0; p < pairs.length; p += 2) {
            assertThat(pairs[p]).hasSize(pairs[p + 1].length);
            for (int i = 0; i < pairs[p].length; i++) worst = Math.max(worst, Math.abs(pairs[p][i] - pairs[p + 1][i]));
        }
        return worst;
    }

    /** The heads' gain, row bias and bias redrawn: gains in [0.5, 1.5], biases in [-1, 1]. */
    static CactModel unitHeads(CactModel model, SplittableRandom rnd) {
        List<CactTensor> out = new ArrayList<>();
        for (CactTensor t : model.tensors()) {
            boolean gain = t.name().endsWith("_head.gain");
            boolean bias = t.name().endsWith("_head.row_bias") || (t.name().endsWith("_head.bias") && !t.name().startsWith("embedding"));
            out.add(gain || bias ? fp16(t, rnd, gain ? 1 : 0) : t);
        }
        return new CactModel(model.geometry(), model.codebook(), out);
    }

    private static CactTensor fp16(CactTensor t, SplittableRandom rnd, double center) {
        long n = 1;
        for (long dim : t.shape()) n *= dim;
        ByteBuffer b = ByteBuffer.allocate(Math.toIntExact(2 * n)).order(ByteOrder.LITTLE_ENDIAN);
        for (long i = 0; i < n; i++) b.putShort(Float.floatToFloat16((float) (center + (center == 0 ? 2 : 1) * (rnd.nextDouble() - 0.5))));
        return CactTensor.of(t.name(), CactDType.FP16, t.shape(), 0, 0, b.array());
    }
}
