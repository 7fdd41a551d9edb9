package dev.needlewb.engine.generate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.core.tokenizer.TokenizerVocab;
import dev.needlewb.core.tokenizer.Tokenizer;
import dev.needlewb.golden.Golden;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TextStreamTest {
    static Tokenizer tokenizer() throws Exception {
        Path path = Golden.mini("mini.cact");
        try (CactFile cact = CactFile.open(path)) {
            TensorRecord record = cact.tensors().getLast();
            return new Tokenizer(TokenizerVocab.parse(cact.tokenizerBlob(), path, record.index(), record.offset()));
        }
    }

    @Test
    void holdsBackAHalfCharacterUntilItsLastByteArrives() throws Exception {
        Tokenizer tok = tokenizer();
        // The mini vocabulary has no piece for the euro sign: it encodes as its three UTF-8 byte pieces.
        int[] ids = tok.encode("a €b");
        TextStream stream = new TextStream(tok);
        List<String> deltas = new ArrayList<>();
        for (int id : ids) deltas.add(stream.append(id));
        deltas.add(stream.finish());
        assertThat(String.join("", deltas)).isEqualTo("a €b");
        assertThat(deltas).noneMatch(d -> d.contains("\uFFFD"));
        assertThat(deltas).contains("€").contains("");
    }

    @Test
    void anUnfinishedCharacterAtTheEndIsFlushedAsReplacement() throws Exception {
        Tokenizer tok = tokenizer();
        int[] euro = tok.encode("x€");
        int[] cut = java.util.Arrays.copyOf(euro, euro.length - 1); // the last byte of the euro sign never comes
        TextStream stream = new TextStream(tok);
        StringBuilder streamed = new StringBuilder();
        for (int id : cut) streamed.append(stream.append(id));
        assertThat(streamed.toString()).isEqualTo("x");
        assertThat(stream.finish()).contains("\uFFFD");
    }
}
