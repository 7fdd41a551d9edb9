package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.io.Npz;
import dev.needlewb.golden.Golden;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The reference command on upstream's Needle 3 checkpoint (golden/v3mini): the generation is read
 * from the config, and the logits, probe heads and cached decode match upstream's outputs.
 */
class V3ReferenceCliTest {
    /** Float64 on both sides, differing only in summation order (measured: about 1e-15; docs/reference-v3.md). */
    private static final double TOLERANCE = 1e-9;
    /** The cached path against upstream's stepwise logits: the same sums in the same order but for BLAS blocking. */
    private static final double STEPWISE_TOLERANCE = 1e-12;

    private static final Path CKPT = Golden.v3mini("mini3.ckpt.pkl");

    private static String ids(int[] tokens) {
        StringJoiner s = new StringJoiner(",");
        for (int t : tokens) s.add(Integer.toString(t));
        return s.toString();
    }

    private static int[] s040() {
        var node = Golden.json(Golden.v3mini("sequences.json")).at("/s040/tokens");
        int[] t = new int[node.size()];
        for (int i = 0; i < t.length; i++) t[i] = node.get(i).asInt();
        return t;
    }

    private static double relativeError(double[] got, double[] want) {
        assertThat(got).hasSameSizeAs(want);
        double maxDiff = 0, maxRef = 0;
        for (int i = 0; i < want.length; i++) {
            maxDiff = Math.max(maxDiff, Math.abs(got[i] - want[i]));
            maxRef = Math.max(maxRef, Math.abs(want[i]));
        }
        return maxDiff / maxRef;
    }

    /** q0: upstream quant=False; q1: quant=True after configure_deploy (A8, K and V A8 per head); q1kv0: kv_bits 0. */
    @ParameterizedTest
    @CsvSource({"q0, ''", "q1, --quant", "q1kv0, --quant --kv-bits 0"})
    void logitsAndConfidenceAreUpstreams(String variant, String flags, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("ref.npz");
        List<String> args = new ArrayList<>(List.of("reference", CKPT.toString(), "--tokens", ids(s040()), "--heads", "--out", out.toString()));
        if (!flags.isEmpty()) args.addAll(Arrays.asList(flags.split(" ")));
        CliRun run = CliRun.of(args.toArray(String[]::new));
        assertThat(run.exit()).as(run.err()).isZero();
        Map<String, NpyArray> npz = Npz.read(out);
        double[] want = Golden.array(Golden.v3mini("forward.npz"), "logits.s040.raw." + variant).asDoubles();
        assertThat(relativeError(npz.get("logits").asDoubles(), want)).isLessThan(TOLERANCE);
        double confidence = Golden.array(Golden.v3mini("heads.npz"), "confidence.s040.raw." + variant).asDoubles()[0];
        assertThat(npz.get("confidence").asDoubles()[0]).isCloseTo(confidence, org.assertj.core.data.Percentage.withPercentage(1e-7));
        assertThat(npz).doesNotContainKeys("embedding", "router"); // the mini model carries the confidence head only
    }

    @Test
    void theCachedPathGivesUpstreamsStepwiseLogits(@TempDir Path dir) throws Exception {
        int[] tokens = Golden.array(Golden.v3mini("decode.npz"), "generate.s040.raw.tokens").asInts();
        Path out = dir.resolve("ref.npz");
        CliRun run = CliRun.of("reference", CKPT.toString(), "--tokens", ids(tokens), "--cached", "--prefill", "8", "--out", out.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        double[] logits = Npz.read(out).get("logits").asDoubles();
        double[] want = Golden.array(Golden.v3mini("decode.npz"), "stepwise.s040.raw.q0").asDoubles();
        // rows 7..19: the next-token logits after the prefixes of length 8..20
        double[] got = Arrays.copyOfRange(logits, 7 * 512, tokens.length * 512);
        assertThat(relativeError(got, want)).isLessThan(STEPWISE_TOLERANCE);
    }

    @Test
    void needle2OnlyOptionsAreRefusedInOneLine(@TempDir Path dir) {
        Path out = dir.resolve("ref.npz");
        CliRun run = CliRun.of("reference", CKPT.toString(), "--tokens", "2,5,6", "--int8-kv", "--out", out.toString());
        assertThat(run.exit()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(run.err().strip()).doesNotContain("\n").startsWith("needle-wb: --int8-kv emulates Needle 2's int8 KV cache");
        assertThat(out).doesNotExist();
    }
}
