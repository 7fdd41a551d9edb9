package dev.needlewb.converter.synth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactSummary;
import dev.needlewb.converter.cact.CactSummary.Category;
import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.core.v3.V3Geometry;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A synthetic Needle 3 file of the released geometry, written with the shipped bits scheme
 * (embedding=4, mhc=4, default=2; the confidence head's matrices at upstream's HEAD_BITS 4),
 * reproduces the published figures of needle3.cact (issue 37; github Geekgineer/needle-rs,
 * docs/v3-port-record.md). The tokenizer size is derived from the published file size
 * ({@link SyntheticV3Cact#RELEASED_TOKENIZER_BYTES}); everything else follows from the geometry.
 */
class SyntheticV3CactTest {
    @Test
    void releasedGeometryHasThePublishedFigures(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("needle3.cact");
        CactWriter.write(SyntheticV3Cact.released(7), file);
        try (CactFile cact = CactFile.open(file)) {
            CactSummary s = CactSummary.of(cact);
            assertThat(cact.geometry()).isEqualTo(V3Geometry.released());
            assertThat(s.fileBytes()).isEqualTo(35_335_380);
            assertThat(s.tensors()).isEqualTo(581);
            assertThat(s.get(Category.CQ2).tensors() + s.get(Category.CQ4).tensors()).isEqualTo(122);
            assertThat(s.get(Category.FP16).tensors()).isEqualTo(456);
            assertThat(s.get(Category.FP32).tensors()).isEqualTo(2);
            assertThat(s.get(Category.RAW).tensors()).isEqualTo(1);
            // counting the two FP32 permutations (2 x 1024), as the published figure does
            assertThat(s.parameters()).isEqualTo(121_021_910);
            assertThat(s.get(Category.FP32).parameters()).isEqualTo(2048);
            // the scheme: embedding, the three mhc_phi and the head's probes/query/proj at 4 bits
            assertThat(s.get(Category.CQ4).tensors()).isEqualTo(7);
            assertThat(cact.tensor("layer00.q_proj").bits()).isEqualTo(2);
            assertThat(cact.tensor("engram4.tables").bits()).isEqualTo(2);
            assertThat(cact.tensor("confidence_head.proj").bits()).isEqualTo(4);
            TensorRecord tokenizer = cact.tensor("tokenizer");
            // the blobs before the tokenizer end at 35,226,240 whichever tokenizer follows
            assertThat(tokenizer.offset()).isEqualTo(35_226_240);
        }
    }

    @Test
    void sameSeedSameBytes() throws Exception {
        byte[] a = CactWriter.toBytes(SyntheticV3Cact.released(3));
        byte[] b = CactWriter.toBytes(SyntheticV3Cact.released(3));
        assertThat(a).isEqualTo(b);
    }
}
