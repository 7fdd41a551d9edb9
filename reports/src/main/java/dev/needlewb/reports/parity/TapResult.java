package dev.needlewb.reports.parity;

import java.util.List;

/**
 * One tap compared: where it sits, its metrics ({@code logits} only for the logits tap), the
 * profile rule that judged it (null: no rule matched, not judged) and what it broke.
 */
public record TapResult(String name, int layer, String site, String operation, int[] shape,
                        TapMetrics metrics, LogitMetrics logits, String rule, List<String> violations) {
    public boolean passed() {
        return violations.isEmpty();
    }
}
