package dev.needlewb.converter.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.v2.V2Header;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.convert.WeightSources;
import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.converter.flax.FlaxCheckpointReader;
import dev.needlewb.converter.names.BitsMap;
import dev.needlewb.core.tokenizer.SentencePieceModel;
import dev.needlewb.golden.CqAudit;
import dev.needlewb.golden.Golden;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
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
        byte[] tokenizer = SentencePieceModel.read(Golden.mini("tok512.model")).toVocab(dev.needlewb.core.generation.Generation.NEEDLE2).toBytes();
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
        int headerBytes = (int) V2Header.recordOffset(gf.numTensors());
        assertThat(Arrays.copyOf(ours, headerBytes)).as("header, codebook, directory").isEqualTo(Arrays.copyOf(golden, headerBytes));

        ModelWeights source = WeightSources.fromCheckpoint(FlaxCheckpointReader.read(Golden.mini("mini.ckpt.pkl")));
        CqAudit.Result audit = CqAudit.ofExport(gf, of, source).result();
        System.out.printf("mini export: %d CQ codes in %d groups held to the exact decision, %d groups near a boundary decided by"
                + " the oracle; %d differences (from upstream or the exact decision), all certified %s%n",
                audit.codes(), audit.groups(), audit.screened(), audit.certified().size(), audit.certified());
        assertThat(audit.uncertified()).isEmpty();
        assertThat(audit.codes()).isPositive();
        List<String> certified = audit.certified();
        // Our rotation is float64 (SPEC 4); golden cq_fragile.json lists 0 fragile codes for a float64 rotation.
        assertThat(certified).isEmpty();
        assertThat(CactFile.sha256(MemorySegment.ofArray(ours))).isEqualTo(CactFile.sha256(MemorySegment.ofArray(golden)));
    }
}
