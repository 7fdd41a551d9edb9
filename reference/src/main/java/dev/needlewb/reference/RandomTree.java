package dev.needlewb.reference;

import dev.needlewb.core.io.NpyArray;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/** A Flax parameter map being filled with float32 Gaussian values from one seeded stream, in insertion order. */
public final class RandomTree {
    private final SplittableRandom random;
    private final Map<String, NpyArray> params = new LinkedHashMap<>();

    public RandomTree(long seed) {
        random = new SplittableRandom(seed);
    }

    /** {@code count} draws of {@code mean + std * N(0, 1)}, rounded to float. */
    public float[] values(double mean, double std, int count) {
        float[] v = new float[count];
        for (int i = 0; i < v.length; i++) v[i] = (float) (mean + std * random.nextGaussian());
        return v;
    }

    /** A leaf of Gaussian values of the given shape. */
    public void normal(String key, double mean, double std, int... shape) {
        put(key, values(mean, std, Math.toIntExact(NpyArray.elementCount(shape))), shape);
    }

    public void put(String key, float[] values, int... shape) {
        params.put(key, NpyArray.ofFloats(shape, values));
    }

    /** The leaves so far (live). */
    public Map<String, NpyArray> params() {
        return params;
    }
}
