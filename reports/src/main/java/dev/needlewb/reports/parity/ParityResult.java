package dev.needlewb.reports.parity;

import java.util.List;

/**
 * A parity run's comparisons: each engine against its reference run (judged) and each engine
 * against each engine listed before it (reported, not judged).
 */
public record ParityResult(List<Comparison> againstReference, List<Comparison> enginePairs) {

    public boolean passed() {
        return againstReference.stream().allMatch(Comparison::passed);
    }

    /** The first judged comparison with a tap out of tolerance, or null. */
    public Comparison failing() {
        return againstReference.stream().filter(c -> !c.passed()).findFirst().orElse(null);
    }
}
