package dev.needlewb.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.EngineGenerations;
import dev.needlewb.engine.EngineOptions;
import dev.needlewb.engine.Prefill;
import dev.needlewb.engine.generate.Generator;
import dev.needlewb.engine.generate.Sampler;
import dev.needlewb.core.tokenizer.Tokenizer;
import dev.needlewb.core.tokenizer.ToolSchemas;
import dev.needlewb.reports.report.Report;
import dev.needlewb.reports.toolcalls.ToolCallRunner;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "generate", mixinStandardHelpOptions = true,
        description = "Generate text with the engine, streaming it as it comes: from a plain prompt (BOS + text, as upstream"
                + " generate_cached) or from the tool-call chat template, whose tool prefix is pinned as attention sinks;"
                + " the answer is then decoded through the tools' grammar unless --no-constrained.")
final class GenerateCommand implements Callable<Integer> {
    @Parameters(paramLabel = "MODEL.cact")
    Path model;

    @ArgGroup(multiplicity = "1")
    Input input;

    static final class Input {
        @Option(names = "--prompt", paramLabel = "TEXT", description = "Plain prompt text.")
        String prompt;

        @ArgGroup(exclusive = false)
        ToolCall toolCall;
    }

    static final class ToolCall {
        @Option(names = "--tools", paramLabel = "tools.json", required = true,
                description = "JSON array of tools, each in upstream's, OpenAI's (nested or flat) or the flattened per-parameter shape.")
        Path tools;

        @Option(names = "--query", paramLabel = "TEXT", required = true, description = "The user's request.")
        String query;
    }

    @Option(names = "--max-new", paramLabel = "N", description = "Most tokens to generate (default: 64, with --tools 256).")
    Integer maxNew;

    @Mixin
    ToolCallArguments toolArguments;

    @Option(names = "--temperature", paramLabel = "T", defaultValue = "0", description = "0 = greedy (default: ${DEFAULT-VALUE}).")
    double temperature;

    @Option(names = "--top-p", paramLabel = "P", defaultValue = "1", description = "Nucleus mass kept when sampling (default: ${DEFAULT-VALUE}).")
    double topP;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "0", description = "Sampling seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Mixin
    EngineArguments engineArguments;

    @Mixin
    KvWindowArguments kvWindow;

    @Mixin
    PrefillArgument prefillArgument;

    @Option(names = "--json", description = "Print prompt ids, generated ids and text as JSON at the end instead of streaming.")
    boolean json;

    @Option(names = "--heads", description = {"Also run the model's probe heads over the prompt (Needle 3: the confidence logit and its sigmoid,"
            + " the router's 3 logits, the embedding head's norm) and print them after the text, or under \"heads\" with --json;"
            + " natively or with --prefill batch."})
    boolean heads;

    @picocli.CommandLine.Mixin
    NonFiniteOption nonFinite;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws WorkbenchException {
        Sampler sampler;
        try {
            sampler = Sampler.of(temperature, topP, seed);
        } catch (IllegalArgumentException e) {
            throw new WorkbenchException(ErrorKind.BAD_OPTION, e.getMessage());
        }
        boolean tools = input.prompt == null;
        int newTokens = maxNew != null ? maxNew : tools ? 256 : 64;
        if (newTokens < 0) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--max-new must be >= 0, got " + newTokens);
        toolArguments.check();
        PrintWriter out = spec.commandLine().getOut();
        try (CactFile cact = CactFile.open(model, nonFinite.policy())) {
            Tokenizer tokenizer = ModelTokenizer.of(cact);
            int[] promptIds;
            int toolPrefix = 0;
            ToolCallRunner runner = null;
            ToolCallRunner.Prepared prepared = null;
            if (!tools) {
                promptIds = withBos(tokenizer, tokenizer.encode(input.prompt));
            } else {
                ToolSchemas all = ToolSchemas.read(input.toolCall.tools);
                runner = new ToolCallRunner(tokenizer, toolArguments.thinkMax, toolArguments.requireCall);
                runner.masks(all); // every tool's schema compiles, whichever are shown
                ToolSchemas shown = toolArguments.topTools == null ? all
                        : ToolSelection.top(cact, engineArguments.options(), tokenizer, all, input.toolCall.query, toolArguments.topTools);
                prepared = runner.prepare(shown, input.toolCall.query, "");
                promptIds = prepared.prompt().ids();
                toolPrefix = prepared.prompt().toolPrefixTokens();
            }
            if (heads) HeadsAfterPrompt.check(cact, prefillArgument.name());
            // A Needle 3 model attends through its own mask: no tool prefix pinned on top.
            int defaultSinks = EngineGenerations.takesKvWindow(cact) ? toolPrefix : 0;
            EngineOptions options = kvWindow.apply(engineArguments.options(), defaultSinks, promptIds.length);
            try (Engine engine = Engine.load(cact, options); PrefillArgument.Opened opened = prefillArgument.open(engine, cact)) {
                HeadsAfterPrompt probe = heads ? HeadsAfterPrompt.around(opened.prefill()) : null;
                Prefill prefill = probe != null ? probe : opened.prefill();
                Generator.TokenListener stream = json ? null : (id, delta) -> {
                    out.print(delta);
                    out.flush();
                };
                Generator generator = new Generator(engine, tokenizer, prefill);
                Generator.Result r;
                ToolCallRunner.Outcome outcome = null;
                if (prepared == null) {
                    r = generator.generate(promptIds, newTokens, sampler, true, stream);
                } else {
                    outcome = runner.run(generator, engine.newSession(), prepared, newTokens, sampler, toolArguments.constrained, stream, null);
                    r = outcome.result();
                }
                if (json) {
                    ObjectNode node = Report.JSON.createObjectNode();
                    node.putArray("prompt_ids").addAll(ids(r.promptIds()));
                    node.putArray("generated_ids").addAll(ids(r.generatedIds()));
                    node.put("text", r.text());
                    node.put("stop_reason", r.stopReason().name().toLowerCase(Locale.ROOT));
                    node.put("sinks", options.sinks());
                    node.put("window", engine.window());
                    node.put("window_text", engine.windowText());
                    node.put("prefill", prefillArgument.name());
                    if (outcome != null) {
                        node.put("constrained", toolArguments.constrained);
                        node.put("tools_shape", prepared.tools().shapes());
                        node.putArray("tools_shown").addAll(prepared.tools().names().stream().map(node::textNode).toList());
                        node.put("calls", outcome.callsJson());
                        if (toolArguments.constrained) {
                            node.put("mask_ms_per_token", outcome.maskedSteps() == 0 ? 0 : outcome.maskNanos() / 1e6 / outcome.maskedSteps());
                        }
                    }
                    if (probe != null) node.set("heads", probe.json());
                    out.println(node.toPrettyString());
                } else {
                    out.println();
                    if (probe != null) probe.print(out);
                }
                out.flush();
            }
        }
        return 0;
    }

    static int[] withBos(Tokenizer tokenizer, int[] encoded) {
        int[] ids = new int[encoded.length + 1];
        ids[0] = tokenizer.bosId();
        System.arraycopy(encoded, 0, ids, 1, encoded.length);
        return ids;
    }

    private static ArrayNode ids(int[] ids) {
        ArrayNode a = Report.JSON.createArrayNode();
        for (int id : ids) a.add(id);
        return a;
    }
}
