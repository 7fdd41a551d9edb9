package dev.needlewb.converter.convert;

import static dev.needlewb.core.Refusals.malformed;
import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.converter.flax.FlaxCheckpointReader;
import dev.needlewb.converter.flax.FlaxCheckpointWriter;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.v2.ProbeHead;
import dev.needlewb.converter.safetensors.Safetensors;
import dev.needlewb.converter.synth.SyntheticCact;
import dev.needlewb.converter.synth.SyntheticTokenizerBlob;
import dev.needlewb.golden.Golden;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ConverterTest {
    private static final Path MINI_CACT = Golden.mini("mini.cact");
    private static final Path MINI_CKPT = Golden.mini("mini.ckpt.pkl");
    private static final Path TOK = Golden.mini("tok512.model");

    static ConvertRequest request(Path in, Path out) {
        return new ConvertRequest(in, out, null, null, null, null, null, null, false);
    }

    static ConvertRequest withBase(Path in, Path out, Path base) {
        return new ConvertRequest(in, out, null, null, base, null, null, null, false);
    }

    static ConvertRequest withConfig(Path in, Path out, Path config) {
        return new ConvertRequest(in, out, null, null, null, null, config, null, false);
    }

    private static final Converter.Listener QUIET = (done, total) -> {};

    @ParameterizedTest
    @ValueSource(strings = {"safetensors", "pt"})
    void cactThroughAStateDictBackWithBaseIsByteIdentical(String ext, @TempDir Path tmp) throws Exception {
        Path st = tmp.resolve("mini." + ext);
        Path back = tmp.resolve("back.cact");
        Converter.run(request(MINI_CACT, st), QUIET);
        Converter.Result r = Converter.run(withBase(st, back, MINI_CACT), QUIET);
        assertThat(r.tensors()).allMatch(TensorConversion::keptFromBase);
        assertThat(sha(back)).isEqualTo(sha(MINI_CACT));
    }

    @Test
    void anEditedTensorIsTheOnlyOneReQuantized(@TempDir Path tmp) throws Exception {
        Path st = tmp.resolve("mini.safetensors");
        Converter.run(request(MINI_CACT, st), QUIET);
        Map<String, NpyArray> dict = new LinkedHashMap<>(Safetensors.read(st).tensors());
        NpyArray q = dict.get("layers.2.attn.q_proj.weight");
        float[] v = q.asFloats();
        for (int i = 0; i < v.length; i++) v[i] *= 1.5f;
        dict.put("layers.2.attn.q_proj.weight", NpyArray.ofFloats(q.shape(), v));
        Path edited = tmp.resolve("edited.safetensors");
        try (var out = Files.newOutputStream(edited)) {
            Safetensors.write(out, dict, Map.of());
        }
        Path back = tmp.resolve("edited.cact");
        Converter.Result r = Converter.run(withBase(edited, back, MINI_CACT), QUIET);
        List<TensorConversion> changed = r.tensors().stream().filter(t -> !t.keptFromBase()).toList();
        assertThat(changed).extracting(TensorConversion::name).containsExactly("layer02.q_proj");
        // Scaling by 1.5 is exact in float32 and CQ codes are scale invariant, so only norms move.
        assertThat(changed.getFirst().normsChanged()).isPositive();
        try (CactFile a = CactFile.open(MINI_CACT); CactFile b = CactFile.open(back)) {
            for (int i = 0; i < a.numTensors(); i++) {
                byte[] x = a.blob(i).toArray(ValueLayout.JAVA_BYTE), y = b.blob(i).toArray(ValueLayout.JAVA_BYTE);
                if (a.tensor(i).name().equals("layer02.q_proj")) assertThat(y).isNotEqualTo(x);
                else assertThat(y).as(a.tensor(i).name()).isEqualTo(x);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"safetensors", "pt"})
    void checkpointThroughAStateDictBackIsBitForBit(String ext, @TempDir Path tmp) throws Exception {
        Path st = tmp.resolve("mini." + ext);
        Path back = tmp.resolve("back.pkl");
        Converter.run(request(MINI_CKPT, st), QUIET);
        Converter.run(withConfig(st, back, MINI_CKPT), QUIET);
        FlaxCheckpoint a = FlaxCheckpointReader.read(MINI_CKPT), b = FlaxCheckpointReader.read(back);
        assertThat(b.params().keySet()).containsExactlyElementsOf(a.params().keySet());
        for (var e : a.params().entrySet()) {
            NpyArray x = e.getValue(), y = b.params().get(e.getKey());
            assertThat(y.descr()).isEqualTo(x.descr());
            assertThat(y.shape()).isEqualTo(x.shape());
            assertThat(y.data()).as(e.getKey()).isEqualTo(x.data());
        }
        assertThat(b.config()).isEqualTo(a.config());
        assertThat(b.step()).isEqualTo(a.step());
        assertThat(b.run()).isEqualTo(a.run());
    }

    @Test
    void checkpointToCactMatchesUpstreamAndThePlanPredictsTheSize(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("mini.cact");
        ConvertRequest r = new ConvertRequest(MINI_CKPT, out, null, null, null, TOK, null, null, false);
        Converter.Plan plan = Converter.plan(r);
        assertThat(out).doesNotExist();
        assertThat(tmp).isEmptyDirectory();
        assertThat(plan.outputBytes()).isEqualTo(Files.size(MINI_CACT));
        assertThat(plan.rows()).hasSize(111);
        Converter.Result result = Converter.run(r, QUIET);
        assertThat(sha(out)).isEqualTo(sha(MINI_CACT));
        // The reported error of each CQ tensor (float64 FWHT decode) against upstream's exact decode:
        // the two decodes differ by float32 rounding, so 1e-6 of the weights' scale bounds the gap.
        ModelWeights source = WeightSources.fromCheckpoint(FlaxCheckpointReader.read(MINI_CKPT));
        try (CactFile f = CactFile.open(out)) {
            for (TensorConversion t : result.tensors()) {
                if (!t.quantization().startsWith("cq")) continue;
                float[] decoded = f.dequantize(f.tensor(t.name()).index());
                double[] exact = TensorConversion.difference(decoded, source.tensors().get(t.name()).asFloats());
                assertThat(t.maxAbsChange()).as(t.name()).isPositive().isCloseTo(exact[0], org.assertj.core.data.Offset.offset(1e-6));
                assertThat(t.rmsChange()).as(t.name()).isPositive().isCloseTo(exact[1], org.assertj.core.data.Offset.offset(1e-6));
            }
        }
    }

    @Test
    void cactToCheckpointWithConfigGivesTheDequantizedWeightsInFlaxLayout(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("deq.pkl");
        Converter.run(withConfig(MINI_CACT, out, MINI_CKPT), QUIET);
        FlaxCheckpoint deq = FlaxCheckpointReader.read(out);
        float[] kernel = deq.params().get("stack/layers/block/self_attn/v_proj/kernel").asFloats(); // [6, 128 in, 64 out]
        try (CactFile f = CactFile.open(MINI_CACT)) {
            float[] v3 = f.dequantize(f.tensor("layer03.v_proj").index()); // [64 out, 128 in]
            for (int o = 0; o < 64; o++) {
                for (int i = 0; i < 128; i++) assertThat(kernel[3 * 128 * 64 + i * 64 + o]).isEqualTo(v3[o * 128 + i]);
            }
        }
        // log_temp is not in a .cact: it comes from --config
        assertThat(deq.params().get("contrastive_head/log_temp").data())
                .isEqualTo(FlaxCheckpointReader.read(MINI_CKPT).params().get("contrastive_head/log_temp").data());
    }

    @Test
    void refusesToOverwriteAnInput(@TempDir Path tmp) throws Exception {
        Path st = tmp.resolve("mini.safetensors");
        Converter.run(request(MINI_CACT, st), QUIET);
        byte[] before = Files.readAllBytes(st);
        refused(ErrorKind.OUTPUT_CONFLICT, () -> Converter.run(withBase(st, MINI_CACT, MINI_CACT), QUIET));
        assertThat(Files.readAllBytes(st)).isEqualTo(before);
    }

    @Test
    void aNanWeightIsNamedAndNothingIsWritten(@TempDir Path tmp) throws Exception {
        FlaxCheckpoint ckpt = FlaxCheckpointReader.read(MINI_CKPT);
        SequencedMap<String, NpyArray> params = new LinkedHashMap<>(ckpt.params());
        NpyArray k = params.get("stack/layers/block/self_attn/k_proj/kernel");
        float[] v = k.asFloats();
        v[3 * 128 * 64 + 5 * 64 + 7] = Float.NaN; // layer 3, Flax [in 5, out 7]
        params.put("stack/layers/block/self_attn/k_proj/kernel", NpyArray.ofFloats(k.shape(), v));
        Path bad = tmp.resolve("bad.pkl");
        FlaxCheckpointWriter.write(ckpt.withParams(params), bad);
        Path out = tmp.resolve("bad.cact");
        FormatException e = malformed(ErrorKind.NON_FINITE, () -> Converter.run(new ConvertRequest(bad, out, null, null, null, TOK, null, null, false), QUIET));
        assertThat(e.file()).isEqualTo(bad);
        assertThat(e.tensorName()).isEqualTo("stack/layers/block/self_attn/k_proj/kernel");
        assertThat(e).hasMessageContaining("at element 24903 = [3, 5, 7])"); // the element's index is in the wording only
        assertThat(out).doesNotExist();
        try (var files = Files.list(tmp)) {
            assertThat(files).containsExactly(bad);
        }
    }

    @Test
    void stateDictWithAnUnknownKeyIsRefused(@TempDir Path tmp) throws Exception {
        Path st = tmp.resolve("mini.safetensors");
        Converter.run(request(MINI_CACT, st), QUIET);
        Map<String, NpyArray> dict = new LinkedHashMap<>(Safetensors.read(st).tensors());
        dict.put("layers.99.attn.q_proj.weight", NpyArray.ofFloats(new int[] {1}, new float[1]));
        try (var out = Files.newOutputStream(st)) {
            Safetensors.write(out, dict, Map.of());
        }
        assertThat(malformed(ErrorKind.UNKNOWN_KEY, () -> Converter.run(withBase(st, tmp.resolve("x.cact"), MINI_CACT), QUIET)).tensorName())
                .isEqualTo("layers.99.attn.q_proj.weight");
    }

    @Test
    void aBaseOfAnotherGeometryIsRefused(@TempDir Path tmp) throws Exception {
        Path st = tmp.resolve("mini.safetensors");
        Converter.run(request(MINI_CACT, st), QUIET);
        Geometry g = Geometry.mini();
        Geometry wider = new Geometry(g.vocab(), g.dModel(), g.numHeads(), g.numKvHeads(), g.numLayers() + 1, g.headDim(), g.maxSeqLen(),
                g.hadaN(), g.mhcLanes(), g.engramSlots(), g.engramSubDim(), g.numEngramTables(), g.engramConvTaps(),
                g.engramConvDilation(), g.engramOrders(), g.engramSites(), g.ropeTheta(), g.kvWindow(), g.kvBits());
        Path base = tmp.resolve("other.cact");
        CactWriter.write(SyntheticCact.build(wider, 3, List.of(ProbeHead.CONTRASTIVE, ProbeHead.CONFIDENCE),
                SyntheticTokenizerBlob.of(g.vocab(), 20_000)), base);
        Path out = tmp.resolve("out.cact");
        assertThat(malformed(ErrorKind.SHAPE_MISMATCH, () -> Converter.run(withBase(st, out, base), QUIET)).tensorName()).isEqualTo("mhc.a_pre");
        assertThat(out).doesNotExist();
    }

    private static String sha(Path p) throws Exception {
        return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
    }
}
