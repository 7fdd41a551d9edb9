package dev.needlewb.converter.cact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.golden.Golden;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The tag at byte 0 picks the generation; a tag of none, or a header the workbench does not read, is refused by name at byte 0, before anything else. */
class CactGenerationsTest {

    private static FormatException refusal(byte[] bytes, String name) {
        FormatException e = catchThrowableOfType(FormatException.class, () -> CactFile.parse(MemorySegment.ofArray(bytes), Path.of(name)));
        assertThat(e).as("expected a FormatException").isNotNull();
        assertThat(e.offset()).isZero();
        assertThat(e.tensorIndex()).isEqualTo(FormatException.NO_TENSOR);
        return e;
    }

    @Test
    void upstreamsNeedle3FileReadsAsNeedle3WithItsOwnHeader() throws Exception {
        byte[] v3 = Files.readAllBytes(Golden.v3mini("mini3.cact"));
        assertThat(ByteBuffer.wrap(v3).order(ByteOrder.LITTLE_ENDIAN).getInt(0)).isEqualTo(Generation.NEEDLE3.tag());
        CactFile f = CactFile.parse(MemorySegment.ofArray(v3), Path.of("mini3.cact"));
        assertThat(f.geometry().generation()).isEqualTo(Generation.NEEDLE3);
        assertThat(f.generation().header().headerBytes()).isEqualTo(196);
        assertThat(f.tensor(0).offset()).isEqualTo(CactFormat.align(CactFormat.recordOffset(196, f.numTensors())));
    }

    @Test
    void aTagOfNoGenerationNamesTheKnownOnes() throws Exception {
        byte[] other = Files.readAllBytes(Golden.v3mini("mini3.cact"));
        ByteBuffer.wrap(other).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 0x05E12A85);
        assertThat(refusal(other, "x.cact").getMessage()).isEqualTo("x.cact: at byte 0: tag 0x05E12A85 is not a .cact tag (known: "
                + "0x05E12A83 (Needle 2), 0x05E12A82 (Needle 2, legacy header), 0x05E12A84 (Needle 3))");
    }

    @Test
    void theLegacyNeedle2HeaderWithoutAGeometryIsNamedAndRefused() throws Exception {
        // upstream v2.0.1-2.0.2 wrote <IIIII> (tag, num_tensors, codebook_len, kv_window, kv_bits) before the codebook
        byte[] legacy = Files.readAllBytes(Golden.mini("mini.cact"));
        ByteBuffer.wrap(legacy).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 0x05E12A82);
        FormatException e = refusal(legacy, "old.cact");
        assertThat(e.kind()).isEqualTo(ErrorKind.BAD_TAG);
        // the wording is the point: it tells what to do with such a file
        assertThat(e).hasMessageContaining("give the model's config with --config (a checkpoint .pkl or a JSON config);"
                + " convert FILE --to NEW.cact --config C upgrades it to 0x05E12A83");
    }

    @Test
    void eachTagMapsToOneGeneration() {
        assertThat(Generation.ofTag(0x05E12A83)).contains(Generation.NEEDLE2);
        assertThat(Generation.ofTag(0x05E12A82)).contains(Generation.NEEDLE2);
        assertThat(Generation.NEEDLE2.isLegacyTag(0x05E12A82)).isTrue();
        assertThat(Generation.ofTag(0x05E12A84)).contains(Generation.NEEDLE3);
        assertThat(Generation.ofTag(0x05E12A85)).isEmpty();
        assertThat(Generation.ofTag(0)).isEmpty();
    }

    @Test
    void aFileReadsAsTheGenerationItsTagNamesAndIsWrittenBackWithThatTagAndHeader() throws Exception {
        try (CactFile f = CactFile.open(Golden.mini("mini.cact"))) {
            assertThat(f.generation().generation()).isEqualTo(Generation.NEEDLE2);
            assertThat(f.geometry().generation()).isEqualTo(Generation.NEEDLE2);
            assertThat(f.generation().header().headerBytes()).isEqualTo(120);
            assertThat(f.tensor(0).offset()).as("first blob after the 120-byte header, codebook and directory")
                    .isEqualTo(CactFormat.align(CactFormat.recordOffset(120, f.numTensors())));
            byte[] written = CactWriter.toBytes(CactModel.from(f));
            assertThat(ByteBuffer.wrap(written).order(ByteOrder.LITTLE_ENDIAN).getInt(0)).isEqualTo(Generation.NEEDLE2.tag());
            assertThat(f.generation().header().fields(f.geometry())).containsEntry("head_dim", 32).containsEntry("engram_layers", new int[] {1, 4});
        }
    }
}
