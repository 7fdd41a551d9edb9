package dev.needlewb.converter.flax;

import static dev.needlewb.core.Refusals.malformed;
import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.golden.Golden;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoraAdapterTest {
    private static final List<String> TARGETS = List.of(
            "stack/layers/block/self_attn/q_proj/kernel", "stack/layers/block/self_attn/k_proj/kernel",
            "stack/layers/block/self_attn/out_proj/kernel");

    /** An adapter in finetune.py's format with nonzero B, and numpy's merge of it into the golden checkpoint. */
    private static void makeAdapter(Path adapter, Path merged) {
        PythonNumpy.run("""
                ck = pickle.load(open(sys.argv[1], 'rb'))
                rng = np.random.RandomState(7)
                rank, scale = 4, 0.75
                lora, out = {}, {}
                for path in sys.argv[4:]:
                    node = ck['params']
                    for k in path.split('/'):
                        node = node[k]
                    w = node
                    lead, i, o = w.shape[:-2], w.shape[-2], w.shape[-1]
                    a = (rng.randn(*lead, i, rank) / rank).astype(np.float32)
                    b = (rng.randn(*lead, rank, o) * 0.01).astype(np.float32)
                    lora[path] = {'A': a, 'B': b}
                    out[path] = w + (np.float32(scale) * np.matmul(a, b)).astype(w.dtype)
                pickle.dump({'lora': lora, 'scale': float(scale), 'base': 'checkpoints/needle2.pkl', 'rank': rank},
                            open(sys.argv[2], 'wb'))
                pickle.dump(out, open(sys.argv[3], 'wb'), protocol=4)
                """, concat(Golden.mini("mini.ckpt.pkl").toString(), adapter.toString(), merged.toString()));
    }

    private static String[] concat(String... head) {
        String[] all = new String[head.length + TARGETS.size()];
        System.arraycopy(head, 0, all, 0, head.length);
        for (int i = 0; i < TARGETS.size(); i++) all[head.length + i] = TARGETS.get(i);
        return all;
    }

    @Test
    void mergeMatchesNumpy(@TempDir Path tmp) throws Exception {
        Path adapterFile = tmp.resolve("needle_lora.pkl");
        Path mergedFile = tmp.resolve("merged.pkl");
        makeAdapter(adapterFile, mergedFile);
        LoraAdapter adapter = LoraAdapter.read(adapterFile);
        assertThat(adapter.rank()).isEqualTo(4);
        assertThat(adapter.scale()).isEqualTo(0.75);
        assertThat(adapter.base()).isEqualTo("checkpoints/needle2.pkl");
        assertThat(adapter.lora().keySet()).containsExactlyElementsOf(TARGETS);

        FlaxCheckpoint base = FlaxCheckpointReaderTest.golden();
        FlaxCheckpoint merged = adapter.mergeInto(base);
        Map<?, ?> numpy = (Map<?, ?>) SafePickle.load(mergedFile);
        for (String path : TARGETS) {
            float[] got = merged.params().get(path).asFloats();
            float[] want = ((NpyArray) numpy.get(path)).asFloats();
            float[] w = base.params().get(path).asFloats();
            float[] a = adapter.lora().get(path).a().asFloats(), b = adapter.lora().get(path).b().asFloats();
            int[] shape = base.params().get(path).shape();
            int in = shape[1], out = shape[2];
            int changed = 0;
            for (int k = 0; k < got.length; k++) {
                int l = k / (in * out), i = k / out % in, j = k % out;
                double magnitude = 0;
                for (int r = 0; r < 4; r++) magnitude += Math.abs(a[(l * in + i) * 4 + r] * b[(l * 4 + r) * out + j]);
                // numpy sums the rank-4 product in float32 (error <= 4 eps * sum|a b|), we in double;
                // both then round scale*AB and W+delta to float32 once each (eps = 2^-24 relative).
                double tol = 6e-7 * (Math.abs(w[k]) + 0.75 * magnitude * 5);
                assertThat((double) got[k]).as("%s[%d]", path, k).isCloseTo(want[k], org.assertj.core.data.Offset.offset(tol));
                if (got[k] != w[k]) changed++;
            }
            assertThat(changed).as(path).isGreaterThan(got.length / 2);
        }
        for (var e : base.params().entrySet()) {
            if (!TARGETS.contains(e.getKey())) assertThat(merged.params().get(e.getKey()).data()).isEqualTo(e.getValue().data());
        }
    }

    @Test
    void adapterForAMissingKernelOrWrongShapeIsRefused(@TempDir Path tmp) throws Exception {
        NpyArray a = NpyArray.ofFloats(new int[] {6, 128, 2}, new float[6 * 128 * 2]);
        NpyArray b = NpyArray.ofFloats(new int[] {6, 2, 128}, new float[6 * 2 * 128]);
        Path file = tmp.resolve("a.pkl");
        java.nio.file.Files.write(file, PickleBytes.of(Map.of("lora", Map.of("stack/nope/kernel", Map.of("A", a, "B", b)),
                "scale", 1.0, "base", "x", "rank", 2L)));
        LoraAdapter adapter = LoraAdapter.read(file);
        assertThat(refused(ErrorKind.UNKNOWN_KEY, () -> adapter.mergeInto(FlaxCheckpointReaderTest.golden())))
                .hasMessageContaining("stack/nope/kernel"); // the target is named in the wording only

        java.nio.file.Files.write(file, PickleBytes.of(Map.of("lora", Map.of(TARGETS.get(0), Map.of("A", a, "B", b)),
                "scale", 1.0, "base", "x", "rank", 3L)));
        assertThat(malformed(ErrorKind.SHAPE_MISMATCH, () -> LoraAdapter.read(file)).file()).isEqualTo(file);
    }
}
