package dev.needlewb.reports.study;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How one tensor's summed group norms moved, read from its rounds alone: each round grew, shrank or
 * left the sum unchanged against the round before, by a factor that is the norm-weighted mean of
 * |codebook[idx]| over the groups (re-quantizing stores the norm of the dequantized group, which is
 * |codebook[idx]| times its stored norm, up to float16 rounding).
 *
 * @param initial sum of the group norms of round 0
 * @param sums    element {@code r - 1}: the sum after round {@code r}
 */
record NormDrift(double initial, double[] sums) {

    enum Direction {
        GREW("grew"), SHRANK("shrank"), UNCHANGED("unchanged");

        final String word;

        Direction(String word) {
            this.word = word;
        }
    }

    NormDrift {
        sums = sums.clone();
    }

    static NormDrift of(IdempotenceResult r) {
        return new NormDrift(r.initialNormSum(), r.rounds().stream().mapToDouble(IdempotenceRound::normSum).toArray());
    }

    int rounds() {
        return sums.length;
    }

    private double before(int round) {
        return round == 1 ? initial : sums[round - 2];
    }

    Direction direction(int round) {
        int c = Double.compare(sums[round - 1], before(round));
        return c > 0 ? Direction.GREW : c < 0 ? Direction.SHRANK : Direction.UNCHANGED;
    }

    /** The round's sum against the previous round's, minus 1; NaN after a zero sum. */
    double change(int round) {
        double b = before(round);
        return b == 0 ? Double.NaN : sums[round - 1] / b - 1;
    }

    /** The last round's sum against round 0's, minus 1; NaN without rounds or from a zero sum. */
    double total() {
        return sums.length == 0 || initial == 0 ? Double.NaN : sums[sums.length - 1] / initial - 1;
    }

    long count(Direction d) {
        long n = 0;
        for (int r = 1; r <= rounds(); r++) if (direction(r) == d) n++;
        return n;
    }

    /** The direction every round took, or null when the rounds differ or there are none. */
    Direction uniform() {
        for (Direction d : Direction.values()) if (rounds() > 0 && count(d) == rounds()) return d;
        return null;
    }

    /**
     * A short account: "grew in each of its 6 rounds (+11.4% to +11.6% per round)", "shrank in its
     * one round (-0.3%)", or for mixed rounds the runs in order, "shrank in rounds 1-3, then
     * unchanged in round 4".
     */
    String describe() {
        if (rounds() == 0) return "no round run";
        Direction all = uniform();
        if (all == Direction.UNCHANGED) return "unchanged in " + (rounds() == 1 ? "its one round" : "each of its " + rounds() + " rounds");
        if (all != null) {
            return all.word + (rounds() == 1 ? " in its one round (" + percent(change(1)) + ")"
                    : " in each of its " + rounds() + " rounds (" + changeRange() + " per round)");
        }
        List<String> runs = new ArrayList<>();
        int start = 1;
        for (int r = 2; r <= rounds() + 1; r++) {
            if (r <= rounds() && direction(r) == direction(start)) continue;
            runs.add(direction(start).word + " in " + (r - 1 == start ? "round " + start : "rounds " + start + "-" + (r - 1)));
            start = r;
        }
        return String.join(", then ", runs);
    }

    private String changeRange() {
        double lo = Double.POSITIVE_INFINITY, hi = Double.NEGATIVE_INFINITY;
        for (int r = 1; r <= rounds(); r++) {
            lo = Math.min(lo, change(r));
            hi = Math.max(hi, change(r));
        }
        return range(lo, hi);
    }

    /** "+10.0%", or "+10.0% to +20.0%" where the two differ as printed. */
    static String range(double lo, double hi) {
        return percent(lo).equals(percent(hi)) ? percent(lo) : percent(lo) + " to " + percent(hi);
    }

    /** A signed percentage with three significant digits, so a tiny change never prints as 0. */
    static String percent(double fraction) {
        return Double.isNaN(fraction) ? "n/a" : String.format(Locale.ROOT, "%+.3g%%", 100 * fraction);
    }
}
