package dev.needlewb.engine.layer;

/**
 * A block's MLP with its weights ({@link HadamardMlp}: Needle 2; {@link KroneckerMlp}: Needle 3). The
 * forward gives each thread its own scratch of {@link #scratchLength} floats, so one instance serves
 * every thread.
 */
public interface Mlp {
    int scratchLength();

    /** {@code out[outOff, + d) = mlp(x[xOff, + d))}, vector passes under {@code exp}. */
    void apply(float[] x, int xOff, float[] out, int outOff, float[] scratch, Arithmetic.Exponential exp);
}
