package dev.needlewb.cli;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.converter.synth.SyntheticCact;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The training run of the JVM's AOT cache (JEP 483, 514, 515), started by {@code ./needle-wb} once
 * per build under {@code -XX:AOTCacheOutput}: the commands a user starts cold (generate in both
 * modes, a tool call, the reference), on a synthetic model of the released geometry in a temporary
 * folder that is deleted afterwards. The cache then holds the classes loaded and linked and the
 * method profiles of this run, so later starts skip that work.
 */
@Command(name = "train-jvm", hidden = true, mixinStandardHelpOptions = true,
        description = "Run the workload the launcher records the JVM's AOT cache from (internal).")
final class TrainJvmCommand implements Callable<Integer> {
    private static final String PROMPT = "What is the weather in Paris?";

    @Option(names = "--tmp", paramLabel = "DIR", description = "Where the temporary folder goes (default: the system's).")
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));

    @Override
    public Integer call() throws WorkbenchException, IOException {
        Path dir = Files.createTempDirectory(tmp, "needle-wb-train-jvm");
        try {
            Path model = dir.resolve("model.cact");
            CactWriter.write(SyntheticCact.released(1, List.of()), model);
            String cact = model.toString();
            Subcommands.run("train-jvm", 0, "generate", cact, "--prompt", PROMPT, "--max-new", "32");
            Subcommands.run("train-jvm", 0, "generate", cact, "--prompt", PROMPT, "--max-new", "16", "--mode", "exact");
            // random weights: the answer is whatever it is (exit 1 reports a disagreement, not a failure)
            Subcommands.run("train-jvm", 1, "eval", "toolcalls", cact, "--cases", "builtin", "--limit", "1", "--engine", "exact,int8",
                    "--max-new", "32", "--think-max", "8", "--profile", "report", "--out", dir.resolve("toolcalls").toString());
            String tokens = IntStream.rangeClosed(1, 32).mapToObj(Integer::toString).collect(Collectors.joining(","));
            Subcommands.run("train-jvm", 0, "reference", cact, "--tokens", tokens, "--out", dir.resolve("reference.npz").toString());
            return 0;
        } finally {
            deleteTree(dir);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
