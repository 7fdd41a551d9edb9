package dev.needlewb.torch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.safetensors.Safetensors;
import dev.needlewb.golden.Golden;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code parity --engine torch --torch-weights}: a state dict the converter wrote computes on libtorch
 * what the reference computes on the model (strict), and a state dict with a missing or extra key,
 * a wrong shape or dtype is one line naming the key, exit 2, no report.
 */
class TorchStateDictTest {
    private static final String KEY = "layers.2.attn.k_proj.weight";

    @TempDir
    static Path dir;
    private static Path good;

    @BeforeAll
    static void convert() {
        good = dir.resolve("mini.safetensors");
        Cli run = Cli.run("convert", Golden.mini("mini.cact").toString(), "--to", good.toString());
        assertThat(run.exit()).as(run.err()).isZero();
    }

    private static Cli parity(Path weights, Path out) {
        return Cli.run("parity", Golden.mini("mini.cact").toString(), "--tokens", TorchParityTest.s040(), "--engine", "torch",
                "--torch-weights", weights.toString(), "--out", out.toString());
    }

    @Test
    void convertedStateDictsPassStrictOnLibtorch() throws Exception {
        Path pt = dir.resolve("mini.pt");
        assertThat(Cli.run("convert", Golden.mini("mini.cact").toString(), "--to", pt.toString()).exit()).isZero();
        for (Path weights : new Path[] {good, pt}) {
            Cli run = parity(weights, dir.resolve("out-" + weights.getFileName()));
            assertThat(run.exit()).as(run.out() + run.err()).isZero();
            assertThat(run.out()).contains("torch vs reference q0", "PASS (profile strict)");
        }
    }

    @Test
    void badStateDictsNameTheKeyAndWriteNothing() throws Exception {
        Map<String, Consumer<Map<String, NpyArray>>> edits = new LinkedHashMap<>();
        edits.put("is missing", t -> t.remove(KEY));
        edits.put("not a tensor of this model", t -> t.put("layers.2.attn.extra.weight", t.get(KEY)));
        edits.put("shape [", t -> {
            NpyArray a = t.get(KEY);
            t.put(KEY, new NpyArray(a.descr(), new int[] {a.shape()[1], a.shape()[0]}, a.data()));
        });
        edits.put("dtype <i4, expected float32 or float16", t -> {
            NpyArray a = t.get(KEY);
            t.put(KEY, new NpyArray("<i4", a.shape(), a.data()));
        });
        for (var edit : edits.entrySet()) {
            Map<String, NpyArray> tensors = new LinkedHashMap<>(Safetensors.read(good).tensors());
            edit.getValue().accept(tensors);
            Path bad = dir.resolve("bad.safetensors");
            try (OutputStream o = Files.newOutputStream(bad)) {
                Safetensors.write(o, tensors, Map.of());
            }
            Path out = dir.resolve("bad-out");
            Cli run = parity(bad, out);
            assertThat(run.exit()).as(edit.getKey() + ": " + run.out() + run.err()).isEqualTo(2);
            assertThat(run.err().strip()).doesNotContain("\n").contains(edit.getKey());
            String named = edit.getKey().equals("not a tensor of this model") ? "layers.2.attn.extra.weight" : KEY;
            assertThat(run.err()).contains(named);
            // a key the file holds is named with the byte its data starts at
            if (!edit.getKey().equals("is missing")) assertThat(run.err()).containsPattern("tensor \\d+ \\(" + java.util.regex.Pattern.quote(named) + "\\) at byte \\d+: ");
            assertThat(out).doesNotExist();
        }
    }
}
