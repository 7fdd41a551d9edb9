package dev.needlewb.engine.grammar;

import static dev.needlewb.engine.grammar.GrammarFixtures.feed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.tokenizer.ToolSchemas;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ToolCallGrammarTest {
    static ToolCallGrammar grammar;

    @BeforeAll
    static void compile() throws Exception {
        grammar = GrammarFixtures.grammar();
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
        int at = marked.indexOf('~');
        String calls = marked.substring(0, at) + marked.substring(at + 1);
        String prefix = "<tool_call>";
        GrammarFixtures.Fed fed = feed(grammar, prefix + calls);
        assertThat(fed.refusedAt()).as(calls).isEqualTo(prefix.length() + at);
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

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "[{\"name\":\"a\",\"parameters\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"date\"}}}}]"
                + "|unsupported type \"date\"",
        "[{\"name\":\"a\",\"parameters\":{\"type\":\"object\",\"properties\":{\"x\":{\"anyOf\":[]}}}}]"
                + "|unsupported schema keyword \"anyOf\"",
        "[{\"name\":\"a\",\"parameters\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":[\"string\",\"null\"]}}}}]"
                + "|type lists are not supported",
        "[{\"name\":\"a\",\"parameters\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\",\"pattern\":\"(?=a)\"}}}}]"
                + "|look-around",
        "[{\"name\":\"a\",\"parameters\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"integer\",\"minimum\":3,\"maximum\":2}}}}]"
                + "|no value satisfies this schema",
        "[{\"name\":\"a\",\"parameters\":{\"type\":\"object\",\"required\":[\"y\"],\"properties\":{\"x\":{\"type\":\"string\"}}}}]"
                + "|required \"y\" is not one of the properties",
        "[{\"name\":\"a\",\"parameters\":{\"type\":\"string\"}}]|parameters must be an object schema",
    })
    void refusesUnsupportedSchemasNamingThePath(String tools, String message) throws Exception {
        ToolSchemas schemas = ToolSchemas.parse(tools, "t.json");
        assertThatThrownBy(() -> ToolCallGrammar.compile(schemas, "t.json"))
                .isInstanceOf(WorkbenchException.class).hasMessageStartingWith("t.json: tool 0 (a) parameters").hasMessageContaining(message);
    }
}
