package dev.needlewb.engine.generate;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Picks the next token from logits: greedy (argmax, lowest id on ties, as {@code jnp.argmax}) or
 * a seeded draw from {@code softmax(logits / temperature)} restricted to the top-p nucleus. The
 * same seed and logits always give the same sequence of picks.
 */
public final class Sampler {
    private final double temperature;
    private final double topP;
    private final SplittableRandom random;
    private double[] probs = new double[0];
    private double[] sorted = new double[0];

    private Sampler(double temperature, double topP, long seed) {
        if (!(temperature >= 0) || Double.isInfinite(temperature)) {
            throw new IllegalArgumentException("temperature must be a finite number >= 0, got " + temperature);
        }
        if (!(topP > 0 && topP <= 1)) throw new IllegalArgumentException("top-p must be in (0, 1], got " + topP);
        this.temperature = temperature;
        this.topP = topP;
        this.random = new SplittableRandom(seed);
    }

    public static Sampler greedy() {
        return new Sampler(0, 1, 0);
    }

    /** Temperature 0 means greedy (top-p and seed are then irrelevant). */
    public static Sampler of(double temperature, double topP, long seed) {
        return new Sampler(temperature, topP, seed);
    }

    public boolean isGreedy() {
        return temperature == 0;
    }

    public int next(float[] logits) {
        return isGreedy() ? argmax(logits) : draw(logits);
    }

    static int argmax(float[] logits) {
        int best = 0;
        for (int i = 1; i < logits.length; i++) {
            if (logits[i] > logits[best]) best = i;
        }
        return best;
    }

    private int draw(float[] logits) {
        int n = logits.length;
        if (probs.length != n) {
            probs = new double[n];
            sorted = new double[n];
        }
        double max = logits[argmax(logits)];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            probs[i] = Math.exp((logits[i] - max) / temperature);
            sum += probs[i];
        }
        double threshold = nucleusThreshold(sum);
        double kept = 0;
        for (int i = 0; i < n; i++) {
            if (probs[i] >= threshold) kept += probs[i];
        }
        double target = random.nextDouble() * kept;
        int last = -1;
        for (int i = 0; i < n; i++) {
            if (probs[i] < threshold) continue;
            last = i;
            target -= probs[i];
            if (target < 0) return i;
        }
        return last; // rounding left a sliver of mass: the last kept token takes it
    }

    /**
     * The smallest unnormalised probability inside the nucleus: the most likely tokens are kept
     * until their mass reaches {@code topP}; tokens tied with the last one kept stay in too.
     */
    private double nucleusThreshold(double sum) {
        if (topP >= 1) return 0;
        System.arraycopy(probs, 0, sorted, 0, probs.length);
        Arrays.sort(sorted);
        double need = topP * sum, mass = 0;
        for (int i = sorted.length - 1; i >= 0; i--) {
            mass += sorted[i];
            if (mass >= need) return sorted[i];
        }
        return sorted[0];
    }
}
