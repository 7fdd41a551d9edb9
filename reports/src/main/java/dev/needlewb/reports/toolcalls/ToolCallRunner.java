package dev.needlewb.reports.toolcalls;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.tokenizer.ChatTemplate;
import dev.needlewb.core.tokenizer.PythonJson;
import dev.needlewb.core.tokenizer.Tokenizer;
import dev.needlewb.core.tokenizer.ToolSchemas;
import dev.needlewb.engine.Session;
import dev.needlewb.engine.generate.Generator;
import dev.needlewb.engine.generate.Sampler;
import dev.needlewb.engine.grammar.ConstrainedDecoding;
import dev.needlewb.engine.grammar.GrammarMasks;
import dev.needlewb.engine.grammar.TokenTrie;
import dev.needlewb.engine.grammar.ToolCallAnswer;
import dev.needlewb.engine.grammar.ToolCallGrammar;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A tool call from prompt to answer: the chat template with the tools in compact JSON, then
 * generation, constrained by the tools' grammar or free. The vocabulary trie is built once per
 * tokenizer and each tools list's grammar (with its cached masks) once per run, keyed by the
 * tools' compact JSON, so many cases over the same tools share their masks.
 */
public final class ToolCallRunner {
    /** A prompt ready to run: the rendered template and the grammar of the tools it shows. */
    public record Prepared(ToolSchemas tools, ChatTemplate.Prompt prompt, GrammarMasks masks) {}

    /**
     * What came out: the generation, the call list's JSON text (null if none was closed), and for a
     * constrained run the masking time and picks.
     */
    public record Outcome(Generator.Result result, String callsJson, long maskNanos, int maskedSteps) {}

    private final Tokenizer tokenizer;
    private final ChatTemplate template;
    private final TokenTrie tokens;
    private final int thinkMax;
    private final boolean requireCall;
    private final Map<String, GrammarMasks> grammars = new ConcurrentHashMap<>();

    /** {@code requireCall}: the answer holds at least one call (see {@link ToolCallGrammar#compile(ToolSchemas, boolean)}). */
    public ToolCallRunner(Tokenizer tokenizer, int thinkMax, boolean requireCall) {
        this.requireCall = requireCall;
        this.tokenizer = tokenizer;
        this.template = new ChatTemplate(tokenizer);
        this.tokens = new TokenTrie(tokenizer);
        this.thinkMax = thinkMax;
    }

    public Tokenizer tokenizer() {
        return tokenizer;
    }

    /** The grammar of {@code tools} (compiled once per distinct tools JSON). */
    public GrammarMasks masks(ToolSchemas tools) throws WorkbenchException {
        String key = tools.toJson(PythonJson.Separators.COMPACT);
        GrammarMasks masks = grammars.get(key);
        if (masks == null) {
            masks = new GrammarMasks(ToolCallGrammar.compile(tools, requireCall), tokens);
            grammars.put(key, masks);
        }
        return masks;
    }

    /** The prompt of {@code query} over {@code tools} with a system turn ({@code ""}: none), and its grammar. */
    public Prepared prepare(ToolSchemas tools, String query, String system) throws WorkbenchException {
        return new Prepared(tools, template.render(tools, query, system), masks(tools));
    }

    /** A constrained decoding over {@code p}'s tools, for engines that run their own loop. */
    public ConstrainedDecoding decoding(Prepared p, ConstrainedDecoding.StepObserver observer) {
        return new ConstrainedDecoding(p.masks(), thinkMax, observer);
    }

    /** The fewest new tokens a constrained answer over {@code p}'s tools takes. */
    public int minimumTokens(Prepared p) {
        return new ConstrainedDecoding(p.masks(), thinkMax, null).minimumTokens();
    }

    /**
     * Generates in {@code session} (fresh or reset).
     *
     * @throws WorkbenchException when {@code maxNew} cannot hold the shortest constrained answer
     */
    public Outcome run(Generator generator, Session session, Prepared p, int maxNew, Sampler sampler, boolean constrained,
                       Generator.TokenListener listener, ConstrainedDecoding.StepObserver observer) throws WorkbenchException {
        ConstrainedDecoding decoding = constrained ? new ConstrainedDecoding(p.masks(), thinkMax, observer) : null;
        if (decoding != null && maxNew < decoding.minimumTokens()) {
            throw new WorkbenchException(ErrorKind.BAD_OPTION, "--max-new " + maxNew + " cannot hold a tool call: the shortest answer takes "
                    + decoding.minimumTokensText() + " tokens");
        }
        Generator.Result r = generator.generate(session, p.prompt().ids(), maxNew, sampler, true, listener, decoding);
        String calls = ToolCallAnswer.callsJson(r.generatedIds(), tokenizer);
        return new Outcome(r, calls, decoding == null ? 0 : decoding.maskNanos(), decoding == null ? 0 : decoding.steps());
    }
}
