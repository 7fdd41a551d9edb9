package dev.needlewb.converter.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactFormat;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.convert.WeightSources;
import dev.needlewb.converter.cq.CqBlob;
import dev.needlewb.converter.cq.CqPacking;
import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.converter.flax.FlaxCheckpointReader;
import dev.needlewb.converter.names.BitsMap;
import dev.needlewb.converter.tokenizer.SentencePieceModel;
import dev.needlewb.golden.Golden;
import dev.needlewb.oracle.ExactCq;
import dev.needlewb.oracle.GroupDecision;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Upstream's {@code build_export} on the golden mini checkpoint and tok512.model wrote
 * mini.cact; our export of the same inputs must match it: header, codebook, directory, every
 * FP16 blob and the tokenizer byte for byte; CQ codes and norms equal except where the exact
 * oracle certifies the group as a boundary case.
 */
class CactExporterGoldenTest {

    static byte[] exportMini() throws Exception {
        FlaxCheckpoint ckpt = FlaxCheckpointReader.read(Golden.mini("mini.ckpt.pkl"));
        byte[] tokenizer = SentencePieceModel.read(Golden.mini("tok512.model")).toVocab().toBytes();
        ModelWeights w = WeightSources.fromCheckpoint(ckpt).withTokenizer(tokenizer);
        BitsMap bits = BitsMap.parse((String) ckpt.config().get("weight_bits"));
        return dev.needlewb.converter.cact.CactWriter.toBytes(CactExporter.export(w, bits, n -> {}).model());
    }

    @Test
    void exportOfTheMiniCheckpointEqualsUpstreamsFile() throws Exception {
        byte[] ours = exportMini();
        byte[] golden = Files.readAllBytes(Golden.mini("mini.cact"));
        assertThat(ours).hasSameSizeAs(golden);
        CactFile gf = CactFile.parse(MemorySegment.ofArray(golden), Path.of("mini.cact"));
        CactFile of = CactFile.parse(MemorySegment.ofArray(ours), Path.of("ours.cact"));
        int headerBytes = (int) CactFormat.recordOffset(gf.numTensors());
        assertThat(Arrays.copyOf(ours, headerBytes)).as("header, codebook, directory").isEqualTo(Arrays.copyOf(golden, headerBytes));

        FlaxCheckpoint ckpt = FlaxCheckpointReader.read(Golden.mini("mini.ckpt.pkl"));
        ModelWeights source = WeightSources.fromCheckpoint(ckpt);
        List<String> certified = new ArrayList<>();
        List<String> uncertified = new ArrayList<>();
        for (TensorRecord r : gf.tensors()) {
            byte[] g = gf.blob(r.index()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            byte[] o = of.blob(r.index()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            if (r.dtype() != CactDType.CQ) {
                assertThat(o).as(r.name()).isEqualTo(g);
                continue;
            }
            if (Arrays.equals(o, g)) continue;
            audit(r, gf.cqBlob(r.index()), of.cqBlob(r.index()), source.tensors().get(r.name()).asFloats(),
                    gf.codebookFor(r.bits(), r.group()), certified, uncertified);
        }
        System.out.printf("mini export vs upstream: %d CQ differences, all certified %s%n", certified.size(), certified);
        assertThat(uncertified).isEmpty();
        // Our rotation is float64 (SPEC 4); golden cq_fragile.json lists 0 fragile codes for a float64 rotation.
        assertThat(certified).isEmpty();
        assertThat(CactFile.sha256(MemorySegment.ofArray(ours))).isEqualTo(CactFile.sha256(MemorySegment.ofArray(golden)));
    }

    private static void audit(TensorRecord r, CqBlob golden, CqBlob ours, float[] w, float[] codebook,
            List<String> certified, List<String> uncertified) {
        int rows = (int) r.dim(0), cols = (int) r.dim(1), group = r.group();
        int inPad = (int) golden.inPad();
        byte[] gc = new byte[inPad], oc = new byte[inPad];
        for (int row = 0; row < rows; row++) {
            CqPacking.unpackRow(golden.codes(), row * golden.rowBytes(), inPad, r.bits(), gc);
            CqPacking.unpackRow(ours.codes(), row * ours.rowBytes(), inPad, r.bits(), oc);
            for (int gi = 0; gi < inPad / group; gi++) {
                float[] values = new float[group];
                System.arraycopy(w, row * cols + gi * group, values, 0, Math.min(group, cols - gi * group));
                GroupDecision d = null;
                for (int j = 0; j < group; j++) {
                    int k = gi * group + j;
                    if (gc[k] == oc[k]) continue;
                    if (d == null) d = ExactCq.decide(values, codebook);
                    String where = r.name() + " (" + row + ", " + k + ") ours " + oc[k] + " upstream " + gc[k];
                    boolean ok = (oc[k] == d.codes()[j] || d.certifiesCode(j, oc[k])) && (gc[k] == d.codes()[j] || d.certifiesCode(j, gc[k]));
                    (ok ? certified : uncertified).add(where);
                }
                short gn = Float.floatToFloat16(golden.norm(row, gi)), on = Float.floatToFloat16(ours.norm(row, gi));
                if (gn != on) {
                    if (d == null) d = ExactCq.decide(values, codebook);
                    boolean ok = (on == d.float16Norm() || d.certifiesNorm(on)) && (gn == d.float16Norm() || d.certifiesNorm(gn));
                    (ok ? certified : uncertified).add(r.name() + " (" + row + ", group " + gi + ") norm");
                }
            }
        }
    }
}
