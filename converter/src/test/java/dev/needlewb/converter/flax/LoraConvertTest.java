package dev.needlewb.converter.flax;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.convert.ConvertRequest;
import dev.needlewb.converter.convert.Converter;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.golden.Golden;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code convert CKPT --lora ADAPTER --to X.cact} equals converting the checkpoint merged beforehand. */
class LoraConvertTest {
    private static final String Q = "stack/layers/block/self_attn/q_proj/kernel";

    @Test
    void loraMergeBeforeExportEqualsExportOfTheMergedCheckpoint(@TempDir Path tmp) throws Exception {
        Random rnd = new Random(11);
        int layers = 6, in = 128, out = 128, rank = 4;
        float[] a = new float[layers * in * rank], b = new float[layers * rank * out];
        for (int i = 0; i < a.length; i++) a[i] = (float) rnd.nextGaussian() / rank;
        for (int i = 0; i < b.length; i++) b[i] = (float) rnd.nextGaussian() * 0.05f;
        Path adapter = tmp.resolve("adapter.pkl");
        Files.write(adapter, PickleBytes.of(Map.of("lora", Map.of(Q, Map.of("A", NpyArray.ofFloats(new int[] {layers, in, rank}, a),
                "B", NpyArray.ofFloats(new int[] {layers, rank, out}, b))), "scale", 0.75, "base", "mini", "rank", (long) rank)));
        Path ckpt = Golden.mini("mini.ckpt.pkl");
        Path tok = Golden.mini("tok512.model");

        Path viaLora = tmp.resolve("lora.cact");
        Converter.run(new ConvertRequest(ckpt, viaLora, null, adapter, null, tok, null, null, false), (d, t) -> {});

        Path merged = tmp.resolve("merged.pkl");
        FlaxCheckpointWriter.write(LoraAdapter.read(adapter).mergeInto(FlaxCheckpointReader.read(ckpt)), merged);
        Path viaMerged = tmp.resolve("merged.cact");
        Converter.run(new ConvertRequest(merged, viaMerged, null, null, null, tok, null, null, false), (d, t) -> {});

        assertThat(Files.readAllBytes(viaLora)).isEqualTo(Files.readAllBytes(viaMerged));
        assertThat(Files.readAllBytes(viaLora)).isNotEqualTo(Files.readAllBytes(Golden.mini("mini.cact")));
    }
}
