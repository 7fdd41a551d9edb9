package dev.needlewb.engine.grammar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.tokenizer.ToolSchemas;
import java.math.BigDecimal;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Schema bounds near 2^31: the shortest answer they force is counted without wrapping (a wrapped
 * count once let {@code "minItems": 1000000000} pass the budget check and the answer stop mid-call),
 * and bounds the compiler cannot hold are refused naming their keyword.
 */
class SchemaBoundsTest {
    static ToolCallGrammar grammar(String argument, boolean required) throws WorkbenchException {
        String tools = "[{\"name\":\"f\",\"parameters\":{\"type\":\"object\",\"properties\":{\"x\":" + argument + "}"
                + (required ? ",\"required\":[\"x\"]" : "") + "}}]";
        return ToolCallGrammar.compile(ToolSchemas.parse(tools, "t.json"), true);
    }

    /** Each argument schema, then the first byte of its value. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1000000000}|[",
        "{\"type\":\"array\",\"items\":{\"type\":\"integer\"},\"minItems\":2147483647}|[",
        "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"null\"},\"minItems\":65536},\"minItems\":65536}|[",
        "{\"type\":\"array\",\"items\":{\"type\":\"string\",\"minLength\":1000000},\"minItems\":2147483647}|[",
        "{\"type\":\"string\",\"minLength\":2147483647}|\"",
        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"array\",\"items\":{\"type\":\"boolean\"},\"minItems\":2147483647},"
                + "\"b\":{\"type\":\"array\",\"items\":{\"type\":\"boolean\"},\"minItems\":2147483647}},\"required\":[\"a\",\"b\"]}|{",
    })
    void aRequiredValueLongerThanAnyBudgetSaturatesInsteadOfWrapping(String argument, String opening) throws Exception {
        ToolCallGrammar g = grammar(argument, true);
        assertThat(Frame.totalNeed(g.start())).isEqualTo(Need.MAX);
        // the value may still be started, and what is left still counts more than any budget
        GrammarFixtures.Fed fed = GrammarFixtures.feed(g, "<tool_call>[{\"name\":\"f\",\"arguments\":{\"x\":" + opening);
        assertThat(fed.refusedAt()).isNegative();
        assertThat(Frame.totalNeed(fed.state())).isGreaterThan(1 << 20);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"type\":\"array\",\"items\":{\"type\":\"integer\"},\"minItems\":2147483647}",
        "{\"type\":\"array\",\"items\":{\"type\":\"integer\"},\"maxItems\":2147483647}",
        "{\"type\":\"string\",\"minLength\":100000000}",
        "{\"type\":\"string\",\"minLength\":2147483647,\"maxLength\":2147483647}",
        "{\"type\":\"integer\",\"minimum\":-2147483649,\"maximum\":2147483648}",
    })
    void anOptionalHugeValueLeavesTheShortCallAlone(String argument) throws Exception {
        ToolCallGrammar g = grammar(argument, false);
        // <tool_call> [ {"name":"f","arguments":{}} ] </tool_call>
        assertThat(Frame.totalNeed(g.start())).isEqualTo(1 + "[{\"name\":\"f\",\"arguments\":{}}]".length() + 1);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":2147483648}|\"minItems\" 2147483648 is too large: at most 2147483647",
        "{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":99999999999999999999}|\"maxItems\" 99999999999999999999 is too large",
        "{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":-1}|$[0].parameters.properties.x.minItems (tool \"f\"): must be a non-negative integer, found -1",
        "{\"type\":\"string\",\"pattern\":\"^a\",\"minLength\":100000000}|\"minLength\" 100000000 is too large with a pattern",
        "{\"type\":\"string\",\"pattern\":\"b\",\"maxLength\":2147483647}|\"maxLength\" 2147483647 is too large with a pattern",
        "{\"type\":\"string\",\"minLength\":2147483648}|\"minLength\" 2147483648 is too large: at most 2147483647",
        "{\"type\":\"string\",\"pattern\":\"^[a-z]+x$\",\"maxLength\":3000000}|length bounds up to 999999 are supported with this one (4 automaton states)",
    })
    void boundsTheCompilerCannotHoldAreRefusedByName(String argument, String message) {
        assertThatThrownBy(() -> grammar(argument, false)).isInstanceOf(WorkbenchException.class)
                .hasMessageContaining(message).message().doesNotContain("\"pattern\" ");
    }

    /**
     * A leading digit below a fractional minimum ("2" for [3.5, 12]) once sent the search for a fraction
     * on forever (10^f grows, the search never ends): the compiler hung on {@code "minimum": 3.5}.
     */
    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS)
    void aMinimumAboveALeadingDigitEndsTheSearchAtOnce() throws Exception {
        NumberRule rule = new NumberRule(false, new BigDecimal("3.5"), new BigDecimal("12"));
        assertThat(rule.need("2")).isEqualTo(Need.DEAD);
        assertThat(rule.need("1")).as("10, 11 or 12").isEqualTo(1);
        assertThat(rule.need("3")).as("3.5").isEqualTo(2);
        assertThat(new NumberRule(false, new BigDecimal("3.5"), null).need("2")).as("20").isEqualTo(1);
        assertThat(Frame.totalNeed(grammar("{\"type\":\"number\",\"minimum\":3.5,\"maximum\":12}", true).start())).isPositive();
    }
}
