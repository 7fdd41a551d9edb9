package dev.needlewb.reports.parity;

import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needlewb.core.ErrorKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ToleranceProfileTest {

    private static ToleranceProfile parse(String json) throws Exception {
        return ToleranceProfile.parse(new ObjectMapper().readTree(json), "test.json");
    }

    @ParameterizedTest
    @ValueSource(strings = {"strict", "int8", "converted"})
    void builtInProfilesJudgeEveryTapAndSayWhy(String name) throws Exception {
        ToleranceProfile p = ToleranceProfile.resolve(name);
        assertThat(p.name()).isEqualTo(name);
        for (String tap : new String[] {"embed", "layer03.attn.q", "final.norm", "logits"}) {
            assertThat(p.ruleFor(tap)).as(tap).isNotNull();
        }
        assertThat(p.ruleFor("logits").limits().minTop1()).isNotNull();
        assertThat(p.rules()).allSatisfy(r -> assertThat(r.why()).contains("measured"));
    }

    @Test
    void theFirstMatchingGlobWins() throws Exception {
        ToleranceProfile p = parse("""
                {"rules": [{"taps": "layer0?.attn.*", "max_rel_l2": 1}, {"taps": "layer*", "max_rel_l2": 2}]}
                """);
        assertThat(p.ruleFor("layer03.attn.q").limits().maxRelL2()).isEqualTo(1.0);
        assertThat(p.ruleFor("layer03.u").limits().maxRelL2()).isEqualTo(2.0);
        // Globs match whole names, and '.' is literal.
        assertThat(p.ruleFor("xlayer03.u")).isNull();
        assertThat(p.ruleFor("layer03xattnxq").limits().maxRelL2()).isEqualTo(2.0);
        assertThat(p.ruleFor("logits")).isNull();
    }

    @Test
    void limitsReportWhatTheyBreak() throws Exception {
        Limits limits = parse("{\"rules\": [{\"taps\": \"*\", \"max_rel_l2\": 1e-3, \"min_cosine\": 0.99, \"min_top1\": 1}]}")
                .ruleFor("logits").limits();
        TapMetrics m = new TapMetrics(1, 1, 2e-3, 0.995, 1);
        LogitMetrics l = new LogitMetrics(0.5, 1, 0, 0, 0, 0, 2);
        assertThat(limits.violations(m, l)).containsExactly("rel_l2 0.00200 > 0.00100", "top1 0.500000 < 1.00000");
        // Logit limits are not applied to other taps; NaN breaks any limit it meets.
        assertThat(limits.violations(new TapMetrics(1, 1, Double.NaN, 1, 1), null)).hasSize(1);
    }

    @Test
    void malformedProfilesAreUserErrors() {
        refused(ErrorKind.BAD_SCHEMA, () -> parse("{\"rules\": {}}"));
        // the profile has no JSON-path field yet: the rule is named in the wording
        assertThat(refused(ErrorKind.BAD_SCHEMA, () -> parse("{\"rules\": [{\"max_rel_l2\": 1}]}"))).hasMessageContaining("rules[0]");
        refused(ErrorKind.BAD_SCHEMA, () -> parse("{\"rules\": [{\"taps\": \"*\", \"max_rel_l2\": \"small\"}]}"));
    }
}
