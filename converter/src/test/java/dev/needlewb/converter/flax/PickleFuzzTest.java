package dev.needlewb.converter.flax;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.golden.Golden;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded mutations of the golden checkpoint's bytes: whatever the damage, reading either succeeds
 * or throws a {@link WorkbenchException}; no other exception, no OutOfMemoryError, no hang (each
 * read is linear in the file, so 20,000 of them finish in well under a minute). And its values:
 * non-finite floats in every parameter, config sizes near 2^31.
 */
@SuppressWarnings("unchecked")
class PickleFuzzTest {
    private static final int MUTATIONS = 20_000;
    /** Values that tend to hit opcodes, lengths and signs. */
    private static final int[] INTERESTING = {0x00, 0x01, 0x7f, 0x80, 0xff, '(', '.', 'b', 'R', 'h', 'q', 's', 'u', 't',
        0x8c, 0x93, 0x94, 0x95, 0x8e, 0x96, 0x97, 'B', 'C', 'K', 'M', 'J', 'X', '}', ']', ')'};

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES) // a hang guard, not a speed assertion
    void mutatedGoldenPicklesOnlyEverFailWithWorkbenchExceptions() throws Exception {
        Path golden = Golden.mini("mini.ckpt.pkl");
        byte[] pristine = Files.readAllBytes(golden);
        // One-byte changes are made in place and undone after each read (copying 3 MB each time would dominate).
        byte[] original = pristine.clone();
        int[] structure = structurePositions(original, FlaxCheckpointReaderTest.golden());
        SplittableRandom rnd = new SplittableRandom(20261202);
        int accepted = 0;
        for (int m = 0; m < MUTATIONS; m++) {
            // 80% on opcodes and operands, 20% anywhere (mostly array data, which stays valid).
            int pos = rnd.nextInt(5) < 4 ? structure[rnd.nextInt(structure.length)] : rnd.nextInt(original.length);
            byte[] data = mutate(original, pos, rnd);
            try {
                Object tree = SafePickle.load(golden, data);
                FlaxCheckpointReader.fromTree(golden, tree, false);
                accepted++;
            } catch (WorkbenchException expected) {
                // refused cleanly
            } catch (RuntimeException | Error e) {
                fail("mutation " + m + " escaped as " + e, e);
            } finally {
                if (data == original) original[pos] = pristine[pos];
            }
        }
        // Flips inside array data keep the file valid, so some must still read.
        assertThat(accepted).isBetween(1, MUTATIONS - 1);
    }

    /**
     * Values in every parameter of the golden checkpoint: a float of each class (NaN, infinities,
     * the largest finite, a subnormal, -0) written at a seeded element of the array's bytes in the
     * pickle. The reader refuses exactly the non-finite ones, naming the parameter and the element,
     * and reads the rest.
     */
    @Test
    void everyParameterRefusesExactlyItsNonFiniteValues(@TempDir Path dir) throws Exception {
        Path golden = Golden.mini("mini.ckpt.pkl");
        byte[] pristine = Files.readAllBytes(golden);
        FlaxCheckpoint ckpt = FlaxCheckpointReaderTest.golden();
        float[] values = {Float.NaN, Float.intBitsToFloat(0x7F800001), Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 65504f,
            Float.MAX_VALUE, Float.MIN_VALUE, -0f};
        SplittableRandom rnd = new SplittableRandom(20261207);
        Path file = dir.resolve("ckpt.pkl");
        int from = 0, refused = 0, k = 0;
        for (var e : ckpt.params().entrySet()) {
            NpyArray a = e.getValue();
            int at = indexOf(pristine, a.data(), from);
            from = at + a.data().length;
            if (a.size() == 0) continue;
            int element = rnd.nextInt(a.size());
            float v = values[k++ % values.length];
            boolean half = a.descr().equals("<f2");
            float stored = half ? Float.float16ToFloat(Float.floatToFloat16(v)) : v;
            byte[] bytes = pristine.clone();
            ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            if (half) b.putShort(at + 2 * element, Float.floatToFloat16(v));
            else b.putFloat(at + 4 * element, v);
            Files.write(file, bytes);
            try {
                FlaxCheckpoint read = FlaxCheckpointReader.read(file);
                if (!Float.isFinite(stored)) fail(e.getKey() + "[" + element + "] = " + stored + " was accepted");
                assertThat(Float.floatToIntBits(read.params().get(e.getKey()).asFloats()[element])).isEqualTo(Float.floatToIntBits(stored));
            } catch (FormatException refusal) {
                if (Float.isFinite(stored)) fail(e.getKey() + "[" + element + "] = " + stored + " was refused: " + refusal.getMessage());
                assertThat(refusal.getMessage()).startsWith(file + ": param " + e.getKey() + " holds non-finite values: 1 value is not finite (first: "
                        + stored + " at element " + element + " = [");
                refused++;
            }
        }
        assertThat(refused).isPositive();
    }

    /**
     * Config values past what the model can be (near 2^31 and 2^63, zero, negative) in the golden
     * checkpoint's tree: each read succeeds or is refused in one line, never overflows into another
     * exception.
     */
    @Test
    void configValuesNear2To31OnlyEverFailWithWorkbenchExceptions() throws Exception {
        Path golden = Golden.mini("mini.ckpt.pkl");
        byte[] pristine = Files.readAllBytes(golden);
        long[] values = {0, -1, 1, 2, 3, 4, 127, 128, 1L << 30, Integer.MAX_VALUE, 1L << 31, 1L << 32, Long.MAX_VALUE, Long.MIN_VALUE};
        String[] keys = {"vocab_size", "d_model", "attn_dim", "num_heads", "num_kv_heads", "num_layers", "max_seq_len", "engram_heads",
            "engram_slots", "mhc_lanes", "kv_window", "kv_bits", "contrastive_dim", "pad_token_id"};
        int accepted = 0;
        for (String key : keys) {
            for (long v : values) {
                Map<String, Object> tree = (Map<String, Object>) SafePickle.load(golden, pristine);
                Map<String, Object> config = new LinkedHashMap<>((Map<String, Object>) tree.get("config"));
                config.put(key, v);
                tree = new LinkedHashMap<>(tree);
                tree.put("config", config);
                try {
                    FlaxCheckpoint read = FlaxCheckpointReader.fromTree(golden, tree, false);
                    // what a conversion derives from the config next: the name map and the exporter's KV window
                    dev.needlewb.converter.convert.WeightSources.namesOf(read).cactRows();
                    accepted++;
                } catch (WorkbenchException expected) {
                    if (expected.getMessage().indexOf('\n') >= 0) fail(key + " = " + v + ": multi-line message");
                } catch (RuntimeException | Error e) {
                    fail("config " + key + " = " + v + " escaped as " + e, e);
                }
            }
        }
        // the config's own values, and those no parameter's shape depends on (max_seq_len, kv_window, ...), still read
        assertThat(accepted).isPositive();
    }

    /** Every byte offset that is not inside an array's raw data (found by searching each array's bytes). */
    private static int[] structurePositions(byte[] file, FlaxCheckpoint ckpt) {
        boolean[] data = new boolean[file.length];
        int from = 0;
        for (var a : ckpt.params().values()) {
            // The pickle holds the arrays in tree order, so each search starts after the previous array.
            int at = indexOf(file, a.data(), from);
            assertThat(at).as("array bytes found in the pickle").isNotNegative();
            Arrays.fill(data, at, at + a.data().length, true);
            from = at + a.data().length;
        }
        int[] positions = new int[file.length];
        int n = 0;
        for (int i = 0; i < file.length; i++) if (!data[i]) positions[n++] = i;
        return Arrays.copyOf(positions, n);
    }

    private static int indexOf(byte[] haystack, byte[] needle, int from) {
        outer:
        for (int i = from; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) if (haystack[i + j] != needle[j]) continue outer;
            return i;
        }
        return -1;
    }

    private static byte[] mutate(byte[] original, int pos, SplittableRandom rnd) {
        return switch (rnd.nextInt(6)) {
            case 0 -> set(original, pos, original[pos] ^ (1 << rnd.nextInt(8)));
            case 1 -> set(original, pos, INTERESTING[rnd.nextInt(INTERESTING.length)]);
            case 2 -> set(original, pos, rnd.nextInt(256));
            case 3 -> Arrays.copyOf(original, pos);
            case 4 -> {
                byte[] out = new byte[original.length - 1];
                System.arraycopy(original, 0, out, 0, pos);
                System.arraycopy(original, pos + 1, out, pos, original.length - pos - 1);
                yield out;
            }
            default -> {
                byte[] out = new byte[original.length + 1];
                System.arraycopy(original, 0, out, 0, pos);
                out[pos] = (byte) INTERESTING[rnd.nextInt(INTERESTING.length)];
                System.arraycopy(original, pos, out, pos + 1, original.length - pos);
                yield out;
            }
        };
    }

    private static byte[] set(byte[] original, int pos, int value) {
        original[pos] = (byte) value;
        return original;
    }
}
