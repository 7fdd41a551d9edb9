package dev.needlewb.converter.cact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.v2.ProbeHead;
import dev.needlewb.converter.synth.SyntheticCact;
import dev.needlewb.converter.synth.SyntheticTokenizerBlob;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CactNotesTest {
    private static CactFile parse(CactModel model) throws Exception {
        return CactFile.parse(MemorySegment.ofArray(CactWriter.toBytes(model)), Path.of("notes.cact"));
    }

    @Test
    void anOrdinaryExportHasNoNotes() throws Exception {
        Geometry g = Geometry.needle2();
        try (CactFile f = parse(SyntheticCact.build(g, 1, List.of(ProbeHead.CONFIDENCE), SyntheticTokenizerBlob.of(g.vocab(), 115_215)))) {
            assertThat(CactNotes.of(f)).isEmpty();
        }
    }

    @Test
    void unusualButValidFilesAreNoted() throws Exception {
        Geometry m = Geometry.mini();
        Geometry odd = new Geometry(m.vocab(), m.dModel(), m.numHeads(), m.numKvHeads(), m.numLayers(), m.headDim(), m.maxSeqLen(),
                m.hadaN(), m.mhcLanes(), m.engramSlots(), m.engramSubDim(), m.numEngramTables(), m.engramConvTaps(),
                m.engramConvDilation(), m.engramOrders(), new int[0], Float.POSITIVE_INFINITY, 0, 6);
        CactModel model = SyntheticCact.build(odd, 2, List.of(), null);
        // upstream writes matrices CQ; a dense FP16 embedding is readable, and noted
        List<CactTensor> ts = new ArrayList<>(model.tensors());
        long[] shape = ts.getFirst().shape();
        ts.set(0, CactTensor.of("embedding", CactDType.FP16, shape, 0, 0, new byte[(int) (shape[0] * shape[1] * 2)]));
        try (CactFile f = parse(new CactModel(odd, model.codebook(), ts))) {
            assertThat(f.hasTokenizer()).isFalse();
            assertThat(f.tokenizerBlob()).isNull();
            assertThat(CactNotes.of(f)).satisfiesExactly(
                    n -> assertThat(n).startsWith("kv_window 0: no window stored"),
                    n -> assertThat(n).startsWith("kv_bits 6: export.py documents 8 (int8) or 2, 3, 4"),
                    n -> assertThat(n).startsWith("no engram sites"),
                    n -> assertThat(n).startsWith("rope_theta is infinite"),
                    n -> assertThat(n).startsWith("no tokenizer: upstream's build_export writes none"),
                    n -> assertThat(n).isEqualTo("embedding is FP16 dense: upstream's exporter writes matrices CQ and vectors FP16"));
        }
    }
}
