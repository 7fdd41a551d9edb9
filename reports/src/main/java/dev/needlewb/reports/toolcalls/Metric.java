package dev.needlewb.reports.toolcalls;

import com.fasterxml.jackson.databind.JsonNode;

/** The scores of an engine's answers against a case's expected calls, each with the definition the report prints. */
enum Metric {
    EXACT("exact match", "expected_call_accuracy",
            "the same calls in the same order: each names the expected tool with exactly the expected arguments (numbers by value, "
                    + "keys in any order, strings as written); an expected [] matches only []. The strict metric peers publish on "
                    + "google/mobile-actions."),
    NAMES("name accuracy", "expected_name_accuracy",
            "the same number of calls naming the expected tools in the same order; arguments are not compared."),
    AST("AST match (BFCL)", "expected_ast_match",
            "BFCL's ast_checker: the expected tool names, every required parameter given, no argument the tool or the expected call "
                    + "lacks, arguments of the declared type (an integer is not 5.0), strings equal after BFCL's normalization "
                    + "(spaces and , . / - _ * ^ removed, lower case), parallel calls matched in any order; an expected [] matches only [].");

    final String title;
    final String key;
    final String definition;

    Metric(String title, String key, String definition) {
        this.title = title;
        this.key = key;
        this.definition = definition;
    }

    /** Whether answer {@code got} (the parsed call list, null for none) passes against case {@code c}'s expected calls. */
    boolean passes(JsonNode got, ToolCallCase c) {
        return switch (this) {
            case EXACT -> CallComparison.sameCalls(got, c.expected());
            case NAMES -> CallComparison.sameNames(got, c.expected());
            case AST -> AstMatch.matches(got, c.expected(), c.tools());
        };
    }
}
