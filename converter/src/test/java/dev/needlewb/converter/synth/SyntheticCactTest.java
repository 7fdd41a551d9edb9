package dev.needlewb.converter.synth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactSummary.Category;
import dev.needlewb.converter.cact.CactSummary.Counts;
import dev.needlewb.converter.cact.CactSummary;
import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.v2.ProbeHead;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A synthetic export of the released geometry reproduces the published counts (SPEC section 5). */
class SyntheticCactTest {
    @Test
    void releasedGeometryHasThePublishedCounts(@TempDir Path dir) throws Exception {
        byte[] tokenizer = SyntheticTokenizerBlob.of(8192, 115_215);
        Path file = dir.resolve("needle2.cact");
        CactWriter.write(SyntheticCact.build(Geometry.needle2(), 7, List.of(ProbeHead.CONTRASTIVE, ProbeHead.CONFIDENCE), tokenizer), file);
        try (CactFile cact = CactFile.open(file)) {
            CactSummary s = CactSummary.of(cact);
            assertThat(cact.geometry()).isEqualTo(Geometry.needle2());
            assertThat(s.tensors()).isEqualTo(405);
            assertThat(s.get(Category.CQ2)).isEqualTo(new Counts(141, 37_748_736, 10_027_008));
            assertThat(s.get(Category.CQ4)).isEqualTo(new Counts(4, 5_521_408, 2_846_976));
            assertThat(s.get(Category.FP16)).isEqualTo(new Counts(259, 364_279, 728_558));
            assertThat(s.get(Category.RAW)).isEqualTo(new Counts(1, 0, 115_215));
            assertThat(s.parameters()).isEqualTo(43_634_423);
            assertThat(s.fileBytes()).isEqualTo(13_737_807);
            // published to 6 decimals
            assertThat(s.codeWidth()).isCloseTo(2.255206, org.assertj.core.data.Offset.offset(5e-7));
            assertThat(cact.tensor("heads.manifest").shape()).containsExactly(2);
            assertThat(cact.dequantize(cact.tensor("heads.manifest").index())).containsExactly(1f, 2f);
        }
    }

    @Test
    void sameSeedSameBytes() throws Exception {
        byte[] tok = SyntheticTokenizerBlob.of(512, 6500);
        byte[] a = CactWriter.toBytes(SyntheticCact.build(Geometry.mini(), 3, List.of(), tok));
        byte[] b = CactWriter.toBytes(SyntheticCact.build(Geometry.mini(), 3, List.of(), tok));
        assertThat(a).isEqualTo(b);
        assertThat(CactFile.parse(java.lang.foreign.MemorySegment.ofArray(a), null).numTensors()).isEqualTo(104);
    }
}
