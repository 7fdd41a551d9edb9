package dev.needlewb.converter.flax.v3;

import static dev.needlewb.core.Refusals.malformed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.converter.flax.FlaxCheckpointReader;
import dev.needlewb.converter.flax.FlaxCheckpointWriter;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.golden.Golden;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SequencedMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class V3CheckpointReaderTest {
    @Test
    void readsTheGoldenNeedle3Checkpoint() throws WorkbenchException {
        V3Checkpoint c = V3CheckpointReader.read(Golden.v3mini("mini3.ckpt.pkl"));
        V3Config g = c.config();
        // the geometry of golden/v3mini/README.md
        assertThat(new int[] {g.vocabSize(), g.dModel(), g.numLayers(), g.numHeads(), g.numKvHeads(), g.qkDim(), g.vDim()})
                .containsExactly(512, 128, 4, 4, 2, 32, 48);
        assertThat(new int[] {g.slidingWindow(), g.qkvConvTaps(), g.engramSlots(), g.engram().subDim(), g.engram().tables(), g.hadaN()})
                .containsExactly(16, 3, 256, 64, 2, 128);
        assertThat(g.globalLayers()).containsExactly(2);
        assertThat(g.engramLayers()).containsExactly(1, 3);
        assertThat(g.logitRows()).isEqualTo(512);
        assertThat(c.step()).isZero();
        // the same 52 leaves as the tree rebuilt from the .cact
        assertThat(c.params().keySet()).containsExactlyInAnyOrderElementsOf(
                Golden.npz(Golden.v3mini("deq_params.npz")).keySet());
    }

    @Test
    void mtpSubtreesAreDroppedAsUpstreamLoadCheckpointDoes(@TempDir Path dir) throws WorkbenchException {
        FlaxCheckpoint golden = FlaxCheckpointReader.readStructure(Golden.v3mini("mini3.ckpt.pkl"));
        SequencedMap<String, NpyArray> params = new LinkedHashMap<>(golden.params());
        params.put("mtp_block/x", NpyArray.ofFloats(new int[] {2}, new float[] {1, 2}));
        params.put("ab_scales/x", NpyArray.ofFloats(new int[] {1}, new float[] {3}));
        Path file = dir.resolve("with-mtp.pkl");
        FlaxCheckpointWriter.write(golden.withParams(params), file);
        V3Checkpoint c = V3CheckpointReader.read(file);
        assertThat(c.params()).doesNotContainKey("mtp_block/x").containsKey("ab_scales/x");
        assertThat(c.params()).hasSize(golden.params().size() + 1);
    }

    @Test
    void aNeedle2CheckpointIsRefusedNamingTheFile() {
        Path v2 = Golden.mini("mini.ckpt.pkl");
        assertThat(malformed(ErrorKind.WRONG_GENERATION, () -> V3CheckpointReader.read(v2)).file()).isEqualTo(v2);
    }

    @Test
    void configMapIsKeptVerbatimForOtherReaders() throws WorkbenchException {
        Map<String, Object> config = FlaxCheckpointReader.readStructure(Golden.v3mini("mini3.ckpt.pkl")).config();
        assertThat(config).containsEntry("qkv_conv_taps", 3L).containsEntry("dtype", "bfloat16");
    }
}
