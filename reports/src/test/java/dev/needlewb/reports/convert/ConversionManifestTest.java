package dev.needlewb.reports.convert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.convert.Converter;
import dev.needlewb.converter.convert.Format;
import dev.needlewb.converter.convert.TensorConversion;
import dev.needlewb.converter.names.Transform;
import dev.needlewb.reports.report.InputFile;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The conversion manifest counts kept and re-encoded tensors as its rows do, and prints an exact 0 as 0. */
class ConversionManifestTest {
    private static final InputFile OUT = new InputFile("output", Path.of("out.cact"), 10, "ab");

    private static TensorConversion kept(String name) {
        return new TensorConversion(name, Transform.NONE, "cq2/128", 2, 128, true, 0, 0, 0, 0);
    }

    private static String markdown(List<TensorConversion> tensors) {
        return new ConversionManifest(new Converter.Result(Format.TORCH, Format.CACT, tensors), List.of(), OUT).markdown();
    }

    @Test
    void keptAndReencodedTensorsAreCountedFromTheRows() {
        TensorConversion exact = new TensorConversion("norm", Transform.NONE, "fp16", 0, 0, false, 0, 0, -1, -1);
        TensorConversion moved = new TensorConversion("q_proj", Transform.TRANSPOSE, "cq2/128", 2, 128, false, 2.5e-3, 4e-4, 17, 3);
        String md = markdown(List.of(kept("a"), exact, kept("b"), moved));
        assertThat(md).contains("- tensors: 4 (2 kept byte for byte from the base)", "## Re-encoded tensors",
                "| norm | NONE | fp16 | 0 | 0 | - | - |", "| q_proj | TRANSPOSE | cq2/128 | 0.00250 | 0.000400 | 17 | 3 |")
                .doesNotContain("| a |", "| b |", "0.00 |");
    }

    @Test
    void noneRewrittenAndNoTensorsAreToldApart() {
        assertThat(markdown(List.of(kept("a")))).contains("None: every tensor kept its base bytes.");
        assertThat(markdown(List.of())).contains("- tensors: 0\n", "None: the output holds no tensors.")
                .doesNotContain("kept its base bytes");
    }
}
