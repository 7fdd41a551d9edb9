package dev.needlewb.converter.v2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.convert.ConvertRequest;
import dev.needlewb.converter.convert.Converter;
import dev.needlewb.converter.flax.FlaxCheckpointReader;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.golden.Golden;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Needle 2's legacy header (tag 0x05E12A82, upstream v2.0.1-2.0.2: {@code <IIIII} tag, num_tensors,
 * codebook_len, kv_window, kv_bits, then the codebook and the directory, no geometry), on files
 * derived from the golden mini.cact: read with a config's geometry, refused without one, upgraded to
 * the current header with every blob byte-identical.
 */
class LegacyHeaderTest {
    private static final Path MINI = Golden.mini("mini.cact");
    private static final Path CKPT = Golden.mini("mini.ckpt.pkl");
    private static final Converter.Listener QUIET = (done, total) -> {};

    private static Path legacy(Path dir) throws Exception {
        return Files.write(dir.resolve("legacy.cact"), LegacyCact.of(MINI));
    }

    private static ConvertRequest upgrade(Path in, Path out, Path config) {
        return new ConvertRequest(in, out, null, null, null, null, config, null, false);
    }

    @Test
    void upgradingWithTheCheckpointsConfigGivesUpstreamsCurrentFileByteForByte(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("upgraded.cact");
        Converter.run(upgrade(legacy(dir), out, CKPT), QUIET);
        assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(MINI));
    }

    @Test
    void aJsonConfigOfTheSameFieldsDoesTheSame(@TempDir Path dir) throws Exception {
        Map<String, Object> config = new LinkedHashMap<>(FlaxCheckpointReader.readStructure(CKPT).config());
        Path json = dir.resolve("config.json");
        new JsonMapper().writeValue(json.toFile(), Map.of("config", config));
        Path out = dir.resolve("upgraded.cact");
        Converter.run(upgrade(legacy(dir), out, json), QUIET);
        assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(MINI));
    }

    @Test
    void readWithAGeometryTheLegacyFileHoldsTheSameTensors(@TempDir Path dir) throws Exception {
        try (CactFile legacy = CactFile.open(legacy(dir), dev.needlewb.converter.finite.NonFinitePolicy.REFUSE,
                dev.needlewb.converter.flax.ConfigGeometry.read(CKPT)); CactFile current = CactFile.open(MINI)) {
            assertThat(legacy.hasLegacyHeader()).isTrue();
            assertThat(current.hasLegacyHeader()).isFalse();
            assertThat(legacy.geometry()).isEqualTo(current.geometry());
            for (int i = 0; i < current.numTensors(); i++) {
                assertThat(legacy.blob(i).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))
                        .as(current.tensor(i).name()).isEqualTo(current.blob(i).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            }
        }
    }

    @Test
    void withoutAGeometryItIsRefusedAtByteZeroSayingHowToGiveOne(@TempDir Path dir) throws Exception {
        Path legacy = legacy(dir);
        assertThatThrownBy(() -> CactFile.open(legacy)).isInstanceOfSatisfying(FormatException.class,
                e -> assertThat(e.getMessage()).startsWith(legacy + ": at byte 0: tag 0x05E12A82 marks Needle 2's legacy header")
                        .contains("--config").doesNotContain("\n"));
    }

    @Test
    void aConfigOfAnotherGeometryIsRefusedBeforeAnythingIsWritten(@TempDir Path dir) throws Exception {
        Map<String, Object> config = new LinkedHashMap<>(FlaxCheckpointReader.readStructure(CKPT).config());
        config.put("num_layers", ((Long) config.get("num_layers")) + 1);
        Path json = dir.resolve("wrong.json");
        new JsonMapper().writeValue(json.toFile(), config);
        Path out = dir.resolve("upgraded.cact");
        assertThatThrownBy(() -> Converter.run(upgrade(legacy(dir), out, json), QUIET)).isInstanceOf(FormatException.class);
        assertThat(out).doesNotExist();
    }

    @Test
    void aCurrentFileHasNothingToUpgrade(@TempDir Path dir) {
        Path out = dir.resolve("upgraded.cact");
        assertThatThrownBy(() -> Converter.run(upgrade(MINI, out, CKPT), QUIET)).isInstanceOf(WorkbenchException.class)
                .hasMessageContaining("already the current one (tag 0x05E12A83)");
        assertThat(out).doesNotExist();
    }
}
