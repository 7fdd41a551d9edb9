package dev.needlewb.torch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.EngineOptions;
import dev.needlewb.engine.Session;
import dev.needlewb.golden.Golden;
import dev.needlewb.converter.flax.FlaxTree;
import dev.needlewb.engine.torch.TorchPrefill;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --prefill torch}: the prompt on libtorch, the session then decodes natively as after native prefill. */
class TorchPrefillTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    static String mini() {
        return Golden.mini("mini.cact").toString();
    }

    @Test
    void torchPrefillGeneratesTheGoldenIdsAndTheBenchSaysWhichPrefillRan(@TempDir Path dir) throws Exception {
        JsonNode want = Golden.json(Golden.mini("decode.json")).get("generate_cached").get("deq.kv0");
        Cli run = Cli.run("generate", mini(), "--prompt", "What is the weather in Paris?", "--max-new", "24",
                "--mode", "exact", "--threads", "1", "--prefill", "torch", "--json");
        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode got = JSON.readTree(run.out());
        assertThat(got.get("generated_ids")).isEqualTo(want.get("generated_ids"));
        assertThat(got.get("prefill").asText()).isEqualTo("torch");
        Cli bench = Cli.run("bench", mini(), "--new-tokens", "2", "--warmup", "0", "--repetitions", "1",
                "--prefill", "torch", "--out", dir.toString());
        assertThat(bench.exit()).as(bench.err()).isZero();
        JsonNode report = JSON.readTree(dir.resolve("bench.json").toFile()).get("bench");
        assertThat(report.get("prefill").asText()).isEqualTo("torch");
        assertThat(report.get("torch_prefill_setup_ms").asDouble()).isPositive();
        assertThat(Files.readString(dir.resolve("bench.md"))).contains("Prefill: torch");
    }

    @Test
    void sessionContinuesAsAfterNativePrefillInBothModes() throws Exception {
        int[] tokens = tokens("s300");
        int prompt = 200;
        int[] head = Arrays.copyOf(tokens, prompt), tail = Arrays.copyOfRange(tokens, prompt, tokens.length);
        try (TorchPrefill torch = new TorchPrefill(new DjlTorchBackend().load(geometry(), dequantized(), null, 1), true)) {
            try (Engine e = Engine.open(Golden.mini("mini.cact"), EngineOptions.exact(tokens.length))) {
                Session nat = e.newSession(), tor = e.newSession();
                float[] natLast = nat.prefill(head);
                float[] torLast = torch.prefill(tor, head);
                assertThat(tor.position()).isEqualTo(nat.position()).isEqualTo(prompt);
                // float32 on both sides of the same float64 function: the batch prefill's budget (2e-6 of each row's largest logit)
                assertThat(worstRelative(torLast, natLast, 1, 512)).isLessThan(2e-6);
                assertThat(worstRelative(steps(tor, tail), steps(nat, tail), tail.length, 512)).isLessThan(2e-6);
            }
            try (Engine e = Engine.open(Golden.mini("mini.cact"), EngineOptions.exact(tokens.length).withMode(
                    dev.needlewb.engine.kernel.NumericMode.INT8))) {
                Session nat = e.newSession(), tor = e.newSession();
                nat.prefill(head);
                torch.prefill(tor, head);
                // int8 KV: the torch keys are quantized by the session's own cache; a code may flip where a
                // value sits on a rounding boundary (the batch prefill's int8 test measures < 1e-4 of the codes),
                // so the decoded logits agree within the int8 profile's KL budget, not bit for bit.
                assertThat(meanKl(steps(tor, tail), steps(nat, tail), tail.length, 512)).isLessThan(5e-5);
            }
            try (Engine e = Engine.open(Golden.mini("mini.cact"), EngineOptions.exact(tokens.length))) {
                Session used = e.newSession();
                used.step(5);
                assertThatThrownBy(() -> torch.prefill(used, new int[] {5})).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("fresh session");
                Session fresh = e.newSession();
                assertThatThrownBy(() -> torch.prefill(fresh, new int[] {1, 99999})).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("outside vocab");
                assertThat(fresh.position()).isZero();
            }
        }
    }

    static int[] tokens(String name) {
        return JSON.convertValue(Golden.json(Golden.mini("sequences.json")).at("/" + name + "/tokens"), int[].class);
    }

    static dev.needlewb.core.v2.Geometry geometry() throws Exception {
        try (CactFile cact = CactFile.open(Golden.mini("mini.cact"))) {
            return dev.needlewb.core.v2.Geometry.of(cact.geometry());
        }
    }

    /** The mini model's weights dequantized into the Flax tree, as the CLI's model loading gives them. */
    static Map<String, dev.needlewb.core.io.NpyArray> dequantized() throws Exception {
        try (CactFile cact = CactFile.open(Golden.mini("mini.cact"))) {
            return FlaxTree.dequantized(cact);
        }
    }

    private static float[] steps(Session s, int[] tokens) {
        float[] out = new float[tokens.length * 512];
        for (int i = 0; i < tokens.length; i++) System.arraycopy(s.step(tokens[i]), 0, out, i * 512, 512);
        return out;
    }

    /** The largest row-wise |a - b| / max|b|. */
    private static double worstRelative(float[] a, float[] b, int rows, int n) {
        double worst = 0;
        for (int r = 0; r < rows; r++) {
            double maxAbs = 0, diff = 0;
            for (int i = 0; i < n; i++) {
                maxAbs = Math.max(maxAbs, Math.abs(b[r * n + i]));
                diff = Math.max(diff, Math.abs(a[r * n + i] - b[r * n + i]));
            }
            worst = Math.max(worst, diff / maxAbs);
        }
        return worst;
    }

    private static double meanKl(float[] p, float[] q, int rows, int n) {
        double sum = 0;
        for (int r = 0; r < rows; r++) {
            double[] lp = logSoftmax(q, r * n, n), lq = logSoftmax(p, r * n, n);
            for (int i = 0; i < n; i++) sum += Math.exp(lp[i]) * (lp[i] - lq[i]);
        }
        return sum / rows;
    }

    private static double[] logSoftmax(float[] x, int off, int n) {
        double max = Double.NEGATIVE_INFINITY, sum = 0;
        for (int i = 0; i < n; i++) max = Math.max(max, x[off + i]);
        for (int i = 0; i < n; i++) sum += Math.exp(x[off + i] - max);
        double[] out = new double[n];
        for (int i = 0; i < n; i++) out[i] = x[off + i] - max - Math.log(sum);
        return out;
    }
}
