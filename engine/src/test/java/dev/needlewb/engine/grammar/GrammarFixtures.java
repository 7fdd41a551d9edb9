package dev.needlewb.engine.grammar;

import dev.needlewb.core.tokenizer.SpecialTokens;
import dev.needlewb.core.tokenizer.ToolSchemas;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** Shared inputs of the grammar tests: the feature-rich tools file and a byte feeder. */
final class GrammarFixtures {
    private GrammarFixtures() {}

    static Path toolsFile() throws Exception {
        return Path.of(GrammarFixtures.class.getResource("/grammar/tools.json").toURI());
    }

    static ToolCallGrammar grammar() throws Exception {
        return ToolCallGrammar.compile(ToolSchemas.read(toolsFile()));
    }

    /** Where feeding stopped: the byte index of the first symbol refused (-1: none) and the state reached. */
    record Fed(int refusedAt, Frame state) {
        boolean complete() {
            return refusedAt < 0 && ToolCallGrammar.complete(state);
        }
    }

    /** Feeds {@code text} (chat markers spelled out become marker symbols) from the start state. */
    static Fed feed(ToolCallGrammar g, String text) {
        Frame f = g.start();
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        String ascii = new String(bytes, StandardCharsets.ISO_8859_1);
        int i = 0;
        while (i < bytes.length) {
            int symbol = -1;
            int width = 1;
            for (String m : SpecialTokens.CHAT_MARKERS) {
                if (ascii.startsWith(m, i)) {
                    symbol = Symbols.marker(m);
                    width = m.length();
                }
            }
            if (symbol < 0) symbol = bytes[i] & 0xFF;
            Frame next = f.step(symbol);
            if (next == null) return new Fed(i, f);
            f = next;
            i += width;
        }
        return new Fed(-1, f);
    }
}
