package dev.needlewb.converter.flax;

import static dev.needlewb.core.Refusals.malformed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.convert.ConvertRequest;
import dev.needlewb.converter.convert.Converter;
import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.converter.safetensors.Safetensors;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.golden.Golden;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SequencedMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code convert mini3.ckpt.pkl --lora ADAPTER} merges as Needle 3's {@code finetune.merge_lora}:
 * {@code W += scale * A @ B} on every target of {@code lora_target_paths} (the five attention
 * kernels of the scanned stack, Flax orientation {@code [L, in, out]}), from the adapter pickle
 * and from the safetensors adapter {@code checkpoints.write_adapter} writes.
 */
class V3LoraMergeTest {
    private static final Path CKPT = Golden.v3mini("mini3.ckpt.pkl");
    /** finetune.LORA_TARGETS under stack/layers/block/self_attn, with their PyTorch key stem. */
    private static final List<String> TARGETS = List.of("q_proj", "k_proj", "v_proj", "gate_proj", "out_proj");
    private static final int RANK = 4;
    private static final double SCALE = 7.0 / RANK; // lora_alpha / lora_rank

    private static String path(String target) {
        return "stack/layers/block/self_attn/" + target + "/kernel";
    }

    /** A and B per target, seeded: A as init_lora draws it (N(0,1)/rank), B nonzero as after training. */
    private static SequencedMap<String, NpyArray[]> factors(FlaxCheckpoint ckpt, long seed) {
        Random rnd = new Random(seed);
        SequencedMap<String, NpyArray[]> out = new LinkedHashMap<>();
        for (String t : TARGETS) {
            int[] w = ckpt.params().get(path(t)).shape();
            int layers = w[0], in = w[1], outDim = w[2];
            float[] a = new float[layers * in * RANK], b = new float[layers * RANK * outDim];
            for (int i = 0; i < a.length; i++) a[i] = (float) rnd.nextGaussian() / RANK;
            for (int i = 0; i < b.length; i++) b[i] = (float) (rnd.nextGaussian() * 0.02);
            out.put(path(t), new NpyArray[] {NpyArray.ofFloats(new int[] {layers, in, RANK}, a), NpyArray.ofFloats(new int[] {layers, RANK, outDim}, b)});
        }
        return out;
    }

    private static void writePickle(Path file, Map<String, NpyArray[]> f, long rank) throws Exception {
        Map<String, Object> lora = new LinkedHashMap<>();
        f.forEach((p, ab) -> lora.put(p, Map.of("A", ab[0], "B", ab[1])));
        Files.write(file, PickleBytes.of(Map.of("lora", lora, "scale", SCALE, "base", "checkpoints/needle3.safetensors", "rank", rank, "seed", 37L)));
    }

    private static void writeSafetensors(Path file, Map<String, NpyArray[]> f, long rank) throws Exception {
        Map<String, NpyArray> tensors = new LinkedHashMap<>();
        f.forEach((p, ab) -> {
            tensors.put("lora/" + p + "/A", ab[0]);
            tensors.put("lora/" + p + "/B", ab[1]);
        });
        // write_adapter: each field json.dumps'd
        Map<String, String> meta = Map.of("scale", Double.toString(SCALE), "base", "\"checkpoints/needle3.safetensors\"", "rank", Long.toString(rank), "seed", "37");
        try (OutputStream out = Files.newOutputStream(file)) {
            Safetensors.write(out, tensors, meta);
        }
    }

    private static ConvertRequest request(Path out, Path lora) {
        return new ConvertRequest(CKPT, out, null, lora, null, null, null, null, false, null, NonFinitePolicy.REFUSE);
    }

    @Test
    void everyTargetIsTheFloat64SumAndNothingElseMoves(@TempDir Path dir) throws Exception {
        FlaxCheckpoint ckpt = FlaxCheckpointReader.readStructure(CKPT);
        SequencedMap<String, NpyArray[]> f = factors(ckpt, 37);
        Path pkl = dir.resolve("needle_lora.pkl"), st = dir.resolve("needle_lora.safetensors");
        writePickle(pkl, f, RANK);
        writeSafetensors(st, f, RANK);
        assertThat(LoraAdapter.read(st)).satisfies(a -> {
            assertThat(a.seed()).isEqualTo(37L);
            assertThat(a.rank()).isEqualTo(RANK);
            assertThat(a.base()).isEqualTo("checkpoints/needle3.safetensors");
        });

        Path plain = dir.resolve("plain.safetensors"), viaPickle = dir.resolve("pickle.safetensors"), viaSt = dir.resolve("st.safetensors");
        Converter.run(request(plain, null), (d, t) -> {});
        Converter.run(request(viaPickle, pkl), (d, t) -> {});
        Converter.run(request(viaSt, st), (d, t) -> {});
        assertThat(Files.readAllBytes(viaSt)).isEqualTo(Files.readAllBytes(viaPickle));

        Map<String, NpyArray> before = Safetensors.read(plain).tensors(), after = Safetensors.read(viaPickle).tensors();
        int checked = 0;
        for (String t : TARGETS) {
            NpyArray[] ab = f.get(path(t));
            float[] w = ckpt.params().get(path(t)).asFloats(), a = ab[0].asFloats(), b = ab[1].asFloats();
            int[] shape = ckpt.params().get(path(t)).shape();
            int in = shape[1], out = shape[2];
            for (int l = 0; l < shape[0]; l++) {
                String key = "layers." + l + ".attn." + t + ".weight"; // [out, in]
                float[] merged = after.get(key).asFloats();
                int changed = 0;
                for (int o = 0; o < out; o++) {
                    for (int i = 0; i < in; i++) {
                        double ab2 = 0;
                        for (int r = 0; r < RANK; r++) ab2 += (double) a[(l * in + i) * RANK + r] * b[(l * RANK + r) * out + o];
                        double delta = SCALE * ab2, exact = w[(l * in + i) * out + o] + delta;
                        // float32 merge: A@B rounded once, times scale rounded once, the sum rounded once (2^-24 each)
                        double tol = 0x1p-24 * (2 * Math.abs(delta) + Math.abs(exact)) * (1 + 1e-6);
                        float got = merged[o * in + i];
                        assertThat(Math.abs(got - exact)).as("%s[%d][%d]", key, o, i).isLessThanOrEqualTo(tol);
                        if (got != w[(l * in + i) * out + o]) changed++;
                    }
                }
                assertThat(changed).as(key).isGreaterThan(in * out / 2);
                checked++;
            }
        }
        assertThat(checked).isEqualTo(TARGETS.size() * ckpt.params().get(path("q_proj")).shape()[0]);
        for (var e : before.entrySet()) {
            if (!e.getKey().matches("layers\\.\\d+\\.attn\\.(q|k|v|gate|out)_proj\\.weight")) {
                assertThat(after.get(e.getKey()).data()).as(e.getKey()).isEqualTo(e.getValue().data());
            }
        }
    }

    @Test
    void factorsThatDoNotFitOrDisagreeWithTheRankAreRefusedBeforeWriting(@TempDir Path dir) throws Exception {
        FlaxCheckpoint ckpt = FlaxCheckpointReader.readStructure(CKPT);
        Path out = dir.resolve("merged.cact");
        // B of q_proj sized for k_proj's output: the kernel [L, 128, 128] cannot take [L, 4, 64]
        SequencedMap<String, NpyArray[]> f = factors(ckpt, 1);
        f.put(path("q_proj"), new NpyArray[] {f.get(path("q_proj"))[0], f.get(path("k_proj"))[1]});
        Path misfit = dir.resolve("misfit.pkl");
        writePickle(misfit, f, RANK);
        ConvertRequest r = new ConvertRequest(CKPT, out, null, misfit, null, Golden.v3mini("tok512.model"), null, null, false, null, NonFinitePolicy.REFUSE);
        assertThat(malformed(ErrorKind.SHAPE_MISMATCH, () -> Converter.run(r, (d, t) -> {})))
                .satisfies(e -> assertThat(e.file()).isEqualTo(misfit))
                .hasMessageContaining(path("q_proj"));
        // rank 3 declared, factors of rank 4, in either form
        Path rank3 = dir.resolve("rank3.pkl"), rank3st = dir.resolve("rank3.safetensors");
        writePickle(rank3, factors(ckpt, 2), 3);
        writeSafetensors(rank3st, factors(ckpt, 2), 3);
        for (Path adapter : List.of(rank3, rank3st)) {
            ConvertRequest r3 = new ConvertRequest(CKPT, out, null, adapter, null, Golden.v3mini("tok512.model"), null, null, false, null, NonFinitePolicy.REFUSE);
            assertThat(malformed(ErrorKind.SHAPE_MISMATCH, () -> Converter.run(r3, (d, t) -> {})).file()).isEqualTo(adapter);
        }
        assertThat(out).doesNotExist();
        assertThat(dir.resolve("merged.cact.manifest.json")).doesNotExist();
    }
}
