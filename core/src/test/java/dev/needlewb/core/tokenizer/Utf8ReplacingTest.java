package dev.needlewb.core.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class Utf8ReplacingTest {
    /** Expected strings are Python 3's {@code bytes.fromhex(h).decode("utf-8", "replace")}. */
    @Test
    void replacesMaximalSubpartsLikePython() {
        check("e282", "\uFFFD");
        check("f0808080", "\uFFFD\uFFFD\uFFFD\uFFFD");
        check("eda080", "\uFFFD\uFFFD\uFFFD");
        check("61c3", "a\uFFFD");
        check("f4908080", "\uFFFD\uFFFD\uFFFD\uFFFD");
        check("e282ac78fffe", "\u20ACx\uFFFD\uFFFD");
        check("c0af", "\uFFFD\uFFFD");
        check("f09f98", "\uFFFD");
        check("f09f9880", "\uD83D\uDE00");
        check("e09f80", "\uFFFD\uFFFD\uFFFD");
        check("f18080c3a9", "\uFFFD\u00E9");
    }

    private static void check(String hex, String expected) {
        byte[] bytes = HexFormat.of().parseHex(hex);
        assertThat(Utf8Replacing.decode(bytes, bytes.length)).as(hex).isEqualTo(expected);
    }
}
