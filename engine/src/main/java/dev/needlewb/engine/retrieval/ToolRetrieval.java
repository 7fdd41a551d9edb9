package dev.needlewb.engine.retrieval;

import dev.needlewb.core.tokenizer.PythonJson;
import dev.needlewb.core.tokenizer.Tokenizer;
import dev.needlewb.core.tokenizer.ToolSchemas;
import dev.needlewb.engine.Engine;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;

/**
 * Ranks tools for a query the way upstream's {@code retrieve_tools} does: the query and each tool
 * (its compact JSON, {@code json.dumps(tool, separators=(",", ":"))}, the text the head was trained
 * on) are encoded without BOS and truncated to {@link #MAX_TOKENS}, embedded by the contrastive head, and
 * scored by the dot product of the unit vectors (cosine). Tool embeddings are computed once per
 * tools list and engine.
 */
public final class ToolRetrieval {
    /** Upstream's {@code encode_for_retrieval(max_len=256)}. */
    public static final int MAX_TOKENS = 256;

    /** One tool's place: its index in the tools file and its score. */
    public record Ranked(int index, double score) {}

    private final Engine engine;
    private final ContrastiveHead head;
    private final Tokenizer tokenizer;
    private final ToolSchemas tools;
    private final double[][] toolEmbeddings;

    public ToolRetrieval(Engine engine, ContrastiveHead head, Tokenizer tokenizer, ToolSchemas tools) {
        this.engine = engine;
        this.head = head;
        this.tokenizer = tokenizer;
        this.tools = tools;
        this.toolEmbeddings = new double[tools.size()][];
        for (int i = 0; i < tools.size(); i++) toolEmbeddings[i] = embed(tools.toolJson(i, PythonJson.Separators.COMPACT));
    }

    private double[] embed(String text) {
        int[] ids = tokenizer.encode(text);
        int limit = Math.min(MAX_TOKENS, engine.maxPositions());
        if (ids.length > limit) ids = Arrays.copyOf(ids, limit);
        if (ids.length == 0) ids = new int[] {tokenizer.vocab().padId()};
        return head.embed(engine, ids);
    }

    /** Every tool, best first (ties: lower index first). */
    public Ranked[] rank(String query) {
        double[] q = embed(query);
        return IntStream.range(0, toolEmbeddings.length)
                .mapToObj(i -> new Ranked(i, dot(q, toolEmbeddings[i])))
                .sorted(Comparator.comparingDouble(Ranked::score).reversed().thenComparingInt(Ranked::index))
                .toArray(Ranked[]::new);
    }

    /** The {@code k} best tools in their file order (all of them when there are at most k). */
    public ToolSchemas top(String query, int k) {
        if (tools.size() <= k) return tools;
        int[] kept = Arrays.stream(rank(query)).limit(k).mapToInt(Ranked::index).sorted().toArray();
        return tools.select(kept);
    }

    private static double dot(double[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) s += a[i] * b[i];
        return s;
    }
}
