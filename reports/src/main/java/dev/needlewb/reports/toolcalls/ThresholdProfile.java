package dev.needlewb.reports.toolcalls;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import java.util.List;

/**
 * When an eval fails (exit 1): the least agreement of each engine with the baseline on whole call
 * lists and on tool names. {@code strict} for engines that should compute the same bits (exact vs
 * batch prefill), {@code int8} for quantized activations that may flip near-ties, {@code report} never fails.
 */
public record ThresholdProfile(String name, double minCallAgreement, double minNameAgreement) {
    public static final List<ThresholdProfile> ALL = List.of(
            new ThresholdProfile("strict", 1.0, 1.0),
            new ThresholdProfile("int8", 0.90, 0.95),
            new ThresholdProfile("report", 0.0, 0.0));

    public static ThresholdProfile named(String name) throws WorkbenchException {
        for (ThresholdProfile p : ALL) if (p.name.equals(name)) return p;
        throw new WorkbenchException(ErrorKind.BAD_OPTION, "unknown profile '" + name + "': use strict, int8 or report");
    }

    boolean passes(double callRate, double nameRate) {
        return callRate >= minCallAgreement && nameRate >= minNameAgreement;
    }
}
