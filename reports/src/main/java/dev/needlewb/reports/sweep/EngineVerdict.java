package dev.needlewb.reports.sweep;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.reports.parity.ToleranceProfile;
import java.util.ArrayList;
import java.util.List;

/**
 * One engine's verdict in a parity report against the reference: passed or not, the first tap out
 * of tolerance, and its worst tap: the one whose relative L2 error uses the largest share of the
 * limit its profile rule sets ({@code worstRelL2 / limit}; 1 is at the limit).
 */
public record EngineVerdict(String engine, String profile, boolean passed, String worstTap, double worstRelL2, double limit,
                            String firstFailure) {
    public double share() {
        return worstRelL2 / limit;
    }

    /**
     * The verdicts of every engine-vs-reference comparison of a {@code parity.json} tree, judged under
     * {@code profile}, or when null under the built-in profile each comparison names.
     */
    public static List<EngineVerdict> fromParity(JsonNode parityJson, ToleranceProfile profile) throws WorkbenchException {
        List<EngineVerdict> out = new ArrayList<>();
        for (JsonNode c : parityJson.path("parity").path("comparisons")) {
            ToleranceProfile rules = profile != null ? profile : ToleranceProfile.resolve(c.path("profile").asText());
            String worst = null;
            double worstRelL2 = 0, limit = Double.NaN, share = -1;
            for (JsonNode tap : c.path("taps")) {
                ToleranceProfile.Rule rule = rules.ruleFor(tap.path("name").asText());
                if (rule == null || rule.limits().maxRelL2() == null) continue;
                double relL2 = tap.path("rel_l2").asDouble(), tapShare = relL2 / rule.limits().maxRelL2();
                if (!(tapShare <= share)) {
                    share = tapShare;
                    worst = tap.path("name").asText();
                    worstRelL2 = relL2;
                    limit = rule.limits().maxRelL2();
                }
            }
            JsonNode first = c.path("first_failure");
            String failure = null;
            if (!first.isMissingNode()) {
                List<String> violations = new ArrayList<>();
                first.path("violations").forEach(v -> violations.add(v.asText()));
                failure = first.path("tap").asText() + ": " + String.join(", ", violations);
            }
            out.add(new EngineVerdict(c.path("engine").asText(), c.path("profile").asText(), c.path("passed").asBoolean(), worst,
                    worstRelL2, limit, failure));
        }
        return out;
    }
}
