package dev.needlewb.torch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactModel;
import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.convert.WeightSources;
import dev.needlewb.converter.flax.FlaxTree;
import dev.needlewb.converter.names.BitsMap;
import dev.needlewb.converter.synth.SyntheticV3Cact;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.v3.V3Geometry;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.EngineOptions;
import dev.needlewb.engine.Session;
import dev.needlewb.engine.TapSink;
import dev.needlewb.engine.kernel.NumericMode;
import dev.needlewb.engine.torch.MlpPermutations;
import dev.needlewb.engine.torch.TorchModel;
import dev.needlewb.engine.torch.TorchPrefill;
import dev.needlewb.golden.Golden;
import dev.needlewb.reference.ForwardOptions;
import dev.needlewb.reference.ReferenceGenerations;
import dev.needlewb.reports.parity.V3EngineGeometryTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.StringJoiner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The torch engine on Needle 3: libtorch float32 against upstream's float64 logits of the golden v3mini (conv taps
 * 3, window 16 with global layer 2, qk 32 / v 48, the Kronecker MLP, two engram sites), against the float64
 * reference on drawn geometries, native decoding on from a torch prefill, and {@code parity --engine torch}.
 *
 * <p>Tolerance: every comparison is float32 against float64 (or float32 against float32) on the same weights, held
 * to 2e-6 of the row's largest |logit|, the gate the native exact engine and the batch prefill use on the same
 * files. The native engine measures up to 3.0e-7 on v3mini and 6.4e-7 on these draws; libtorch sums its GEMMs in
 * another order, not in lower precision (unit roundoff 6e-8, a few hundred products per dot, 5 layers). A modelling
 * error (a missed conv tap, a wrong layer mask, a transposed factor, a wrong permutation) moves logits by 1e-3 or more.
 */
class V3TorchForwardTest {
    static final double TOLERANCE = 2e-6;
    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest
    @ValueSource(strings = {"s001", "s007", "s040"})
    void torchMatchesUpstreamsDeqLogitsOnTheGoldenFile(String seq) throws Exception {
        int[] tokens = tokens(seq);
        double[] want = Golden.array(Golden.v3mini("forward.npz"), "logits." + seq + ".deq.q0").asDoubles();
        try (TorchModel torch = load(Golden.v3mini("mini3.cact"))) {
            int vocab = V3Geometry.mini().outVocab();
            float[][] got = allLogits(torch, tokens);
            double worst = 0;
            for (int t = 0; t < tokens.length; t++) {
                assertThat(got[t]).hasSize(vocab);
                worst = Math.max(worst, rowError(got[t], Arrays.copyOfRange(want, t * vocab, (t + 1) * vocab)));
            }
            System.out.printf("torch v3mini %s: worst |diff| / max|logit| %.2e%n", seq, worst);
            assertThat(worst).as("worst |diff| / max|logit| over %s", seq).isLessThan(TOLERANCE);
        }
    }

    /**
     * Twelve geometries by upstream's rules (V3EngineGeometryTest's draws: conv taps 0..4, windows 2 and 5 below the
     * 24 positions and 40 above, global layer sets, qk != v, out_vocab cut, every third with the headwise gate and
     * block-untied factors), each held to the float64 reference over every position; then a torch prefill of the
     * first 16 positions, continued natively, held to the reference on the remaining 8.
     */
    @Test
    void drawnGeometriesMatchTheReferenceAndNativeDecodingContinuesFromATorchPrefill(@TempDir Path dir) throws Exception {
        int positions = 24, prompt = 16;
        boolean convOn = false, convOff = false, windowBelow = false, windowAbove = false, someGlobal = false, qkNotV = false, variants = false;
        for (long seed = 1; seed <= 12; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            V3Geometry g = V3EngineGeometryTest.draw(rnd);
            CactModel model = SyntheticV3Cact.build(g, seed, BitsMap.parse(rnd.nextBoolean() ? "default=4" : "embedding=4,mhc=4,default=2"),
                    List.of(), null);
            boolean variant = seed % 3 == 0;
            Path file = Files.write(dir.resolve("g" + seed + ".cact"), CactWriter.toBytes(V3EngineGeometryTest.enlarge(model, g, variant, rnd)));
            int[] tokens = new int[positions];
            for (int i = 0; i < tokens.length; i++) tokens[i] = rnd.nextInt(g.vocab());
            double[][] want;
            try (CactFile cact = CactFile.open(file)) {
                want = ReferenceGenerations.of(Generation.NEEDLE3).fromWeights(WeightSources.fromCact(cact, false)).forward(tokens, ForwardOptions.DEFAULT);
            }
            String what = g + (variant ? " headwise gate, block-untied factors" : "");
            try (TorchModel torch = load(file)) {
                float[][] got = allLogits(torch, tokens);
                double worst = 0;
                for (int t = 0; t < positions; t++) worst = Math.max(worst, rowError(got[t], want[t]));
                System.out.printf("torch v3 seed %d: worst |diff| / max|logit| %.2e%n", seed, worst);
                assertThat(worst).as("%s: torch forward, worst |diff| / max|logit|", what).isLessThan(TOLERANCE);
            }
            try (CactFile cact = CactFile.open(file); Engine e = Engine.open(file, EngineOptions.exact(positions));
                    TorchPrefill prefill = TorchPrefill.of(cact, 1)) {
                Session s = e.newSession();
                float[] logits = prefill.prefill(s, Arrays.copyOf(tokens, prompt));
                double worst = rowError(logits, want[prompt - 1]);
                for (int t = prompt; t < positions; t++) worst = Math.max(worst, rowError(s.step(tokens[t]), want[t]));
                System.out.printf("torch prefill + native decode, v3 seed %d: worst |diff| / max|logit| %.2e%n", seed, worst);
                assertThat(worst).as("%s: torch prefill of %d, native steps after", what, prompt).isLessThan(TOLERANCE);
            }
            convOn |= g.qkvConvTaps() > 1;
            convOff |= g.qkvConvTaps() == 0;
            windowBelow |= g.slidingWindow() > 0 && g.slidingWindow() < prompt && g.globalLayers().length < g.numLayers();
            windowAbove |= g.slidingWindow() > positions;
            someGlobal |= g.slidingWindow() > 0 && g.globalLayers().length > 0;
            qkNotV |= g.qkHeadDim() != g.vHeadDim();
            variants |= variant;
        }
        // what the draws must cover to mean anything
        assertThat(List.of(convOn, convOff, windowBelow, windowAbove, someGlobal, qkNotV, variants)).containsOnly(true);
    }

    /**
     * The golden file's s040 (40 positions, past the 16-position window, through the conv): a torch prefill, then 12
     * greedy native steps, against native prefill and the same steps: the same tokens, logits within the tolerance
     * in exact mode; in int8 the session quantizes the adopted K/V as its own, so a code may flip at a rounding
     * boundary (V3BatchPrefillTest's int8 gate, 0.05 of the row's largest logit).
     */
    @ParameterizedTest
    @EnumSource(NumericMode.class)
    void nativeDecodingFromATorchPrefillGivesNativePrefillsGreedyTokens(NumericMode mode) throws Exception {
        int[] tokens = tokens("s040");
        double gate = mode == NumericMode.EXACT ? TOLERANCE : 0.05;
        Path file = Golden.v3mini("mini3.cact");
        try (CactFile cact = CactFile.open(file); Engine e = Engine.open(file, EngineOptions.exact(tokens.length + 12).withMode(mode));
                TorchPrefill torch = TorchPrefill.of(cact, 1)) {
            Session fromTorch = e.newSession(), fromNative = e.newSession();
            float[] a = torch.prefill(fromTorch, tokens).clone();
            float[] b = fromNative.prefill(tokens);
            assertThat(fromTorch.position()).isEqualTo(fromNative.position()).isEqualTo(tokens.length);
            double worst = relative(a, b);
            int[] greedyTorch = new int[12], greedyNative = new int[12];
            for (int i = 0; i < 12; i++) {
                greedyTorch[i] = argmax(a);
                greedyNative[i] = argmax(b);
                a = fromTorch.step(greedyTorch[i]).clone();
                b = fromNative.step(greedyNative[i]);
                worst = Math.max(worst, relative(a, b));
            }
            System.out.printf("torch prefill vs native prefill on v3mini s040 + 12 steps (%s): worst %.2e%n", mode, worst);
            assertThat(greedyTorch).isEqualTo(greedyNative);
            assertThat(worst).isLessThan(gate);
        }
    }

    @Test
    void parityRunsTheTorchEngineOnANeedle3File(@TempDir Path out) throws Exception {
        StringJoiner ids = new StringJoiner(",");
        for (int t : tokens("s040")) ids.add(Integer.toString(t));
        Cli run = Cli.run("parity", Golden.v3mini("mini3.cact").toString(), "--tokens", ids.toString(), "--engine", "exact,torch",
                "--no-html", "--out", out.toString());
        assertThat(run.exit()).as(run.out() + run.err()).isZero();
        JsonNode json = JSON.readTree(out.resolve("parity.json").toFile());
        JsonNode exact = json.at("/parity/comparisons/0"), torch = json.at("/parity/comparisons/1");
        assertThat(torch.path("engine").asText()).isEqualTo("torch");
        assertThat(torch.path("profile").asText()).isEqualTo("strict");
        assertThat(torch.path("passed").asBoolean()).isTrue();
        // the same taps as the native exact engine (the conv taps among them), in the same order, but for the exact
        // engine's probe-head rows after them (libtorch hands over no hidden cells to pool)
        assertThat(exact.at("/taps/" + (exact.path("taps").size() - 1) + "/name").asText()).isEqualTo("head.confidence");
        assertThat(torch.path("taps").size()).isEqualTo(exact.path("taps").size() - 1);
        for (int i = 0; i < torch.path("taps").size(); i++) {
            assertThat(torch.at("/taps/" + i + "/name").asText()).isEqualTo(exact.at("/taps/" + i + "/name").asText());
        }
        assertThat(torch.path("taps").toString()).contains("attn.q_conv");
        JsonNode logits = torch.at("/taps/" + (torch.path("taps").size() - 1));
        assertThat(logits.path("name").asText()).isEqualTo("logits");
        assertThat(logits.path("rel_l2").asDouble()).isLessThan(TOLERANCE);
        assertThat(logits.path("top1").asDouble()).isEqualTo(1.0);
    }

    @Test
    void generateWithATorchPrefillGivesTheNativeGreedyIds() throws Exception {
        String file = Golden.v3mini("mini3.cact").toString();
        Cli torch = Cli.run("generate", file, "--prompt", "What is the weather in Paris?", "--max-new", "12", "--mode", "exact",
                "--threads", "1", "--prefill", "torch", "--json");
        Cli native_ = Cli.run("generate", file, "--prompt", "What is the weather in Paris?", "--max-new", "12", "--mode", "exact",
                "--threads", "1", "--json");
        assertThat(torch.exit()).as(torch.err()).isZero();
        assertThat(native_.exit()).as(native_.err()).isZero();
        JsonNode got = JSON.readTree(torch.out()), want = JSON.readTree(native_.out());
        assertThat(got.path("prefill").asText()).isEqualTo("torch");
        assertThat(got.path("generated_ids").size()).isEqualTo(12);
        assertThat(got.path("generated_ids")).isEqualTo(want.path("generated_ids"));
    }

    static int[] tokens(String seq) {
        return JSON.convertValue(Golden.json(Golden.v3mini("sequences.json")).at("/" + seq + "/tokens"), int[].class);
    }

    private static TorchModel load(Path file) throws Exception {
        try (CactFile cact = CactFile.open(file)) {
            ModelWeights w = WeightSources.fromCact(cact, false);
            return new DjlTorchBackend().load(cact.geometry(), FlaxTree.of(w), MlpPermutations.of(w.tensors()), 1);
        }
    }

    /** Every position's logits, through the forward's "logits" tap. */
    private static float[][] allLogits(TorchModel torch, int[] tokens) {
        float[][] rows = new float[tokens.length][];
        torch.forward(tokens, 0, 0, new TapSink() {
            @Override
            public boolean wants(String name) {
                return name.equals("logits");
            }

            @Override
            public void record(String name, int position, float[] values, int... shape) {
                rows[position] = values;
            }
        });
        return rows;
    }

    private static double rowError(float[] got, double[] want) {
        double maxAbs = 0, worst = 0;
        for (double v : want) maxAbs = Math.max(maxAbs, Math.abs(v));
        for (int i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(got[i] - want[i]) / maxAbs);
        return worst;
    }

    private static double relative(float[] x, float[] y) {
        double maxAbs = 0, worst = 0;
        for (float v : y) maxAbs = Math.max(maxAbs, Math.abs(v));
        for (int i = 0; i < x.length; i++) worst = Math.max(worst, Math.abs(x[i] - y[i]) / maxAbs);
        return worst;
    }

    private static int argmax(float[] v) {
        int best = 0;
        for (int i = 1; i < v.length; i++) if (v[i] > v[best]) best = i;
        return best;
    }
}
