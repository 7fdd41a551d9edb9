package dev.needlewb.converter.flax;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.io.NpyArray;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SequencedMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NaN and infinities in a checkpoint (float32 and float16 leaves, each parameter kind of the mini
 * tree: kernels, norm scales, mHC scalars, engram tables) and in a LoRA adapter (either factor,
 * the scale): refused naming the file and the parameter path, read with {@code ALLOW}.
 */
class NonFiniteCheckpointTest {
    private static final float[] NON_FINITE = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY};

    /** {@code a} with element {@code at} replaced by {@code bad}, in {@code a}'s dtype. */
    private static NpyArray poisoned(NpyArray a, int at, float bad) {
        byte[] data = a.data().clone();
        ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        if (a.descr().equals("<f2")) b.putShort(2 * at, Float.floatToFloat16(bad));
        else b.putFloat(4 * at, bad);
        return new NpyArray(a.descr(), a.shape(), data);
    }

    /** The row-major index of flat element {@code at}, written out here instead of asking the code under test. */
    private static long[] indexOf(long at, int[] shape) {
        long[] index = new long[shape.length];
        for (int d = shape.length - 1; d >= 0; d--) {
            index[d] = at % shape[d];
            at /= shape[d];
        }
        return index;
    }

    @Test
    void eachParameterKindIsRefusedByPath(@TempDir Path dir) throws Exception {
        FlaxCheckpoint golden = FlaxCheckpointReaderTest.golden();
        Path file = dir.resolve("ckpt.pkl");
        int k = 0;
        for (String path : new String[] {"embedding/embedding", "stack/layers/block/self_attn/q_proj/kernel",
            "stack/layers/block/ZCRMSNorm_0/scale", "stack/mhc_a_pre", "stack/final_norm/scale", "engrams_1/embedding"}) {
            NpyArray a = golden.params().get(path);
            assertThat(a).as(path).isNotNull();
            float bad = NON_FINITE[k % NON_FINITE.length];
            int at = (a.size() - 1) * (k % 3) / 2;
            SequencedMap<String, NpyArray> params = new LinkedHashMap<>(golden.params());
            params.put(path, poisoned(a, at, bad));
            FlaxCheckpointWriter.write(golden.withParams(params), file);
            assertThatThrownBy(() -> FlaxCheckpointReader.read(file)).isInstanceOf(FormatException.class)
                    .hasMessage(file + ": param " + path + " holds non-finite values: 1 value is not finite (first: " + bad
                            + " at element " + at + " = " + java.util.Arrays.toString(indexOf(at, a.shape())) + "); " + NonFinitePolicy.OVERRIDE_HINT);
            float read = FlaxCheckpointReader.read(file, false, NonFinitePolicy.ALLOW).params().get(path).asFloats()[at];
            assertThat(Float.floatToIntBits(read)).isEqualTo(Float.floatToIntBits(bad));
            k++;
        }
    }

    @Test
    void aLoraFactorOrScaleIsRefused(@TempDir Path dir) throws Exception {
        String target = "stack/layers/block/self_attn/q_proj/kernel";
        NpyArray a = NpyArray.ofFloats(new int[] {6, 128, 2}, new float[6 * 128 * 2]);
        NpyArray b = NpyArray.ofFloats(new int[] {6, 2, 128}, new float[6 * 2 * 128]);
        Path file = dir.resolve("lora.pkl");
        for (float bad : NON_FINITE) {
            Files.write(file, PickleBytes.of(Map.of("lora", Map.of(target, Map.of("A", a, "B", poisoned(b, 300, bad))),
                    "scale", 1.0, "base", "x", "rank", 2L)));
            assertThatThrownBy(() -> LoraAdapter.read(file)).isInstanceOf(FormatException.class)
                    .hasMessage(file + ": adapter " + target + " factor B: 1 value is not finite (first: " + bad + " at element 300); "
                            + NonFinitePolicy.OVERRIDE_HINT);
            assertThat(LoraAdapter.read(file, NonFinitePolicy.ALLOW).lora()).containsKey(target);

            Files.write(file, PickleBytes.of(Map.of("lora", Map.of(target, Map.of("A", a, "B", b)),
                    "scale", (double) bad, "base", "x", "rank", 2L)));
            assertThatThrownBy(() -> LoraAdapter.read(file)).isInstanceOf(FormatException.class)
                    .hasMessage(file + ": adapter 'scale' is " + (double) bad + "; " + NonFinitePolicy.OVERRIDE_HINT);
        }
    }
}
