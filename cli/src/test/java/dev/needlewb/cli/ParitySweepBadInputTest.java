package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.golden.Golden;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Prompts files and options {@code sweep parity} refuses: one line naming the file and line, exit 2, nothing written. */
class ParitySweepBadInputTest {
    @TempDir
    Path dir;

    static Stream<Arguments> badFiles() {
        String tooLong = "1" + ",5".repeat(256); // the minis' max_seq_len is 256
        return Stream.of(
                bad("prompts.txt", "\n  \n", "prompts.txt: no prompts (every line is blank)"),
                bad("prompts.jsonl", "{\"prompt\": \"hi\"}\n{\"prompt\": \"hi\"\n", "prompts.jsonl: line 2: not JSON"),
                bad("prompts.jsonl", "[1, 2]\n", "prompts.jsonl: line 1: a prompt line is a JSON object"),
                bad("prompts.jsonl", "{\"text\": \"hi\"}\n", "prompts.jsonl: line 1: unknown key \"text\" (known: id, prompt, tokens)"),
                bad("prompts.jsonl", "{\"prompt\": \"hi\", \"tokens\": [1]}\n", "prompts.jsonl: line 1: give exactly one of \"prompt\" and \"tokens\""),
                bad("prompts.jsonl", "{\"tokens\": [1, 2.5]}\n", "prompts.jsonl: line 1: tokens[1] is not a token id: 2.5"),
                bad("prompts.jsonl", "{\"id\": \"a\", \"prompt\": \"x\"}\n{\"id\": \"a\", \"prompt\": \"y\"}\n", "prompts.jsonl: line 2: prompt id 'a' is given twice"),
                bad("prompts.jsonl", "{\"prompt\": \"x\"}\n{\"tokens\": [1, 512]}\n", "prompts.jsonl: line 2: ", "token 1 is id 512, outside the vocabulary (ids 0..511)"),
                bad("prompts.jsonl", "{\"tokens\": [" + tooLong + "]}\n", "prompts.jsonl: line 1: ", "the prompt has 257 tokens, more than the model's max_seq_len 256"));
    }

    private static Arguments bad(String name, String content, String... message) {
        return Arguments.of(name, content, message);
    }

    @ParameterizedTest
    @MethodSource("badFiles")
    void aBadPromptsFileIsOneLineAndWritesNothing(String name, String content, String... message) throws Exception {
        Path prompts = Files.writeString(dir.resolve(name), content);
        refused(prompts, message);
    }

    @Test
    void aBinaryPromptsFileIsRefused() throws Exception {
        Path prompts = Files.write(dir.resolve("prompts.txt"), new byte[] {'h', 'i', '\n', (byte) 0xC3, 0x28});
        refused(prompts, "prompts.txt", "not a text file of prompts: byte 0xC3 starts no UTF-8 character");
    }

    @Test
    void theTorchEngineIsParitysOwn() throws Exception {
        Path prompts = Files.writeString(dir.resolve("prompts.txt"), "hi\n");
        refused(prompts, new String[] {"--engine", "exact,torch"}, "--engine 'torch': sweep parity runs exact, int8 and batch");
    }

    private void refused(Path prompts, String... message) {
        refused(prompts, new String[0], message);
    }

    private void refused(Path prompts, String[] options, String... message) {
        Path out = dir.resolve("out");
        String[] args = Stream.concat(Stream.of("sweep", "parity", Golden.mini("mini.cact").toString(), Golden.v3mini("mini3.cact").toString(),
                "--prompts", prompts.toString(), "--out", out.toString()), Stream.of(options)).toArray(String[]::new);
        CliRun run = CliRun.of(args);
        assertThat(run.exit()).as(run.out() + run.err()).isEqualTo(2);
        assertThat(run.err().strip()).doesNotContain("\n").startsWith("needle-wb: ").contains(message);
        assertThat(out).doesNotExist();
    }
}
