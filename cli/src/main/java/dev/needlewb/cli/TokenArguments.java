package dev.needlewb.cli;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.core.tokenizer.SentencePieceModel;
import dev.needlewb.core.tokenizer.TokenizerVocab;
import dev.needlewb.core.tokenizer.Tokenizer;
import dev.needlewb.core.io.TextFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** The token input of a command: ids, a file of ids, or a prompt encoded with BOS by the model's tokenizer. */
final class TokenArguments {
    /** Twelve bytes per id, "2147483647, ", for a sequence of a million tokens: far past any context. */
    private static final long MAX_TOKEN_FILE_BYTES = 12L << 20;

    @Option(names = "--tokens", paramLabel = "1,2,3", split = ",", description = "Token ids.")
    int[] tokens;

    @Option(names = "--tokens-file", paramLabel = "FILE", description = "A file of token ids (separated by commas or white space; brackets allowed).")
    Path tokensFile;

    @Option(names = "--prompt", paramLabel = "TEXT", description = "Text, encoded as BOS + tokens with the model's tokenizer.")
    String prompt;

    /** The ids, validated against the vocabulary; a SentencePiece model is read as {@code generation}'s exporter reads it. */
    int[] resolve(byte[] tokenizerBlob, Path tokenizerFile, int vocab, Generation generation) throws WorkbenchException {
        int[] ids;
        if (tokens != null) {
            ids = tokens;
        } else if (tokensFile != null) {
            ids = readIds(tokensFile);
        } else {
            Tokenizer tokenizer = new Tokenizer(vocab(tokenizerBlob, tokenizerFile, generation));
            int[] body = tokenizer.encode(prompt);
            ids = new int[body.length + 1];
            ids[0] = tokenizer.bosId();
            System.arraycopy(body, 0, ids, 1, body.length);
        }
        if (ids.length == 0) throw new WorkbenchException(ErrorKind.BAD_PROMPT, "no tokens given");
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] < 0 || ids[i] >= vocab) {
                throw new WorkbenchException(ErrorKind.BAD_PROMPT, "token " + i + " is id " + ids[i] + ", outside the vocabulary (ids 0.." + (vocab - 1) + ")");
            }
        }
        return ids;
    }

    private static TokenizerVocab vocab(byte[] blob, Path file, Generation generation) throws WorkbenchException {
        if (file != null) {
            if (file.toString().endsWith(".cact")) {
                try (CactFile cact = CactFile.open(file, NonFinitePolicy.ALLOW)) { // its tokenizer only
                    return ModelTokenizer.of(cact).vocab();
                }
            }
            return SentencePieceModel.read(file).toVocab(generation);
        }
        if (blob == null) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--prompt needs a tokenizer: this model has none, give --tokenizer FILE.cact|tok.model");
        return TokenizerVocab.parse(blob, Path.of("tokenizer"), 0, 0);
    }

    private static int[] readIds(Path file) throws WorkbenchException {
        String text = TextFiles.readUtf8(file, "token ids", MAX_TOKEN_FILE_BYTES);
        List<Integer> ids = new ArrayList<>();
        for (String word : text.replace('[', ' ').replace(']', ' ').split("[\\s,]+")) {
            if (word.isEmpty()) continue;
            try {
                ids.add(Integer.parseInt(word));
            } catch (NumberFormatException e) {
                throw new WorkbenchException(ErrorKind.BAD_PROMPT, file + ": '" + word + "' is not a token id");
            }
        }
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }
}
