package dev.needlewb.converter.synth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.tokenizer.SentencePieceModel;
import dev.needlewb.core.tokenizer.Tokenizer;
import dev.needlewb.core.tokenizer.TokenizerVocab;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The synthetic .model reads back as the synthetic vocabulary, and from 270 pieces on encodes any text losslessly. */
class SyntheticSentencePieceTest {
    @ParameterizedTest
    @ValueSource(ints = {270, 384, 600})
    void theModelFileIsTheSyntheticVocabularyAndEncodesAnyText(int vocab) throws Exception {
        SentencePieceModel model = SentencePieceModel.parse(SyntheticSentencePiece.of(vocab), Path.of("synthetic.model"));
        assertThat(model.modelType()).isEqualTo(SentencePieceModel.BPE);
        assertThat(model.byteFallback()).isTrue();
        TokenizerVocab v = model.toVocab(dev.needlewb.core.generation.Generation.NEEDLE2);
        assertThat(v.size()).isEqualTo(vocab);
        byte[] blob = v.toBytes();
        // The blob convert writes from this model is the synthetic blob of the same size, byte for byte.
        assertThat(blob).isEqualTo(SyntheticTokenizerBlob.of(vocab, blob.length));
        Tokenizer t = new Tokenizer(v);
        String text = "<|im_start|>user\nWeather in Zürich? {\"city\": \"日本\"}<|im_end|>";
        assertThat(t.decode(t.encode(text))).isEqualTo(text);
        assertThat(t.encode("<tool_call>")).contains(10);
    }
}
