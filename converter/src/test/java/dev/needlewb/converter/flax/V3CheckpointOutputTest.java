package dev.needlewb.converter.flax;

import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.convert.ConvertRequest;
import dev.needlewb.converter.convert.Converter;
import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.golden.Golden;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Needle 3 conversions Needle 2 has: a checkpoint output as {@code checkpoints.write_checkpoint}
 * writes it (a pickle of format_version, params, config, step, run), and state dicts read without
 * {@code --base} through {@code --config CKPT.pkl}; round trips on golden v3mini.
 */
class V3CheckpointOutputTest {
    private static final Path CKPT = Golden.v3mini("mini3.ckpt.pkl");
    private static final Path CACT = Golden.v3mini("mini3.cact");
    private static final Path TOK = Golden.v3mini("tok512.model");

    private static void convert(Path in, Path out, Path config, Path tokenizer) throws Exception {
        Converter.run(new ConvertRequest(in, out, null, null, null, tokenizer, config, null, false, null, NonFinitePolicy.REFUSE), (d, t) -> {});
    }

    private static void assertSameCheckpoint(FlaxCheckpoint got, FlaxCheckpoint want) {
        assertThat(got.params().keySet()).containsExactlyElementsOf(want.params().keySet());
        for (var e : want.params().entrySet()) {
            NpyArray y = got.params().get(e.getKey());
            assertThat(y.descr()).as(e.getKey()).isEqualTo(e.getValue().descr());
            assertThat(y.shape()).as(e.getKey()).isEqualTo(e.getValue().shape());
            assertThat(y.data()).as(e.getKey()).isEqualTo(e.getValue().data());
        }
        assertThat(got.config()).isEqualTo(want.config());
        assertThat(got.step()).isEqualTo(want.step());
        assertThat(got.run()).isEqualTo(want.run());
    }

    @Test
    void aCheckpointOutputIsWhatWriteCheckpointWritesAndNumpyReadsItBackEqual(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("again.pkl");
        convert(CKPT, out, null, null);
        assertSameCheckpoint(FlaxCheckpointReader.readStructure(out), FlaxCheckpointReader.readStructure(CKPT));
        // Python sees the same dict: the config's tuple fields as tuples, every array equal with its dtype
        assertThat(PythonNumpy.sameCheckpoint(out, CKPT)).isEqualTo("OK 52");
    }

    @ParameterizedTest
    @ValueSource(strings = {"safetensors", "pt"})
    void aCheckpointThroughAStateDictBackIsBitForBitAndExportsToUpstreamsBytes(String ext, @TempDir Path dir) throws Exception {
        Path dict = dir.resolve("mini3." + ext);
        convert(CKPT, dict, null, null);
        Path back = dir.resolve("back.pkl");
        convert(dict, back, CKPT, null);
        assertSameCheckpoint(FlaxCheckpointReader.readStructure(back), FlaxCheckpointReader.readStructure(CKPT));
        // a state dict without --base: the geometry from --config, the bytes of upstream's write_export
        Path cact = dir.resolve("mini3.cact");
        convert(dict, cact, CKPT, TOK);
        assertThat(Files.readAllBytes(cact)).isEqualTo(Files.readAllBytes(CACT));
    }

    @Test
    void aCactToACheckpointGivesUpstreamsTreeRebuiltFromTheFile(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("deq.pkl");
        convert(CACT, out, CKPT, null);
        FlaxCheckpoint deq = FlaxCheckpointReader.readStructure(out);
        Map<String, NpyArray> upstream = Golden.npz(Golden.v3mini("deq_params.npz"));
        assertThat(deq.params().keySet()).containsExactlyInAnyOrderElementsOf(upstream.keySet());
        // The dequantizer repeats numpy's summation order for the shapes Needle 2 exports; for these four
        // small CQ matrices ([16, 512] and [1, 512]) numpy/OpenBLAS sums differently, so they differ by
        // float32 rounding (measured max 6.0e-8 on weights up to 0.08); every other leaf is bit for bit.
        Set<String> roundingOnly = Set.of("stack/mhc_phi_pre", "stack/mhc_phi_post", "stack/mhc_phi_res", "confidence_head/proj/kernel");
        for (var e : upstream.entrySet()) {
            NpyArray got = deq.params().get(e.getKey());
            assertThat(got.shape()).as(e.getKey()).isEqualTo(e.getValue().shape());
            if (!roundingOnly.contains(e.getKey())) {
                assertThat(got.data()).as(e.getKey()).isEqualTo(e.getValue().data());
                continue;
            }
            float[] g = got.asFloats(), w = e.getValue().asFloats();
            for (int i = 0; i < g.length; i++) assertThat((double) Math.abs(g[i] - w[i])).as("%s[%d]", e.getKey(), i).isLessThanOrEqualTo(1e-7);
        }
        assertThat(deq.config()).isEqualTo(FlaxCheckpointReader.readStructure(CKPT).config());
    }

    @Test
    void anEditedPermutationCannotGoIntoACheckpoint(@TempDir Path dir) throws Exception {
        Path dict = dir.resolve("mini3.safetensors");
        convert(CACT, dict, null, null);
        Map<String, NpyArray> tensors = new java.util.LinkedHashMap<>(dev.needlewb.converter.safetensors.Safetensors.read(dict).tensors());
        float[] p1 = tensors.get("hada.p1").asFloats();
        float first = p1[0];
        p1[0] = p1[1];
        p1[1] = first; // still a permutation, but not RandomState(11)'s
        tensors.put("hada.p1", NpyArray.ofFloats(new int[] {p1.length}, p1));
        Path edited = dir.resolve("edited.safetensors");
        try (var out = Files.newOutputStream(edited)) {
            dev.needlewb.converter.safetensors.Safetensors.write(out, tensors, Map.of());
        }
        Path out = dir.resolve("edited.pkl");
        assertThat(refused(ErrorKind.UNSUPPORTED, () -> convert(edited, out, CKPT, null))).hasMessageStartingWith("hada_p1 is not upstream's draw");
        assertThat(out).doesNotExist();
    }

    @Test
    void aConfigOfTheOtherGenerationIsRefusedBeforeWriting(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("x.pkl");
        assertThat(refused(ErrorKind.WRONG_GENERATION, () -> convert(CACT, out, Golden.mini("mini.ckpt.pkl"), null)))
                .hasMessageContaining("--config is a Needle 2 checkpoint");
        assertThat(refused(ErrorKind.WRONG_GENERATION, () -> convert(Golden.mini("mini.cact"), out, CKPT, null)))
                .hasMessageContaining("--config is a Needle 3 checkpoint");
        assertThat(dir).isEmptyDirectory();
    }
}
