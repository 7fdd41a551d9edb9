package dev.needlewb.reports.toolcalls;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The three scores on one case each, row by row from the rules they come from: the mobile-actions
 * strict exact match (ordered names and argument dicts compared with ==), name accuracy, and BFCL's
 * ast_checker (simple_function_checker, standardize_string, type_checker, the greedy
 * parallel_function_checker_no_order, irrelevance).
 */
class MetricTest {
    /** Tools: f(s: string, n: integer, x: number, tags: array of string, opt: boolean; required s), g(when: anyOf string/null, mode: enum). */
    static final String TOOLS = "[{\"name\":\"f\",\"parameters\":{\"type\":\"object\",\"properties\":{\"s\":{\"type\":\"string\"},"
            + "\"n\":{\"type\":\"integer\"},\"x\":{\"type\":\"number\"},\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
            + "\"opt\":{\"type\":\"boolean\"},\"o\":{\"$ref\":\"#/$defs/O\"}},\"required\":[\"s\"],\"$defs\":{\"O\":{\"type\":\"object\",\"properties\":"
            + "{\"k\":{\"type\":\"string\"}}}}}},{\"type\":\"function\",\"name\":\"g\",\"parameters\":{\"type\":\"object\",\"properties\":"
            + "{\"when\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]},\"mode\":{\"enum\":[1,2]}}}}]";

    /** expected calls | answered calls | exact | names | ast. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        // identical; key order and 10 vs 10.0 (== in Python, by value here) do not matter to exact match
        "[{\"name\":\"f\",\"arguments\":{\"s\":\"a\",\"x\":10}}]|[{\"name\":\"f\",\"arguments\":{\"x\":10.0,\"s\":\"a\"}}]|true|true|true",
        // BFCL's standardize_string: spaces , . / - _ * ^ removed, lower case; exact match compares strings as written
        "[{\"name\":\"f\",\"arguments\":{\"s\":\"April 1, 2024\"}}]|[{\"name\":\"f\",\"arguments\":{\"s\":\"april-1,2024\"}}]|false|true|true",
        "[{\"name\":\"f\",\"arguments\":{\"s\":\"it's\"}}]|[{\"name\":\"f\",\"arguments\":{\"s\":\"IT\\\"S\"}}]|false|true|true",
        "[{\"name\":\"f\",\"arguments\":{\"s\":\"a:b\"}}]|[{\"name\":\"f\",\"arguments\":{\"s\":\"ab\"}}]|false|true|false",
        // type_checker: an integer parameter takes no 5.0 (a float in Python), a number parameter takes 5 (int promoted)
        "[{\"name\":\"f\",\"arguments\":{\"s\":\"a\",\"n\":5}}]|[{\"name\":\"f\",\"arguments\":{\"s\":\"a\",\"n\":5.0}}]|true|true|false",
        "[{\"name\":\"f\",\"arguments\":{\"s\":\"a\",\"x\":5.0}}]|[{\"name\":\"f\",\"arguments\":{\"s\":\"a\",\"x\":5}}]|true|true|true",
        "[{\"name\":\"f\",\"arguments\":{\"s\":\"a\",\"opt\":true}}]|[{\"name\":\"f\",\"arguments\":{\"s\":\"a\",\"opt\":1}}]|false|true|false",
        // arrays: elements type-checked one level down, strings normalized, order kept
        "[{\"name\":\"f\",\"arguments\":{\"s\":\"a\",\"tags\":[\"New York\",\"b\"]}}]|[{\"name\":\"f\",\"arguments\":{\"s\":\"a\",\"tags\":[\"new_york\",\"B\"]}}]|false|true|true",
        "[{\"name\":\"f\",\"arguments\":{\"s\":\"a\",\"tags\":[\"a\",\"b\"]}}]|[{\"name\":\"f\",\"arguments\":{\"s\":\"a\",\"tags\":[\"b\",\"a\"]}}]|false|true|false",
        "[{\"name\":\"f\",\"arguments\":{\"s\":\"a\",\"tags\":[\"1\"]}}]|[{\"name\":\"f\",\"arguments\":{\"s\":\"a\",\"tags\":[1]}}]|false|true|false",
        // dict_checker through a $ref: keys must match, string values normalized
        "[{\"name\":\"f\",\"arguments\":{\"s\":\"a\",\"o\":{\"k\":\"Big Room\"}}}]|[{\"name\":\"f\",\"arguments\":{\"s\":\"a\",\"o\":{\"k\":\"bigroom\"}}}]|false|true|true",
        // a required parameter missing, an argument the expected call lacks, an expected argument left out
        "[{\"name\":\"f\",\"arguments\":{\"s\":\"a\"}}]|[{\"name\":\"f\",\"arguments\":{}}]|false|true|false",
        "[{\"name\":\"f\",\"arguments\":{\"s\":\"a\"}}]|[{\"name\":\"f\",\"arguments\":{\"s\":\"a\",\"opt\":false}}]|false|true|false",
        "[{\"name\":\"f\",\"arguments\":{\"s\":\"a\",\"opt\":false}}]|[{\"name\":\"f\",\"arguments\":{\"s\":\"a\"}}]|false|true|false",
        // anyOf types and enum values' types
        "[{\"name\":\"g\",\"arguments\":{\"when\":null,\"mode\":2}}]|[{\"name\":\"g\",\"arguments\":{\"mode\":2,\"when\":null}}]|true|true|true",
        "[{\"name\":\"g\",\"arguments\":{\"when\":\"Noon\"}}]|[{\"name\":\"g\",\"arguments\":{\"when\":\"noon\"}}]|false|true|true",
        "[{\"name\":\"g\",\"arguments\":{\"when\":\"1\"}}]|[{\"name\":\"g\",\"arguments\":{\"when\":1}}]|false|true|false",
        // parallel calls: exact and name accuracy keep the order, BFCL matches in any order
        "[{\"name\":\"f\",\"arguments\":{\"s\":\"a\"}},{\"name\":\"g\",\"arguments\":{}}]|[{\"name\":\"g\",\"arguments\":{}},{\"name\":\"f\",\"arguments\":{\"s\":\"a\"}}]|false|false|true",
        "[{\"name\":\"f\",\"arguments\":{\"s\":\"a\"}},{\"name\":\"f\",\"arguments\":{\"s\":\"b\"}}]|[{\"name\":\"f\",\"arguments\":{\"s\":\"B\"}},{\"name\":\"f\",\"arguments\":{\"s\":\"a\"}}]|false|true|true",
        "[{\"name\":\"f\",\"arguments\":{\"s\":\"a\"}}]|[{\"name\":\"f\",\"arguments\":{\"s\":\"a\"}},{\"name\":\"f\",\"arguments\":{\"s\":\"a\"}}]|false|false|false",
        // BFCL matches greedily, each expected call taking the first answer that fits; with one acceptable value per argument
        // fitting is an equivalence, so greedy finds a matching whenever one exists
        "[{\"name\":\"f\",\"arguments\":{\"s\":\"xy\"}},{\"name\":\"f\",\"arguments\":{\"s\":\"x-y\"}}]|[{\"name\":\"f\",\"arguments\":{\"s\":\"X Y\"}},{\"name\":\"f\",\"arguments\":{\"s\":\"xy\"}}]|false|true|true",
        "[{\"name\":\"f\",\"arguments\":{\"s\":\"a b\"}},{\"name\":\"f\",\"arguments\":{\"s\":\"c\"}}]|[{\"name\":\"f\",\"arguments\":{\"s\":\"ab\"}},{\"name\":\"f\",\"arguments\":{\"s\":\"d\"}}]|false|true|false",
        // a wrong tool; refusals (BFCL's irrelevance: passes only without a call); no closed answer at all
        "[{\"name\":\"f\",\"arguments\":{\"s\":\"a\"}}]|[{\"name\":\"g\",\"arguments\":{}}]|false|false|false",
        "[]|[]|true|true|true",
        "[]|[{\"name\":\"g\",\"arguments\":{}}]|false|false|false",
        "[{\"name\":\"g\",\"arguments\":{}}]|[]|false|false|false",
        "[{\"name\":\"g\",\"arguments\":{}}]|not a list|false|false|false",
    })
    void scoresFollowTheirDefinitions(String expected, String answered, boolean exact, boolean names, boolean ast) throws Exception {
        ToolCallCase c = ToolCallCase.parse("{\"query\":\"q\",\"tools\":" + TOOLS + ",\"expected\":" + expected + "}", "t").getFirst();
        var got = CallComparison.parse(answered);
        assertThat(List.of(Metric.EXACT.passes(got, c), Metric.NAMES.passes(got, c), Metric.AST.passes(got, c)))
                .as("exact, names, ast").containsExactly(exact, names, ast);
    }
}
