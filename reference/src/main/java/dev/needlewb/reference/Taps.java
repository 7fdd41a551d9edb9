package dev.needlewb.reference;

import dev.needlewb.core.io.NpyArray;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Named intermediates of one forward, in execution order. Recording is off unless asked for: the
 * forward asks {@link #wants(String)} before building a tap, so {@link #off()} costs one call.
 *
 * <p>Names and shapes (T positions, NN the two-digit layer): {@code embed} [T, d];
 * {@code layerNN.lanes_in} [T, lanes, d]; {@code layerNN.hpre} [T, lanes]; {@code layerNN.u} [T, d];
 * {@code layerNN.engram_alpha} [T] (engram sites only); {@code layerNN.attn.q} [T, heads, head_dim]
 * and {@code layerNN.attn.k} [T, kv_heads, head_dim] (after their norm and RoPE, and after any KV
 * rounding); {@code layerNN.attn.v} [T, kv_heads, head_dim] (after any KV rounding); {@code layerNN.attn.out} [T, d]
 * (after out_proj); {@code layerNN.block_out} [T, d] (the Block output, engram injection and both
 * residuals included); {@code layerNN.hpost} [T, lanes]; {@code layerNN.sinkhorn} [T, lanes, lanes];
 * {@code layerNN.lanes_out} [T, lanes, d]; {@code final.norm} [T, d]; {@code logits} [T, vocab].
 */
public final class Taps {
    /** One recorded array: row-major values of the given shape. */
    public record Tap(String name, int[] shape, double[] values) {
        public NpyArray toNpy() {
            return NpyArray.ofDoubles(shape, values);
        }

        @Override
        public String toString() {
            return name + Arrays.toString(shape);
        }
    }

    private static final Taps OFF = new Taps(name -> false);

    private final Predicate<String> wanted;
    private final Map<String, Tap> taps = new LinkedHashMap<>();

    private Taps(Predicate<String> wanted) {
        this.wanted = wanted;
    }

    /** Records nothing. */
    public static Taps off() {
        return OFF;
    }

    /** Records every tap. */
    public static Taps all() {
        return new Taps(name -> true);
    }

    /** Records the taps whose name {@code wanted} accepts. */
    public static Taps matching(Predicate<String> wanted) {
        return new Taps(wanted);
    }

    /** True for {@link #off()}. */
    public boolean isOff() {
        return this == OFF;
    }

    public boolean wants(String name) {
        return wanted.test(name);
    }

    /** {@link #wants(String)} of {@code prefix + name}, without building the name when recording is off. */
    public boolean wants(String prefix, String name) {
        return this != OFF && wanted.test(prefix + name);
    }

    /** Stores a copy of {@code values} (row-major, {@code shape}) under {@code name}. */
    public void record(String name, double[] values, int... shape) {
        if (NpyArray.elementCount(shape) != values.length) {
            throw new IllegalArgumentException("tap " + name + Arrays.toString(shape) + " given " + values.length + " values");
        }
        if (taps.putIfAbsent(name, new Tap(name, shape.clone(), values.clone())) != null) {
            throw new IllegalStateException("tap " + name + " recorded twice: use a fresh Taps per forward");
        }
    }

    /** The recorded taps by name, in execution order. */
    public Map<String, Tap> recorded() {
        return Collections.unmodifiableMap(taps);
    }

    public Tap get(String name) {
        return taps.get(name);
    }

    /** The taps as npz entries (float64), in execution order. */
    public Map<String, NpyArray> toNpz() {
        Map<String, NpyArray> out = new LinkedHashMap<>();
        taps.forEach((name, tap) -> out.put(name, tap.toNpy()));
        return out;
    }

    /** The tap prefix of layer {@code l}: {@code layer07.}. */
    public static String layer(int l) {
        return (l < 10 ? "layer0" : "layer") + l + ".";
    }
}
