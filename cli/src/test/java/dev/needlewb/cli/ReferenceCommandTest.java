package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.io.Npz;
import dev.needlewb.golden.Golden;
import java.nio.file.Path;
import java.util.Map;
import java.util.StringJoiner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The reference command end to end: weights through the converter, numbers against the golden upstream outputs. */
class ReferenceCommandTest {
    /** Float64 on both sides: only summation order differs (README of the golden data: ~1e-12 expected). */
    private static final double TOLERANCE = 1e-9;

    private static String s040() {
        JsonNode tokens = Golden.json(Golden.mini("sequences.json")).at("/s040/tokens");
        StringJoiner ids = new StringJoiner(",");
        tokens.forEach(t -> ids.add(t.asText()));
        return ids.toString();
    }

    private static double relativeError(double[] got, double[] want) {
        double maxDiff = 0, maxRef = 0;
        for (int i = 0; i < want.length; i++) {
            maxDiff = Math.max(maxDiff, Math.abs(got[i] - want[i]));
            maxRef = Math.max(maxRef, Math.abs(want[i]));
        }
        return maxDiff / maxRef;
    }

    @Test
    void cactInputGivesTheGoldenDequantizedLogitsAndTaps(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("ref.npz");
        CliRun run = CliRun.of("reference", Golden.mini("mini.cact").toString(), "--tokens", s040(), "--taps", "--out", out.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        Map<String, NpyArray> npz = Npz.read(out);
        double[] want = Golden.array(Golden.mini("forward.npz"), "logits.s040.deq.q0").asDoubles();
        assertThat(relativeError(npz.get("logits").asDoubles(), want)).isLessThan(TOLERANCE);
        assertThat(npz).containsKeys("tap.embed", "tap.layer05.lanes_out", "tap.final.norm");
    }

    @Test
    void checkpointInputOnTheCachedPathGivesTheGoldenStepwiseLogits(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("ref.npz");
        CliRun run = CliRun.of("reference", Golden.mini("mini.ckpt.pkl").toString(), "--tokens", s040(),
                "--cached", "--prefill", "8", "--out", out.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        double[] want = Golden.array(Golden.mini("decode.npz"), "stepwise.s040.raw").asDoubles();
        assertThat(relativeError(Npz.read(out).get("logits").asDoubles(), want)).isLessThan(TOLERANCE);
    }

    @Test
    void stateDictInputReadsThroughTheNameMap(@TempDir Path dir) throws Exception {
        Path pt = dir.resolve("mini.pt");
        String cact = Golden.mini("mini.cact").toString();
        assertThat(CliRun.of("convert", cact, "--to", pt.toString()).exit()).isZero();
        Path out = dir.resolve("ref.npz");
        CliRun run = CliRun.of("reference", pt.toString(), "--like", cact, "--tokens", s040(), "--out", out.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        double[] want = Golden.array(Golden.mini("forward.npz"), "logits.s040.deq.q0").asDoubles();
        assertThat(relativeError(Npz.read(out).get("logits").asDoubles(), want)).isLessThan(TOLERANCE);
        CliRun noLike = CliRun.of("reference", pt.toString(), "--tokens", "2", "--out", dir.resolve("x.npz").toString());
        assertThat(noLike.err()).contains("needs --like FILE.cact");
    }

    @Test
    void badArgumentsAreOneLineErrors(@TempDir Path dir) {
        String cact = Golden.mini("mini.cact").toString();
        CliRun sinks = CliRun.of("reference", cact, "--tokens", "2,3", "--sinks", "2", "--out", dir.resolve("a.npz").toString());
        assertThat(sinks.exit()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(sinks.err()).contains("--sinks needs a --window");
        CliRun id = CliRun.of("reference", cact, "--tokens", "2,9999", "--out", dir.resolve("b.npz").toString());
        assertThat(id.err().strip()).isEqualTo("needle-wb: token 1 is id 9999, outside the vocabulary (ids 0..511)");
        assertThat(dir.resolve("b.npz")).doesNotExist();
        CliRun mtp = CliRun.of("reference", cact, "--tokens", "2,3", "--mtp", "--out", dir.resolve("c.npz").toString());
        assertThat(mtp.err()).contains("the model has no MTP branch");
        assertThat(dir.resolve("c.npz")).doesNotExist();
    }
}
