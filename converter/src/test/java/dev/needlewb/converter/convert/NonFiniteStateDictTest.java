package dev.needlewb.converter.convert;

import static dev.needlewb.core.Refusals.malformed;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.converter.safetensors.Safetensors;
import dev.needlewb.converter.torch.TorchStateDict;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.io.NpyArray;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NaN and infinities in every float dtype a state dict can hold: the reader refuses them naming the
 * file, the key, the first such element and, for safetensors, its byte offset, worked out here
 * from the file's own header; {@code ALLOW} hands the values on unchanged.
 */
class NonFiniteStateDictTest {
    private static final double[] NON_FINITE = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY};
    private static final int ELEMENTS = 10, AT = 7;

    /** A tensor of {@code descr} with {@code bad} at element {@link #AT}, as safetensors stores it. */
    private static byte[] stored(String dtype, double bad) {
        ByteBuffer b = ByteBuffer.allocate(ELEMENTS * width(dtype)).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < ELEMENTS; i++) {
            double v = i == AT ? bad : 0.25 * i;
            switch (dtype) {
                case "F64" -> b.putDouble(v);
                case "F32" -> b.putFloat((float) v);
                case "F16" -> b.putShort(Float.floatToFloat16((float) v));
                case "BF16" -> b.putShort((short) (Float.floatToRawIntBits((float) v) >>> 16));
                default -> throw new IllegalArgumentException(dtype);
            }
        }
        return b.array();
    }

    private static int width(String dtype) {
        return switch (dtype) {
            case "F64" -> 8;
            case "F32" -> 4;
            default -> 2;
        };
    }

    /** A finite tensor "ok" first, then "bad": the refused tensor does not start the data section. */
    private static byte[] safetensors(String dtype, double bad) throws Exception {
        byte[] ok = stored(dtype, 1.0), poisoned = stored(dtype, bad);
        String header = "{\"ok\":{\"dtype\":\"" + dtype + "\",\"shape\":[" + ELEMENTS + "],\"data_offsets\":[0," + ok.length + "]},"
                + "\"bad\":{\"dtype\":\"" + dtype + "\",\"shape\":[2," + ELEMENTS / 2 + "],\"data_offsets\":[" + ok.length + ","
                + (ok.length + poisoned.length) + "]}}";
        byte[] h = header.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(h.length).array());
        out.write(h);
        out.write(ok);
        out.write(poisoned);
        return out.toByteArray();
    }

    /** The byte offset of element {@code element} of {@code key}, read from the file's header. */
    private static long offsetOf(byte[] file, String key, int element) throws Exception {
        long headerLen = ByteBuffer.wrap(file, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        JsonNode entry = new ObjectMapper().readTree(new String(file, 8, (int) headerLen, StandardCharsets.UTF_8)).get(key);
        return 8 + headerLen + entry.get("data_offsets").get(0).asLong() + (long) element * width(entry.get("dtype").asText());
    }

    @Test
    void safetensorsRefusesEachNonFiniteKindAtItsByte(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("w.safetensors");
        for (String dtype : new String[] {"F64", "F32", "F16", "BF16"}) {
            for (double bad : NON_FINITE) {
                byte[] bytes = safetensors(dtype, bad);
                Files.write(file, bytes);
                long offset = offsetOf(bytes, "bad", AT);
                assertThat(malformed(ErrorKind.NON_FINITE, () -> StateDictFiles.read(file, Format.SAFETENSORS, NonFinitePolicy.REFUSE)))
                        .extracting(FormatException::file, FormatException::tensorIndex, FormatException::tensorName, FormatException::offset)
                        .containsExactly(file, 1, "bad", offset);
                NpyArray read = StateDictFiles.read(file, Format.SAFETENSORS, NonFinitePolicy.ALLOW).tensors().get("bad");
                double got = read.asDoubles()[AT];
                assertThat(Double.doubleToLongBits(got)).as(dtype + " " + bad).isEqualTo(Double.doubleToLongBits(bad));
            }
        }
    }

    @Test
    void torchStateDictNamesTheKeyAndElement(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("w.pt");
        for (double bad : NON_FINITE) {
            float[] v = new float[ELEMENTS];
            v[AT] = (float) bad;
            Map<String, NpyArray> dict = new LinkedHashMap<>();
            dict.put("fine", NpyArray.ofFloats(new int[] {2}, new float[] {1, 2}));
            dict.put("layers.0.norm_in.weight", NpyArray.ofFloats(new int[] {ELEMENTS}, v));
            TorchStateDict.write(dict, file);
            // the element and the way out are in the wording only
            assertThat(malformed(ErrorKind.NON_FINITE, () -> StateDictFiles.read(file, Format.TORCH, NonFinitePolicy.REFUSE)))
                    .hasMessage(file + ": tensor 1 (layers.0.norm_in.weight): 1 value is not finite (first: " + (float) bad
                            + " at element " + AT + "); " + NonFinitePolicy.OVERRIDE_HINT);
            assertThat(StateDictFiles.read(file, Format.TORCH, NonFinitePolicy.ALLOW).tensors()).hasSize(2);
        }
    }

    @Test
    void theSafetensorsReaderTellsWhereEachTensorLies() throws Exception {
        byte[] bytes = safetensors("BF16", 1.0);
        Safetensors.Contents c = Safetensors.parse(bytes, Path.of("w.safetensors"));
        assertThat(c.stored().get("bad").byteOf(AT)).isEqualTo(offsetOf(bytes, "bad", AT));
        assertThat(c.stored().get("ok").itemBytes()).isEqualTo(2);
    }
}
