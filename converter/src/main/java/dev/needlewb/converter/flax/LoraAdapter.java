package dev.needlewb.converter.flax;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.finite.NonFiniteCount;
import dev.needlewb.converter.finite.NonFinitePolicy;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SequencedMap;

/**
 * A LoRA adapter as upstream's {@code finetune.py} saves it: {@code {"lora": {path: {"A", "B"}},
 * "scale", "base", "rank"}} (Needle 3 adds {@code "seed"}) where, for a kernel {@code W} of shape
 * {@code lead + (in, out)} (lead = the layer axis of the scanned stack), {@code A} is
 * {@code lead + (in, rank)} and {@code B} is {@code lead + (rank, out)}. Merging adds
 * {@code scale * A @ B} to {@code W}; both generations merge alike ({@code merge_lora}). The file
 * is a pickle of that dict or, as Needle 3's {@code checkpoints.write_adapter} also writes it, a
 * safetensors file ({@link LoraSafetensors}).
 *
 * @param file the adapter file, named in every refusal
 * @param seed the training seed (Needle 3), or null
 */
public record LoraAdapter(Path file, SequencedMap<String, Pair> lora, double scale, String base, int rank, Long seed) {

    /** The two factors of one adapted kernel. */
    public record Pair(NpyArray a, NpyArray b) {}

    public LoraAdapter {
        lora = Collections.unmodifiableSequencedMap(new LinkedHashMap<>(lora));
    }

    /** Reads an adapter pickle through the same safe path as checkpoints, refusing non-finite factors or scale. */
    public static LoraAdapter read(Path file) throws WorkbenchException {
        return read(file, NonFinitePolicy.REFUSE);
    }

    /**
     * Reads an adapter (a pickle, or safetensors when the name ends in {@code .safetensors});
     * {@code nonFinite} says whether NaN or infinity in a factor or the scale is refused.
     */
    public static LoraAdapter read(Path file, NonFinitePolicy nonFinite) throws WorkbenchException {
        Object tree = LoraSafetensors.isSafetensors(file) ? LoraSafetensors.tree(file) : SafePickle.load(file);
        if (!(tree instanceof Map<?, ?> root)) throw error(ErrorKind.BAD_PICKLE, file, "the pickle is not an adapter dict");
        if (!(root.get("lora") instanceof Map<?, ?> entries)) throw error(ErrorKind.MISSING_KEY, file, "adapter has no 'lora' dict");
        if (!(root.get("scale") instanceof Number scale)) throw error(ErrorKind.MISSING_KEY, file, "adapter 'scale' is missing or not a number");
        if (nonFinite == NonFinitePolicy.REFUSE && !Double.isFinite(scale.doubleValue())) {
            throw error(ErrorKind.NON_FINITE, file, "adapter 'scale' is " + scale + "; " + NonFinitePolicy.OVERRIDE_HINT);
        }
        if (!(root.get("rank") instanceof Long rank) || rank < 1 || rank > Integer.MAX_VALUE) throw error(ErrorKind.BAD_PICKLE, file, "adapter 'rank' is missing or not a positive int");
        Object base = root.get("base");
        if (base != null && !(base instanceof String)) throw error(ErrorKind.BAD_PICKLE, file, "adapter 'base' is not a string");
        Object seed = root.get("seed");
        if (seed != null && !(seed instanceof Long)) throw error(ErrorKind.BAD_PICKLE, file, "adapter 'seed' is not an int");
        SequencedMap<String, Pair> pairs = new LinkedHashMap<>();
        for (var e : entries.entrySet()) {
            if (!(e.getKey() instanceof String path)) throw error(ErrorKind.BAD_PICKLE, file, "adapter has a non-string path " + e.getKey());
            if (!(e.getValue() instanceof Map<?, ?> ab) || !(ab.get("A") instanceof NpyArray a) || !(ab.get("B") instanceof NpyArray b)) {
                throw error(ErrorKind.BAD_PICKLE, file, "adapter entry " + path + " is not a dict of arrays A and B");
            }
            checkFactors(file, path, a, b, rank.intValue());
            if (nonFinite == NonFinitePolicy.REFUSE) {
                for (String factor : new String[] {"A", "B"}) {
                    NonFiniteCount bad = NonFiniteCount.of(factor.equals("A") ? a : b);
                    if (bad.any()) throw error(ErrorKind.NON_FINITE, file, "adapter " + path + " factor " + factor + ": " + bad.describe() + "; " + NonFinitePolicy.OVERRIDE_HINT);
                }
            }
            pairs.put(path, new Pair(a, b));
        }
        return new LoraAdapter(file, pairs, scale.doubleValue(), (String) base, rank.intValue(), (Long) seed);
    }

    private static void checkFactors(Path file, String path, NpyArray a, NpyArray b, int rank) throws FormatException {
        int[] sa = a.shape(), sb = b.shape();
        for (NpyArray f : new NpyArray[] {a, b}) {
            if (!f.descr().equals("<f4") && !f.descr().equals("<f2")) throw error(ErrorKind.UNSUPPORTED_DTYPE, file, "adapter " + path + " factor has dtype " + f.descr());
        }
        if (sa.length < 2 || sb.length != sa.length
                || !Arrays.equals(Arrays.copyOf(sa, sa.length - 2), Arrays.copyOf(sb, sb.length - 2))
                || sa[sa.length - 1] != rank || sb[sb.length - 2] != rank) {
            throw error(ErrorKind.SHAPE_MISMATCH, file, "adapter " + path + " has A " + Arrays.toString(sa) + " and B " + Arrays.toString(sb)
                    + "; expected lead+(in, " + rank + ") and lead+(" + rank + ", out)");
        }
    }

    /**
     * A new checkpoint with {@code W += scale * A @ B} for every adapted kernel, computed as
     * upstream's {@code merge_lora} does in float32: {@code A @ B} is accumulated in double and
     * rounded to float32 (upstream's XLA dot accumulates in float32, so results differ by float32
     * summation rounding only), multiplied by {@code float32(scale)} in float32, cast to W's
     * dtype and added in W's dtype (a float16 W is added in float32 and rounded once to float16).
     */
    public FlaxCheckpoint mergeInto(FlaxCheckpoint ckpt) throws WorkbenchException {
        SequencedMap<String, NpyArray> params = new LinkedHashMap<>(ckpt.params());
        for (var e : lora.entrySet()) {
            NpyArray w = params.get(e.getKey());
            if (w == null) throw error(ErrorKind.UNKNOWN_KEY, file, "adapter targets " + e.getKey() + ", which the checkpoint does not have");
            params.put(e.getKey(), merged(e.getKey(), w, e.getValue()));
        }
        return ckpt.withParams(params);
    }

    private NpyArray merged(String path, NpyArray w, Pair p) throws WorkbenchException {
        int[] sw = w.shape(), sa = p.a().shape(), sb = p.b().shape();
        int nd = sw.length;
        if (nd != sa.length || !Arrays.equals(Arrays.copyOf(sw, nd - 2), Arrays.copyOf(sa, nd - 2))
                || sw[nd - 2] != sa[nd - 2] || sw[nd - 1] != sb[nd - 1]) {
            throw error(ErrorKind.SHAPE_MISMATCH, file, "adapter factors A " + Arrays.toString(sa) + ", B " + Arrays.toString(sb)
                    + " do not fit " + path + " of shape " + Arrays.toString(sw));
        }
        int in = sw[nd - 2], out = sw[nd - 1];
        int slices = w.size() / (in * out);
        float[] a = p.a().asFloats(), b = p.b().asFloats(), wv = w.asFloats();
        float s = (float) scale;
        double[] row = new double[out];
        for (int l = 0; l < slices; l++) {
            int aBase = l * in * rank, bBase = l * rank * out, wBase = l * in * out;
            for (int i = 0; i < in; i++) {
                Arrays.fill(row, 0);
                for (int r = 0; r < rank; r++) {
                    double ar = a[aBase + i * rank + r];
                    int bRow = bBase + r * out;
                    for (int j = 0; j < out; j++) row[j] += ar * b[bRow + j];
                }
                for (int j = 0; j < out; j++) {
                    float delta = s * (float) row[j];
                    int k = wBase + i * out + j;
                    wv[k] = w.descr().equals("<f2") ? Float.float16ToFloat(Float.floatToFloat16(delta)) + wv[k] : wv[k] + delta;
                }
            }
        }
        return w.descr().equals("<f2") ? halfArray(sw, wv) : NpyArray.ofFloats(sw, wv);
    }

    private static NpyArray halfArray(int[] shape, float[] values) {
        ByteBuffer buf = ByteBuffer.allocate(values.length * 2).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) buf.putShort(Float.floatToFloat16(v));
        return new NpyArray("<f2", shape, buf.array());
    }

    private static FormatException error(ErrorKind kind, Path file, String problem) {
        return new FormatException(kind, file, FormatException.NO_OFFSET, problem);
    }
}
