package dev.needlewb.converter.torch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.convert.ConvertRequest;
import dev.needlewb.converter.convert.Converter;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.golden.Golden;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end: {@code mini.cact} converted to .pt by the converter, loaded (strict=True) by
 * notebooks/needle_torch.py, reproduces the golden float64 logits ({@code logits.<seq>.deq.q0})
 * and probe-head outputs of the mini model on s001, s007 and s040, in float64 and in float32.
 */
class NeedleTorchModelTest {
    @TempDir
    Path dir;

    @Test
    void convertedCactLoadsStrictlyAndReproducesGoldenLogits() throws Exception {
        Path pt = dir.resolve("mini.pt");
        Converter.run(new ConvertRequest(Golden.mini("mini.cact"), pt, null, null, null, null, null, null, false), (done, total) -> {});

        // The converter's tensors are exactly the golden deq weights under the TORCH_KEYS names,
        // mapped independently here from the Flax tree (deq_params.npz).
        Map<String, NpyArray> converted = TorchStateDict.read(pt);
        Map<String, NpyArray> expected = GoldenTorchStateDict.mini();
        assertThat(converted.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
        for (var e : expected.entrySet()) {
            NpyArray got = converted.get(e.getKey());
            assertThat(got.shape()).as(e.getKey()).isEqualTo(e.getValue().shape());
            assertThat(got.asFloats()).as(e.getKey()).isEqualTo(e.getValue().asFloats());
        }

        Path script = Golden.projectRoot().resolve("notebooks/check_torch_logits.py");
        String golden = Golden.mini("forward.npz").getParent().toString();
        // float64: the golden's own arithmetic, only summation order and libm differ: measured
        // worst 1.5e-15 relative (of the largest |output|, logits and heads); 1e-12 is the golden
        // README's float64 bound.
        String f64 = PythonTorch.runFile(script, pt.toString(), golden, "--dtype", "float64", "--tolerance", "1e-12");
        assertThat(f64).as(f64).contains("PASS");
        // float32 end to end: measured worst 4.0e-7 on logits, 9.1e-7 on the contrastive head (the
        // README's float32 range is 3e-7..1e-6); 5e-6 allows another BLAS's summation order, not a
        // wrong weight.
        String f32 = PythonTorch.runFile(script, pt.toString(), golden, "--dtype", "float32", "--tolerance", "5e-6");
        assertThat(f32).as(f32).contains("PASS");
    }
}
