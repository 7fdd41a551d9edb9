package dev.needlewb.converter.safetensors;

import static dev.needlewb.core.Refusals.malformed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.finite.NonFiniteCount;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SafetensorsTest {
    private static final Path FILE = Path.of("t.safetensors");

    private static byte[] write(Map<String, NpyArray> tensors) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Safetensors.write(out, tensors, Map.of("format", "pt"));
        return out.toByteArray();
    }

    /** A file with a hand-written header, to say things the writer never would. */
    private static byte[] withHeader(String json, int dataBytes) {
        byte[] h = json.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(8 + h.length + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(h.length).put(h);
        return b.array();
    }

    @Test
    void roundTripKeepsEveryBitAndOrder() throws Exception {
        Random r = new Random(7);
        float[] w = new float[6 * 5];
        for (int i = 0; i < w.length; i++) w[i] = (float) r.nextGaussian();
        Map<String, NpyArray> in = new LinkedHashMap<>();
        in.put("layers.0.attn.q_proj.weight", NpyArray.ofFloats(new int[] {6, 5}, w));
        in.put("scalar", NpyArray.ofDoubles(new int[] {}, new double[] {Math.PI}));
        in.put("ids", NpyArray.ofInts(new int[] {3}, new int[] {1, -2, 3}));

        byte[] bytes = write(in);
        long headerLen = ByteBuffer.wrap(bytes, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        assertThat(headerLen % 8).isZero();

        Safetensors.Contents back = Safetensors.parse(bytes, FILE);
        assertThat(back.tensors().keySet()).containsExactlyElementsOf(in.keySet());
        for (String k : in.keySet()) {
            assertThat(back.tensors().get(k).descr()).isEqualTo(in.get(k).descr());
            assertThat(back.tensors().get(k).shape()).isEqualTo(in.get(k).shape());
            assertThat(back.tensors().get(k).data()).isEqualTo(in.get(k).data());
        }
        assertThat(back.metadata()).containsEntry("format", "pt");
    }

    @Test
    void bf16IsWidenedExactly() throws Exception {
        // 0x3FC0 is bf16 1.5, 0xC000 is -2.0
        byte[] f = withHeader("{\"x\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[0,4]}}", 4);
        int n = f.length;
        f[n - 4] = (byte) 0xC0; f[n - 3] = 0x3F; f[n - 2] = 0x00; f[n - 1] = (byte) 0xC0;
        assertThat(Safetensors.parse(f, FILE).tensors().get("x").asFloats()).containsExactly(1.5f, -2.0f);
    }

    @Test
    void headerThatLiesIsRefusedBeforeAnyCopy() {
        String ok = "\"dtype\":\"F32\",\"shape\":[2]";
        assertRefused(withHeader("{\"a\":{" + ok + ",\"data_offsets\":[0,16]}}", 8), ErrorKind.BAD_OFFSET);
        assertRefused(withHeader("{\"a\":{" + ok + ",\"data_offsets\":[0,8]},\"b\":{" + ok + ",\"data_offsets\":[4,12]}}", 12), ErrorKind.OVERLAP);
        assertRefused(withHeader("{\"a\":{" + ok + ",\"data_offsets\":[4,12]}}", 12), ErrorKind.BAD_OFFSET);
        assertRefused(withHeader("{\"a\":{" + ok + ",\"data_offsets\":[0,8]}}", 12), ErrorKind.TRAILING_BYTES);
        assertRefused(withHeader("{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8), ErrorKind.SHAPE_MISMATCH);
        assertRefused(withHeader("{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,8]}}", 8), ErrorKind.BAD_HEADER_FIELD);
        assertRefused(withHeader("{\"a\":{\"dtype\":\"F32\",\"shape\":[2147483647,2147483647,2147483647],\"data_offsets\":[0,8]}}", 8), ErrorKind.SHAPE_MISMATCH);
        assertRefused(withHeader("{\"a\":{\"dtype\":\"C64\",\"shape\":[1],\"data_offsets\":[0,8]}}", 8), ErrorKind.UNSUPPORTED_DTYPE);
        assertRefused(withHeader("{\"a\":", 0), ErrorKind.BAD_JSON);
        assertRefused(new byte[] {1, 2, 3}, ErrorKind.TRUNCATED);
        byte[] huge = new byte[16];
        ByteBuffer.wrap(huge).order(ByteOrder.LITTLE_ENDIAN).putLong(-1L);
        assertRefused(huge, ErrorKind.BAD_HEADER_FIELD);
    }

    @Test
    void sizesNear2To31And2To63AreRefusedOrReadWithoutWrapping() throws Exception {
        String f32 = "\"dtype\":\"F32\",\"shape\":";
        for (long big : new long[] {Integer.MAX_VALUE, 1L << 31, (1L << 32) - 1, Long.MAX_VALUE}) {
            assertRefused(withHeader("{\"a\":{" + f32 + "[2],\"data_offsets\":[0," + big + "]}}", 8), ErrorKind.BAD_OFFSET);
            assertRefused(withHeader("{\"a\":{" + f32 + "[2],\"data_offsets\":[" + big + "," + big + "]}}", 8), ErrorKind.BAD_OFFSET);
            assertRefused(withHeader("{\"a\":{" + f32 + "[" + big + "],\"data_offsets\":[0,8]}}", 8),
                    big <= Integer.MAX_VALUE ? ErrorKind.SHAPE_MISMATCH : ErrorKind.BAD_HEADER_FIELD);
        }
        // no element: a dimension of 2^31 - 1 beside a 0 is an empty tensor of that shape
        NpyArray empty = Safetensors.parse(withHeader("{\"a\":{" + f32 + "[0,2147483647],\"data_offsets\":[0,0]}}", 0), FILE)
                .tensors().get("a");
        assertThat(empty.shape()).containsExactly(0, Integer.MAX_VALUE);
        for (long len : new long[] {Integer.MAX_VALUE, 1L << 31, 1L << 62}) {
            byte[] lying = new byte[16];
            ByteBuffer.wrap(lying).order(ByteOrder.LITTLE_ENDIAN).putLong(len);
            assertRefused(lying, ErrorKind.BAD_HEADER_FIELD);
        }
    }

    @Test
    void aKeyNamedTwiceIsRefusedWhereTheSecondStarts() {
        String entry = "{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}";
        String json = "{\"w\":" + entry + ",\"w\":" + entry + "}";
        assertRefused(withHeader(json, 4), ErrorKind.BAD_JSON);
        assertThatThrownBy(() -> Safetensors.parse(withHeader(json, 4), FILE)).isInstanceOf(FormatException.class)
                .satisfies(e -> assertThat(((FormatException) e).offset()).isBetween(8L + json.indexOf(",\"w\""), 8L + json.lastIndexOf(entry)));
    }

    private static void assertRefused(byte[] bytes, ErrorKind kind) {
        assertThat(malformed(kind, () -> Safetensors.parse(bytes, FILE)).file()).isEqualTo(FILE);
    }

    /**
     * Byte mutations anywhere, and (every third case) a special float bit pattern written into a
     * float tensor's data: only FormatException escapes, and what parses holds exactly the
     * non-finite values the refusing scanner counts.
     */
    @Test
    void mutatedFilesOnlyEverRaiseFormatException() throws Exception {
        Map<String, NpyArray> in = new LinkedHashMap<>();
        in.put("w", NpyArray.ofFloats(new int[] {4, 4}, new float[16]));
        in.put("h", new NpyArray("<f2", new int[] {8}, new byte[16]));
        in.put("v", NpyArray.ofInts(new int[] {2}, new int[] {5, 6}));
        byte[] good = write(in);
        int data = good.length - (64 + 16 + 8);
        int[] special32 = {0x7FC00000, 0x7F800001, 0x7F800000, 0xFF800000, 0x80000000, 0x00000001, 0x7F7FFFFF};
        short[] special16 = {(short) 0x7E00, (short) 0x7C01, (short) 0x7C00, (short) 0xFC00, (short) 0x8000, 0x0001, 0x7BFF};
        Random r = new Random(1234);
        int withValues = 0;
        for (int i = 0; i < 20_000; i++) {
            byte[] m = good.clone();
            ByteBuffer le = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
            if (i % 3 == 0) {
                for (int e = 0; e < 1 + r.nextInt(3); e++) {
                    if (r.nextBoolean()) le.putInt(data + 4 * r.nextInt(16), special32[r.nextInt(special32.length)]);
                    else le.putShort(data + 64 + 2 * r.nextInt(8), special16[r.nextInt(special16.length)]);
                }
            } else {
                int edits = 1 + r.nextInt(4);
                for (int e = 0; e < edits; e++) m[r.nextInt(m.length)] = (byte) r.nextInt(256);
                if (r.nextInt(10) == 0) m = java.util.Arrays.copyOf(m, r.nextInt(m.length));
            }
            try {
                for (NpyArray a : Safetensors.parse(m, FILE).tensors().values()) {
                    if (!a.descr().startsWith("<f")) continue;
                    long bad = java.util.Arrays.stream(a.asDoubles()).filter(v -> !Double.isFinite(v)).count();
                    assertThat(NonFiniteCount.of(a).count()).isEqualTo(bad);
                    if (bad > 0) withValues++;
                }
            } catch (FormatException expected) {
                // the only exception a malformed file may raise
            }
        }
        assertThat(withValues).isPositive();
    }
}
