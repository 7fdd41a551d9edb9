package dev.needlewb.reports.sweep;

import java.util.List;

/** The parity run of one geometry at one vector width: how the command ended and each engine's verdict (none unless it ran). */
public record WidthOutcome(int bits, CommandOutcome parity, List<EngineVerdict> engines) {
    public WidthOutcome {
        engines = List.copyOf(engines);
    }

    public boolean passed() {
        return parity.exit() == 0 && engines.stream().allMatch(EngineVerdict::passed);
    }

    /** What failed first, or null: the command, else the first engine out of tolerance. */
    public String failure() {
        if (!parity.ran()) return "parity " + parity.describe();
        for (EngineVerdict e : engines) {
            if (!e.passed()) return e.engine() + " out of tolerance (profile " + e.profile() + ") at " + e.firstFailure();
        }
        return parity.exit() == 0 ? null : "parity exit 1";
    }
}
