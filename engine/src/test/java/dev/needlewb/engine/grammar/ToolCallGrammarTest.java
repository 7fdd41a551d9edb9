package dev.needlewb.engine.grammar;

import static dev.needlewb.engine.grammar.GrammarFixtures.feed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.json.JsonException;
import dev.needlewb.core.tokenizer.ToolSchemas;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ToolCallGrammarTest {
    static ToolCallGrammar grammar;
    static ToolCallGrammar constructs;

    @BeforeAll
    static void compile() throws Exception {
        grammar = GrammarFixtures.grammar();
        constructs = ToolCallGrammar.compile(ToolSchemas.read(java.nio.file.Path.of(ToolCallGrammarTest.class.getResource("/grammar/constructs.json").toURI())));
    }

    static String answer(String calls) {
        return "<think>temperature 21</think>\n<tool_call>" + calls + "</tool_call><|im_end|>";
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "[]",
        "[{\"name\":\"set_thermostat\",\"arguments\":{\"temperature\":21}}]",
        "[{\"name\":\"set_thermostat\",\"arguments\":{\"mode\":\"cool\",\"temperature\":30}}]",
        "[{\"name\":\"set_thermostat\",\"arguments\":{\"temperature\":5}},{\"name\":\"ping\",\"arguments\":{}}]",
        "[{\"name\":\"send_money\",\"arguments\":{\"amount\":0.5,\"to\":\"@bob_9\"}}]",
        "[{\"name\":\"send_money\",\"arguments\":{\"to\":\"@a\",\"amount\":10000,\"memo\":\"caf\u00e9 \\u00e9\\n\\\"x\\\"\"}}]",
        "[{\"name\":\"send_money\",\"arguments\":{\"amount\":9999.99,\"to\":\"@x\",\"memo\":\"\uD83D\uDE00\"}}]",
        "[{\"name\":\"create_event\",\"arguments\":{\"title\":\"Q3\",\"attendees\":[\"a\",\"b\",\"c\"],\"all_day\":false,"
                + "\"where\":{\"floor\":-2,\"room\":\"B1\"},\"kind\":\"meeting\",\"note\":null}}]",
    })
    void acceptsValidCalls(String calls) {
        assertThat(feed(grammar, answer(calls)).complete()).as(calls).isTrue();
        assertThat(feed(grammar, "<tool_call>" + calls + "</tool_call>").complete()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "[{\"name\":\"order\",\"arguments\":{\"items\":[]}}]",
        "[{\"name\":\"order\",\"arguments\":{\"note\":null,\"size\":null,\"items\":[{\"name\":\"tea\"}]}}]",
        "[{\"name\":\"order\",\"arguments\":{\"note\":\"hot\",\"size\":9,\"when\":{\"m\":30,\"h\":7},\"items\":[{\"qty\":2,\"name\":\"a\"},{\"name\":\"b\"}]}}]",
        "[{\"name\":\"order\",\"arguments\":{\"items\":[],\"shape\":{\"kind\":\"circle\",\"r\":1.5}}}]",
        "[{\"name\":\"order\",\"arguments\":{\"items\":[],\"shape\":{\"side\":2,\"kind\":\"square\"},\"level\":10,\"mode\":\"auto\"}}]",
        "[{\"name\":\"order\",\"arguments\":{\"level\":1,\"items\":[]}},{\"name\":\"set_alarm\",\"arguments\":{\"hour\":7}}]",
    })
    void acceptsValidCallsOverUnionsReferencesAndTheOtherShapes(String calls) {
        assertThat(feed(constructs, answer(calls)).complete()).as(calls).isTrue();
    }

    /** As {@link #refusesInvalidCallsAtTheFirstWrongByte}, over unions, references, enums and the flattened tool's required flag. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "[{\"name\":\"order\",\"arguments\":{\"note\":~5,\"items\":[]}}]",
        "[{\"name\":\"order\",\"arguments\":{\"note\":\"hello~!\",\"items\":[]}}]",
        "[{\"name\":\"order\",\"arguments\":{\"note\":nul~ ,\"items\":[]}}]",
        "[{\"name\":\"order\",\"arguments\":{\"size\":1~0,\"items\":[]}}]",
        "[{\"name\":\"order\",\"arguments\":{\"size\":~\"1\",\"items\":[]}}]",
        "[{\"name\":\"order\",\"arguments\":{\"when\":{\"m\":5~}}}]",
        "[{\"name\":\"order\",\"arguments\":{\"when\":{\"h\":2~4}}}]",
        "[{\"name\":\"order\",\"arguments\":{\"items\":[{~}]}}]",
        "[{\"name\":\"order\",\"arguments\":{\"items\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"}~,]}}]",
        "[{\"name\":\"order\",\"arguments\":{\"items\":[],\"shape\":{\"kind\":\"circle\",\"~side\":1}}}]",
        "[{\"name\":\"order\",\"arguments\":{\"items\":[],\"shape\":{\"kind\":\"~triangle\"}}}]",
        "[{\"name\":\"order\",\"arguments\":{\"items\":[],\"shape\":{\"r\":1~}}}]",
        "[{\"name\":\"order\",\"arguments\":{\"items\":[],\"level\":~3}}]",
        "[{\"name\":\"order\",\"arguments\":{\"items\":[],\"level\":10~0}}]",
        "[{\"name\":\"order\",\"arguments\":{\"items\":[],\"mode\":\"au~x\"}}]",
        "[{\"name\":\"order\",\"arguments\":{~}}]",
        "[{\"name\":\"set_alarm\",\"arguments\":{~}}]",
        "[{\"name\":\"set_alarm\",\"arguments\":{\"hour\":7~,\"required\":true}}]",
    })
    void refusesInvalidUnionsAndReferencesAtTheFirstWrongByte(String marked) {
        assertRefusedAtMark(constructs, marked);
    }

    /** Each invalid answer is refused exactly at the byte marked by the first '~' (the marker itself removed). */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "[{\"name\":\"set_thermo~\"}]",
        "[{\"name\":\"set_thermostat\",\"arguments\":{\"temperature\":~4}}]",
        "[{\"name\":\"set_thermostat\",\"arguments\":{\"temperature\":3~1}}]",
        "[{\"name\":\"set_thermostat\",\"arguments\":{\"temperature\":2~.5}}]",
        "[{\"name\":\"set_thermostat\",\"arguments\":{\"temperature\":~07}}]",
        "[{\"name\":\"set_thermostat\",\"arguments\":{~}}]",
        "[{\"name\":\"set_thermostat\",\"arguments\":{\"mode\":\"he~x\"}}]",
        "[{\"name\":\"set_thermostat\",\"arguments\":{\"temperature\":21,\"~temperature\"}}]",
        "[{\"name\":\"set_thermostat\",\"arguments\":{\"temperature\":21,\"~colour\"}}]",
        "[{\"name\":\"set_thermostat\",\"arguments\":{\"temperature\":21~ }}]",
        "[{\"name\":\"send_money\",\"arguments\":{\"amount\":0.~4}}]",
        "[{\"name\":\"send_money\",\"arguments\":{\"amount\":1,\"to\":\"~bob\"}}]",
        "[{\"name\":\"send_money\",\"arguments\":{\"amount\":1,\"to\":\"@~B\"}}]",
        "[{\"name\":\"send_money\",\"arguments\":{\"amount\":1,\"to\":\"@abcdefghijk~l\"}}]",
        "[{\"name\":\"send_money\",\"arguments\":{\"amount\":1,\"to\":\"@~\"}}]",
        "[{\"name\":\"send_money\",\"arguments\":{\"amount\":1,\"to\":\"@a\",\"memo\":\"\\~q\"}}]",
        "[{\"name\":\"send_money\",\"arguments\":{\"amount\":1,\"to\":\"@a\",\"memo\":\"\\ud~800\"}}]",
        "[{\"name\":\"create_event\",\"arguments\":{\"title\":\"Q~\"}}]",
        "[{\"name\":\"create_event\",\"arguments\":{\"title\":\"Q3\",\"attendees\":[~]}}]",
        "[{\"name\":\"create_event\",\"arguments\":{\"title\":\"Q3\",\"attendees\":[\"a\",\"b\",\"c\"~,\"d\"]}}]",
        "[{\"name\":\"create_event\",\"arguments\":{\"title\":\"Q3\",\"attendees\":[\"a\"],\"all_day\":tru~ }}]",
        "[{\"name\":\"create_event\",\"arguments\":{\"title\":\"Q3\",\"attendees\":[\"a\"],\"where\":{~}}}]",
        "[{\"name\":\"create_event\",\"arguments\":{\"title\":\"Q3\",\"attendees\":[\"a\"],\"kind\":\"meet~s\"}}]",
        "[{\"name\":\"ping\",\"arguments\":{}}~}",
        "[{\"name\":\"ping\",\"arguments\":{}}~ ]",
    })
    void refusesInvalidCallsAtTheFirstWrongByte(String marked) {
        assertRefusedAtMark(grammar, marked);
    }

    /** Feeds {@code marked} without its first '~' after {@code <tool_call>}: the byte at the mark must be the one refused. */
    private static void assertRefusedAtMark(ToolCallGrammar g, String marked) {
        int at = marked.indexOf('~');
        String calls = marked.substring(0, at) + marked.substring(at + 1);
        String prefix = "<tool_call>";
        assertThat(feed(g, prefix + calls).refusedAt()).as(calls).isEqualTo(prefix.length() + at);
    }

    @Test
    void refusesRawControlBytesAndBadUtf8InStrings() {
        String head = "<tool_call>[{\"name\":\"send_money\",\"arguments\":{\"amount\":1,\"to\":\"@a\",\"memo\":\"";
        assertThat(feed(grammar, head + "a\tb").refusedAt()).isEqualTo(head.length() + 1);
        Frame inMemo = feed(grammar, head).state();
        assertThat(inMemo.step(0xC0)).as("overlong lead byte").isNull();
        assertThat(inMemo.step(0xE0).step(0x80)).as("overlong 3-byte form").isNull();
        assertThat(inMemo.step(0xED).step(0xA0)).as("UTF-8 surrogate").isNull();
        assertThat(inMemo.step(0xE2).step(0x96).step(0x81)).as("U+2581, which the decoder prints as a space").isNull();
        assertThat(inMemo.step(0xF0).step(0x9F).step(0x98).step(0x80)).isNotNull();
    }

    @Test
    void thinkingIsFreeButMarkersEndIt() {
        assertThat(feed(grammar, "<think>any \"bytes\" {[ at all</think><tool_call>[]</tool_call>").complete()).isTrue();
        assertThat(feed(grammar, "<think>x<tool_call>").refusedAt()).isEqualTo("<think>x".length());
        assertThat(feed(grammar, "[]").refusedAt()).as("the call list starts with <tool_call>").isZero();
    }

    @Test
    void shortestCompletionIsExact() {
        // from the start: <tool_call> [ ] </tool_call>
        assertThat(Frame.totalNeed(grammar.start())).isEqualTo(4);
        String head = "<tool_call>[{\"name\":\"set_";
        // "thermostat\"" + ",\"arguments\":" + "{\"temperature\":5}" + "}" + "]" + "</tool_call>"
        int want = "thermostat\"".length() + ",\"arguments\":".length() + "{\"temperature\":5}".length() + 1 + 1 + 1;
        assertThat(Frame.totalNeed(feed(grammar, head).state())).isEqualTo(want);
        String money = "<tool_call>[{\"name\":\"send_money\",\"arguments\":{\"amount\":0";
        // ".5" + ",\"to\":\"@a\"" (pattern needs one more char after @) + "}}]" + "</tool_call>"
        assertThat(Frame.totalNeed(feed(grammar, money).state())).isEqualTo(2 + ",\"to\":\"@a\"".length() + 3 + 1);
    }

    static final String X = "[{\"name\":\"a\",\"parameters\":{\"type\":\"object\",\"properties\":{\"x\":";

    /** Each tools text with the whole line its refusal must print: file, line, JSON path as written, tool, what. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        X + "{\"type\":\"date\"}}}}]|$[0].parameters.properties.x.type (tool \"a\"): unsupported type \"date\""
                + " (supported: string, integer, number, boolean, null, array, object)",
        X + "{\"not\":{\"type\":\"null\"}}}}}]|$[0].parameters.properties.x (tool \"a\"): unsupported schema keyword \"not\"",
        X + "{\"anyOf\":[]}}}}]|$[0].parameters.properties.x.anyOf (tool \"a\"): must be a non-empty array of schemas",
        X + "{\"type\":[]}}}}]|$[0].parameters.properties.x.type (tool \"a\"): must be a type name or a non-empty list of them, found []",
        X + "{\"type\":\"string\",\"pattern\":\"(?=a)\"}}}}]|$[0].parameters.properties.x (tool \"a\"): pattern '(?=a)': look-around",
        X + "{\"type\":\"integer\",\"minimum\":3,\"maximum\":2}}}}]|$[0].parameters.properties.x (tool \"a\"): no value satisfies this schema",
        X + "{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"string\",\"maxLength\":3}]}}}}]|$[0].parameters.properties.x.oneOf"
                + " (tool \"a\"): options 0 and 1 may both match one value, so the grammar cannot promise exactly one (write \"anyOf\" if either may match)",
        X + "{\"oneOf\":[{\"type\":\"integer\"},{\"type\":\"number\"}]}}}}]|$[0].parameters.properties.x.oneOf (tool \"a\"): options 0 and 1",
        X + "{\"type\":\"string\",\"anyOf\":[{\"maxLength\":2}]}}}}]|$[0].parameters.properties.x (tool \"a\"):"
                + " \"type\" beside \"anyOf\" is not supported (only annotations may go beside it)",
        X + "{\"$ref\":\"#/$defs/N\",\"minLength\":1}},\"$defs\":{\"N\":{\"type\":\"string\"}}}}]|$[0].parameters.properties.x (tool \"a\"):"
                + " \"minLength\" beside \"$ref\" is not supported",
        X + "{\"$ref\":\"https://example.com/s.json\"}}}}]|$[0].parameters.properties.x.$ref (tool \"a\"): only references into the same parameters",
        X + "{\"$ref\":\"#/$defs/Missing\"}}}}]|$[0].parameters.properties.x.$ref (tool \"a\"): \"#/$defs/Missing\" names nothing in this tool's parameters",
        X + "{\"$ref\":\"#/$defs/Node\"}},\"$defs\":{\"Node\":{\"type\":\"object\",\"properties\":{\"next\":{\"$ref\":\"#/$defs/Node\"}}}}}}]"
                + "|$[0].parameters.$defs.Node.properties.next.$ref (tool \"a\"): $ref cycle #/$defs/Node -> #/$defs/Node (recursive schemas are not supported)",
        X + "{\"$ref\":\"#/definitions/A\"}},\"definitions\":{\"A\":{\"anyOf\":[{\"$ref\":\"#/definitions/B\"}]},\"B\":{\"type\":\"array\","
                + "\"items\":{\"$ref\":\"#/definitions/A\"}}}}}]|$[0].parameters.definitions.B.items.$ref (tool \"a\"): $ref cycle #/definitions/A"
                + " -> #/definitions/B -> #/definitions/A",
        X + "{\"enum\":[\"ab\",\"c\"],\"maxLength\":1}}}}]|$[0].parameters.properties.x (tool \"a\"): \"maxLength\" beside \"enum\"/\"const\" is not supported",
        X + "{\"enum\":[1,2],\"const\":3}}}}]|$[0].parameters.properties.x (tool \"a\"): the \"const\" is not in the \"enum\"",
        X + "{\"type\":\"string\"}},\"required\":[\"x\",\"y\"]}}]|$[0].parameters.required[1] (tool \"a\"): \"y\" is not one of the properties",
        "[{\"name\":\"a\",\"parameters\":{\"type\":\"string\"}}]|$[0].parameters (tool \"a\"): parameters must be an object schema (\"type\": \"object\")",
        "[{\"name\":\"a\",\"parameters\":{\"x\":{\"type\":\"date\",\"required\":true}}}]|$[0].parameters.x.type (tool \"a\"): unsupported type",
        "[{\"type\":\"function\",\"function\":{\"name\":\"a\",\"parameters\":{\"type\":\"object\",\"properties\":{\"zip code\":{\"type\":\"date\"}}}}}]"
                + "|$[0].function.parameters.properties[\"zip code\"].type (tool \"a\"): unsupported type",
        "[{\"type\":\"function\",\"name\":\"a\",\"parameters\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"date\"}}}}]"
                + "|$[0].parameters.properties.x.type (tool \"a\"): unsupported type",
    })
    void refusesUnsupportedSchemasNamingFileLineAndPathAsWritten(String tools, String message) throws Exception {
        ToolSchemas schemas = ToolSchemas.parse(tools, "t.json");
        assertThatThrownBy(() -> ToolCallGrammar.compile(schemas)).isInstanceOf(WorkbenchException.class)
                .hasMessageStartingWith("t.json: line 1: " + message);
    }

    @Test
    void anErrorInAMultiLineFileNamesItsLine() throws Exception {
        String tools = "[\n  {\"name\": \"a\", \"parameters\": {\"type\": \"object\", \"properties\": {}}},\n  {\"name\": \"b\",\n"
                + "   \"parameters\": {\"type\": \"object\",\n     \"properties\": {\n       \"when\": {\"type\": \"string\"},\n"
                + "       \"zone\": {\"anyOf\": [{\"type\": \"string\"}, {\"allOf\": []}]}}}}\n]";
        ToolSchemas schemas = ToolSchemas.parse(tools, "t.json");
        JsonException e = assertThrows(JsonException.class, () -> ToolCallGrammar.compile(schemas));
        assertThat(e.kind()).isEqualTo(ErrorKind.BAD_SCHEMA);
        assertThat(e.line()).isEqualTo(7);
        assertThat(e.path()).hasToString("$[1].parameters.properties.zone.anyOf[1]");
    }

    @Test
    void schemasNestedTooDeeplyAreRefused() throws Exception {
        String deep = "{\"type\":\"array\",\"items\":".repeat(70) + "{\"type\":\"null\"}" + "}".repeat(70);
        ToolSchemas schemas = ToolSchemas.parse(X + deep + "}}}]", "t.json");
        assertThatThrownBy(() -> ToolCallGrammar.compile(schemas)).isInstanceOf(WorkbenchException.class)
                .hasMessageContaining("schemas nested deeper than 64 levels are not supported");
    }
}
