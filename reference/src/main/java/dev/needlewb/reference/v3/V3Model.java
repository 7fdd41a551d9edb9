package dev.needlewb.reference.v3;

import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.reference.ActQuant;
import dev.needlewb.reference.FlaxParams;
import dev.needlewb.reference.KvQuantizer;
import dev.needlewb.reference.Matrix;
import dev.needlewb.reference.Norms;
import dev.needlewb.reference.RunSettings;
import java.util.Arrays;
import java.util.Map;

/**
 * The float64 reference of upstream Needle 3 ({@code usserwout/needle3}, model code 3.0.1):
 * {@code SimpleAttentionNetwork.__call__} with quant False or True, {@code hidden_states},
 * {@code hidden_cells}, the embedding / confidence / router probe heads, greedy
 * {@code run.generate}, and a cached decode path upstream does not have ({@link #decoder}).
 * Thread-safe: every call allocates its own state.
 */
public final class V3Model {
    /** Upstream's end-of-sequence token: greedy generation stops on it and does not emit it. */
    public static final int EOS_ID = 1;

    private final V3Config config;
    private final V3Weights w;
    private final V3Trunk trunk;

    private V3Model(V3Config config, V3Weights w) {
        this.config = config;
        this.w = w;
        this.trunk = new V3Trunk(config, w);
    }

    /**
     * A model over a Needle 3 Flax parameter tree ('/'-joined paths as in the checkpoint, e.g.
     * {@code stack/layers/block/self_attn/q_proj/kernel}, kernels [in, out], per-layer parameters
     * stacked on axis 0), with the MLP permutations upstream draws for the config. Probe heads are
     * read when present; keys the model does not read are ignored.
     *
     * @throws WorkbenchException a parameter is missing or misshapen (named by path), or the config
     *     uses shared engram banks or CLA pairs, which the reference does not model
     */
    public static V3Model load(Map<String, NpyArray> params, V3Config config) throws WorkbenchException {
        return load(params, config, MlpPermutations.of(config));
    }

    /** The same with given MLP permutations (a {@code .cact}'s hada_p1 / hada_p2). */
    public static V3Model load(Map<String, NpyArray> params, V3Config config, MlpPermutations permutations)
            throws WorkbenchException {
        if (permutations.after(0).length != config.hadaN() || permutations.after(1).length != config.hadaN()) {
            throw new WorkbenchException(ErrorKind.SHAPE_MISMATCH, "MLP permutations of length " + permutations.after(0).length + " and "
                    + permutations.after(1).length + " for hada_n " + config.hadaN());
        }
        return new V3Model(config, V3Weights.read(FlaxParams.ofTree(params), config, permutations));
    }

    public V3Config config() {
        return config;
    }

    public boolean hasHead(V3ProbeHead kind) {
        return w.heads().containsKey(kind);
    }

    /** Logits [T][logit rows] of {@code __call__} (rows: out_vocab, or vocab when it is 0). */
    public double[][] forward(int[] tokens, V3Options o) {
        checkTokens(tokens);
        RunSettings s = settings(o);
        double[] h = trunk.run(tokens, 0, tokens.length, new V3Cache(config, tokens.length), mask(tokens, o, o.maskPadding()), s, null);
        return logits(Norms.zcnRows(h, tokens.length, config.dModel(), w.finalNorm()), tokens.length, 0, s);
    }

    /**
     * Upstream {@code hidden_states}: the mean over lanes after each layer, [layers][T][d]
     * (upstream always runs it with quant=False and the causal mask; {@code o} may change that).
     */
    public double[][][] hiddenStates(int[] tokens, V3Options o) {
        checkTokens(tokens);
        double[][] means = new double[config.numLayers()][];
        trunk.run(tokens, 0, tokens.length, new V3Cache(config, tokens.length), mask(tokens, o, o.maskPadding()), settings(o), means);
        double[][][] out = new double[config.numLayers()][][];
        for (int l = 0; l < means.length; l++) out[l] = rows(means[l], tokens.length, config.dModel());
        return out;
    }

    /**
     * Upstream {@code hidden_cells}: per position {@code [x0, lane mean after layer 1..L]}, [T][L+1][d],
     * under the causal AND padding mask (AND the window and sinks of {@code o}).
     */
    public double[][][] hiddenCells(int[] tokens, V3Options o) {
        checkTokens(tokens);
        int t = tokens.length;
        int d = config.dModel();
        double[][] means = new double[config.numLayers()][];
        trunk.run(tokens, 0, t, new V3Cache(config, t), mask(tokens, o, true), settings(o), means);
        double[] x0 = trunk.embed(tokens, 0, t);
        double[][][] cells = new double[t][config.numLayers() + 1][d];
        for (int i = 0; i < t; i++) {
            System.arraycopy(x0, i * d, cells[i][0], 0, d);
            for (int l = 0; l < means.length; l++) System.arraycopy(means[l], i * d, cells[i][l + 1], 0, d);
        }
        return cells;
    }

    /** Upstream {@code forward_confidence}: the raw confidence logit (no sigmoid). */
    public double confidence(int[] tokens, V3Options o) throws WorkbenchException {
        return head(V3ProbeHead.CONFIDENCE, tokens, o)[0];
    }

    /** Upstream {@code forward_router}: the 3 router logits. */
    public double[] router(int[] tokens, V3Options o) throws WorkbenchException {
        return head(V3ProbeHead.ROUTER, tokens, o);
    }

    /** Upstream {@code forward_embedding}: the L2-normalised embedding [embedding_dim]. */
    public double[] embedding(int[] tokens, V3Options o) throws WorkbenchException {
        double[] p = head(V3ProbeHead.EMBEDDING, tokens, o);
        double sum = 0;
        for (double v : p) sum += v * v;
        double denom = Math.sqrt(sum + 1e-12);
        for (int i = 0; i < p.length; i++) p[i] /= denom;
        return p;
    }

    /**
     * The head's projection of the pooled hidden cells, bias added when it has one. In quant mode
     * the probes, queries and projection are CQ-4 fake-quantized (the projection along its input
     * axis), as upstream's {@code head_weight} does; their near ties go to the watch under
     * {@code <head>.probes|query|proj}.
     */
    private double[] head(V3ProbeHead kind, int[] tokens, V3Options o) throws WorkbenchException {
        ProbeHeadWeights h = w.heads().get(kind);
        if (h == null) throw new WorkbenchException(ErrorKind.MISSING_KEY, "the parameters have no " + kind.key());
        boolean[] keep = new boolean[tokens.length];
        boolean any = false;
        for (int i = 0; i < keep.length; i++) any |= keep[i] = tokens[i] != config.padTokenId();
        if (!any) throw new IllegalArgumentException("every token is PAD: the probe heads pool over no position");
        double[][][] cells = hiddenCells(tokens, o);
        int d = config.dModel();
        double[] probes = h.probe().clone();
        double[] query = h.query().clone();
        double[] proj = h.proj().clone();
        if (o.quant()) {
            KvQuantizer cq = V3Quant.headWeights();
            for (int r = 0; r < probes.length / d; r++) cq.quantize(probes, r * d, d, kind.key() + ".probes", r, o.watch());
            for (int r = 0; r < h.queries(); r++) cq.quantize(query, r * d, d, kind.key() + ".query", r, o.watch());
            quantizeColumns(proj, h.queries() * d, h.outputs(), cq, kind.key() + ".proj", o);
        }
        double[] pooled = ProbePooling.pool(cells, keep, h, probes, query);
        double[] out = new Matrix(proj, h.queries() * d, h.outputs()).apply(pooled, 1);
        if (h.bias() != null) for (int i = 0; i < out.length; i++) out[i] += h.bias()[i];
        return out;
    }

    /** CQ fake quant of each column of {@code m} [rows, cols] (a kernel along its input axis). */
    private static void quantizeColumns(double[] m, int rows, int cols, KvQuantizer cq, String site, V3Options o) {
        double[] column = new double[rows];
        for (int c = 0; c < cols; c++) {
            for (int r = 0; r < rows; r++) column[r] = m[r * cols + c];
            cq.quantize(column, 0, rows, site, c, o.watch());
            for (int r = 0; r < rows; r++) m[r * cols + c] = column[r];
        }
    }

    /**
     * Greedy generation as upstream {@code run.generate} with temperature 0: from {@code prompt}
     * (BOS included), at most {@code min(max_seq_len, prompt + maxNewTokens) - prompt} tokens, the
     * first maximal logit each step, stopping before {@link #EOS_ID}. Runs on the cached decoder
     * (upstream reruns the whole buffer each step; the logits are the same).
     */
    public int[] generate(int[] prompt, int maxNewTokens, V3Options o) {
        if (maxNewTokens < 0) throw new IllegalArgumentException("max new tokens " + maxNewTokens + " is negative");
        int buffer = (int) Math.min(config.maxSeqLen(), (long) prompt.length + maxNewTokens);
        if (prompt.length >= buffer) {
            throw new IllegalArgumentException("prompt (" + prompt.length + " tokens) does not fit in max_seq_len=" + config.maxSeqLen()
                    + " with " + maxNewTokens + " new tokens");
        }
        V3Decoder decoder = decoder(buffer, o);
        double[][] first = decoder.prefill(prompt);
        double[] last = first[first.length - 1];
        int[] out = new int[buffer - prompt.length];
        int n = 0;
        for (int pos = prompt.length - 1; pos < buffer - 1; pos++) {
            int next = argmax(last);
            if (next == EOS_ID) break;
            out[n++] = next;
            if (pos + 1 < buffer - 1) last = decoder.step(next);
        }
        return Arrays.copyOf(out, n);
    }

    /** A cached decoder of at most {@code capacity} positions (see {@link V3Decoder}). */
    public V3Decoder decoder(int capacity, V3Options o) {
        return new V3Decoder(this, capacity, o);
    }

    V3Trunk trunk() {
        return trunk;
    }

    double[] finalNorm() {
        return w.finalNorm();
    }

    /**
     * The tied logits of final-normed rows {@code x} [rows, d] at positions from {@code firstPosition}:
     * taps {@code final.norm}, A8 in quant mode (site {@code final}), then {@code x @ E[0:rows]^T}, tap
     * {@code logits}.
     */
    double[][] logits(double[] x, int rows, int firstPosition, RunSettings s) {
        int d = config.dModel();
        if (s.taps().wants("final.norm")) s.taps().record("final.norm", x, rows, d);
        if (s.quant()) ActQuant.apply(x, rows, d, "final", firstPosition, s.watch());
        double[] logits = w.logitMatrix().applyTransposed(x, rows);
        if (s.taps().wants("logits")) s.taps().record("logits", logits, rows, config.logitRows());
        return rows(logits, rows, config.logitRows());
    }

    static RunSettings settings(V3Options o) {
        return new RunSettings(o.quant(), V3Quant.kv(o), o.taps(), o.watch());
    }

    void checkTokens(int[] tokens) {
        if (tokens.length == 0) throw new IllegalArgumentException("no tokens");
        for (int i = 0; i < tokens.length; i++) {
            if (tokens[i] < 0 || tokens[i] >= config.vocabSize()) {
                throw new IllegalArgumentException("token " + tokens[i] + " at position " + i + " is outside the vocabulary [0, "
                        + config.vocabSize() + ")");
            }
        }
    }

    private V3Mask mask(int[] tokens, V3Options o, boolean padding) {
        return V3Mask.sequence(tokens, config.padTokenId(), padding, o.window(), o.sinks());
    }

    /** The index of the first largest value (jnp.argmax). */
    static int argmax(double[] v) {
        int best = 0;
        for (int i = 1; i < v.length; i++) if (v[i] > v[best]) best = i;
        return best;
    }

    private static double[][] rows(double[] flat, int rows, int cols) {
        double[][] out = new double[rows][];
        for (int r = 0; r < rows; r++) out[r] = Arrays.copyOfRange(flat, r * cols, (r + 1) * cols);
        return out;
    }
}
