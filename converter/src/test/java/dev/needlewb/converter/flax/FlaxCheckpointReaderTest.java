package dev.needlewb.converter.flax;

import static dev.needlewb.core.Refusals.malformed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.golden.Golden;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FlaxCheckpointReaderTest {
    /** The param tree of golden/README.md section 1, written out independently of FlaxParamShapes. */
    private static final String README_TREE = """
            confidence_head/probes 8,128
            confidence_head/proj/bias 1
            confidence_head/proj/kernel 1024,1
            contrastive_head/log_temp
            contrastive_head/probes 4,128
            contrastive_head/proj/kernel 512,128
            embedding/embedding 512,128
            engrams_0/embedding 2,256,64
            engrams_0/key_proj/kernel 128,128
            engrams_0/taps 4,128
            engrams_0/value_proj/kernel 128,128
            engrams_1/embedding 2,256,64
            engrams_1/key_proj/kernel 128,128
            engrams_1/taps 4,128
            engrams_1/value_proj/kernel 128,128
            stack/final_norm/scale 128
            stack/layers/block/ZCRMSNorm_0/scale 6,128
            stack/layers/block/attn_gate 6
            stack/layers/block/hadamard_mlp/d1 6,128
            stack/layers/block/hadamard_mlp/d2 6,128
            stack/layers/block/hadamard_mlp/d3 6,128
            stack/layers/block/post_attn_norm/scale 6,128
            stack/layers/block/pre_hada_norm/scale 6,128
            stack/layers/block/self_attn/gate_proj/kernel 6,128,128
            stack/layers/block/self_attn/k_norm/scale 6,32
            stack/layers/block/self_attn/k_proj/kernel 6,128,64
            stack/layers/block/self_attn/out_proj/kernel 6,128,128
            stack/layers/block/self_attn/q_norm/scale 6,32
            stack/layers/block/self_attn/q_proj/kernel 6,128,128
            stack/layers/block/self_attn/v_proj/kernel 6,128,64
            stack/mhc_a_post 6
            stack/mhc_a_pre 6
            stack/mhc_a_res 6
            stack/mhc_b_post 6,4
            stack/mhc_b_pre 6,4
            stack/mhc_b_res 6,4,4
            stack/mhc_phi_post 6,512,4
            stack/mhc_phi_pre 6,512,4
            stack/mhc_phi_res 6,512,16
            """;

    static FlaxCheckpoint golden() throws WorkbenchException {
        return FlaxCheckpointReader.read(Golden.mini("mini.ckpt.pkl"));
    }

    static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String shapeText(int[] shape) {
        StringBuilder sb = new StringBuilder();
        for (int d : shape) sb.append(sb.isEmpty() ? "" : ",").append(d);
        return sb.toString();
    }

    @Test
    void goldenParamTreeIsTheReadmeTreeInSortedOrder() throws Exception {
        FlaxCheckpoint ckpt = golden();
        StringBuilder tree = new StringBuilder();
        for (var e : ckpt.params().entrySet()) {
            tree.append(e.getKey());
            if (e.getValue().shape().length > 0) tree.append(' ').append(shapeText(e.getValue().shape()));
            tree.append('\n');
            assertThat(e.getValue().descr()).as(e.getKey()).isEqualTo("<f4");
        }
        assertThat(tree.toString()).isEqualTo(README_TREE);
    }

    @Test
    void goldenArraysAreBitIdenticalToWhatNumpyLoads() throws Exception {
        FlaxCheckpoint ckpt = golden();
        String out = PythonNumpy.run("""
                import hashlib
                ck = pickle.load(open(sys.argv[1], 'rb'))
                def walk(prefix, node):
                    for k in sorted(node):
                        v = node[k]
                        p = prefix + '/' + k if prefix else k
                        if isinstance(v, dict):
                            walk(p, v)
                        else:
                            a = np.ascontiguousarray(v)
                            print(p, a.dtype.str, hashlib.sha256(a.tobytes()).hexdigest(), repr(float(a.astype(np.float64).sum())))
                walk('', ck['params'])
                """, Golden.mini("mini.ckpt.pkl").toString());
        List<String> lines = out.lines().toList();
        assertThat(lines).hasSize(ckpt.params().size());
        int i = 0;
        for (var e : ckpt.params().entrySet()) {
            String[] f = lines.get(i++).split(" ");
            assertThat(f[0]).isEqualTo(e.getKey());
            assertThat(f[1]).isEqualTo(e.getValue().descr());
            // sha256 of the raw C-order bytes: bit-exact equality with numpy's array.
            assertThat(f[2]).as(e.getKey()).isEqualTo(sha256(e.getValue().data()));
            double sum = 0, abs = 0;
            for (double v : e.getValue().asDoubles()) {
                sum += v;
                abs += Math.abs(v);
            }
            // float64 sums of float32 values: only the summation order differs (numpy is pairwise).
            assertThat(sum).as(e.getKey()).isCloseTo(Double.parseDouble(f[3]), org.assertj.core.data.Offset.offset(1e-12 * (abs + 1e-30)));
        }
    }

    @Test
    void goldenConfigStepAndRun() throws Exception {
        FlaxCheckpoint ckpt = golden();
        assertThat(ckpt.formatVersion()).isEqualTo(2);
        assertThat(ckpt.step()).isEqualTo(0L);
        assertThat(ckpt.run()).isEqualTo(Map.of("note", "synthetic oracle checkpoint 'mini' seed 1234"));
        assertThat(ckpt.config()).containsEntry("vocab_size", 512L).containsEntry("rope_theta", 100000.0)
                .containsEntry("engram_orders", List.of(2L, 3L)).containsEntry("engram_layers", List.of(1L, 4L))
                .containsEntry("flash", true).containsEntry("dtype", "bfloat16")
                .containsEntry("weight_bits", "embedding=4,mhc=4,default=2");
        assertThat(ckpt.config().keySet()).containsExactly("vocab_size", "d_model", "attn_dim", "num_heads",
                "num_kv_heads", "num_layers", "max_seq_len", "pad_token_id", "contrastive_dim", "rope_theta", "dtype",
                "flash", "engram_orders", "engram_heads", "engram_slots", "engram_layers", "mhc_lanes", "kv_window",
                "kv_bits", "act_bits", "weight_bits", "remat", "scan_unroll");
        FlaxConfig c = ckpt.flaxConfig();
        assertThat(KvBudget.effectiveWindow(c)).isEqualTo(256);
        assertThat(c.toGeometry(KvBudget.effectiveWindow(c))).isEqualTo(Geometry.mini());
    }

    @Test
    void formatVersionOneIsRefused(@TempDir Path tmp) throws Exception {
        FlaxCheckpoint g = golden();
        FlaxCheckpoint v1 = new FlaxCheckpoint(1, g.params(), g.config(), g.step(), g.run());
        Path file = tmp.resolve("v1.pkl");
        FlaxCheckpointWriter.write(v1, file);
        assertThat(malformed(ErrorKind.UNSUPPORTED, () -> FlaxCheckpointReader.read(file)).file()).isEqualTo(file);
    }

    @Test
    void wrongShapeMissingAndExtraParamsAreRefusedByPath(@TempDir Path tmp) throws Exception {
        FlaxCheckpoint g = golden();
        SequencedMap<String, NpyArray> p = new LinkedHashMap<>(g.params());
        p.put("stack/mhc_a_pre", NpyArray.ofFloats(new int[] {5}, new float[5]));
        Path wrong = tmp.resolve("wrong.pkl");
        FlaxCheckpointWriter.write(g.withParams(p), wrong);
        assertThat(malformed(ErrorKind.SHAPE_MISMATCH, () -> FlaxCheckpointReader.read(wrong)).tensorName()).isEqualTo("stack/mhc_a_pre");

        p = new LinkedHashMap<>(g.params());
        p.remove("stack/layers/block/self_attn/k_norm/scale");
        Path missing = tmp.resolve("missing.pkl");
        FlaxCheckpointWriter.write(g.withParams(p), missing);
        assertThat(malformed(ErrorKind.MISSING_KEY, () -> FlaxCheckpointReader.read(missing)).tensorName())
                .isEqualTo("stack/layers/block/self_attn/k_norm/scale");

        p = new LinkedHashMap<>(g.params());
        p.put("stack/extra/kernel", NpyArray.ofFloats(new int[] {2}, new float[2]));
        Path extra = tmp.resolve("extra.pkl");
        FlaxCheckpointWriter.write(g.withParams(p), extra);
        assertThat(malformed(ErrorKind.UNKNOWN_KEY, () -> FlaxCheckpointReader.read(extra)).tensorName()).isEqualTo("stack/extra/kernel");
        assertThat(FlaxCheckpointReader.read(extra, true, dev.needlewb.converter.finite.NonFinitePolicy.REFUSE).params()).containsKey("stack/extra/kernel");
    }

    @Test
    void nonArrayLeavesAndMissingKeysAreRefused() throws Exception {
        Path name = Path.of("crafted.pkl");
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("format_version", 2L);
        root.put("params", Map.of("embedding", Map.of("embedding", "not an array")));
        root.put("config", Map.of());
        assertThat(malformed(ErrorKind.BAD_PICKLE, () -> FlaxCheckpointReader.fromTree(name, SafePickle.load(name, PickleBytes.of(root)), false))
                .tensorName()).isEqualTo("embedding/embedding");

        root.remove("config");
        malformed(ErrorKind.MISSING_KEY, () -> FlaxCheckpointReader.fromTree(name, SafePickle.load(name, PickleBytes.of(root)), false));

        root.put("config", Map.of());
        root.put("params", Map.of("embedding", Map.of("embedding", NpyArray.ofInts(new int[] {1}, new int[] {7}))));
        assertThat(malformed(ErrorKind.UNSUPPORTED_DTYPE, () -> FlaxCheckpointReader.fromTree(name, SafePickle.load(name, PickleBytes.of(root)), false))
                .tensorName()).isEqualTo("embedding/embedding");
    }
}
