package dev.needlewb.reference;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.v2.Geometry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SequencedMap;

/**
 * The float64 reference of upstream Needle 2: {@code SimpleAttentionNetwork} (full sequence, with
 * {@code quant} False or True), {@code hidden_states}, {@code hidden_cells}, the probe heads, the MTP
 * branch, and (through {@link #decoder}) the cached decode path of {@code decode._forward_cached}.
 * Thread-safe: every call allocates its own state.
 */
public final class ReferenceModel implements ReferenceForward {
    /** Token id 0 is PAD: hidden by the padding mask and by probe pooling. */
    public static final int PAD_ID = 0;

    private final Geometry g;
    private final ReferenceWeights w;
    private final Trunk trunk;

    private ReferenceModel(Geometry g, ReferenceWeights w) {
        this.g = g;
        this.w = w;
        this.trunk = new Trunk(g, w);
    }

    /**
     * A model over a Flax parameter map ('/'-joined paths as in a Flax checkpoint, e.g.
     * {@code stack/layers/block/self_attn/q_proj/kernel}, kernels [in, out], layers stacked on axis 0).
     * Probe heads and the MTP branch are read when present; unknown extra keys are ignored.
     *
     * @throws WorkbenchException a parameter is missing or its shape does not fit the geometry
     */
    public static ReferenceModel fromFlaxParams(Map<String, NpyArray> params, Geometry geometry) throws WorkbenchException {
        return new ReferenceModel(geometry, ReferenceWeights.read(FlaxParams.ofTree(params), geometry));
    }

    /**
     * The same model over weights in the {@code .cact} / PyTorch layout (a dequantized .cact, a
     * state dict): each tensor is turned into its Flax form as it is widened, with no stacked copy
     * of the model in between. Bit for bit the model {@link #fromFlaxParams} makes of
     * {@code WeightTargets.checkpoint(weights, ...)}.
     *
     * @throws WorkbenchException a parameter is missing, its shape does not fit the geometry, or the
     *     contrastive bias (which Flax does not have) is not zero
     */
    public static ReferenceModel fromWeights(ModelWeights weights, Geometry geometry) throws WorkbenchException {
        return new ReferenceModel(geometry, ReferenceWeights.read(new FlaxParams(new TensorLeaves(weights)), geometry));
    }

    @Override
    public Geometry geometry() {
        return g;
    }

    /** kv_window when it is below max_seq_len ({@link Geometry#slidingWindow}). */
    @Override
    public int headerWindow() {
        return g.slidingWindow();
    }

    public boolean hasContrastiveHead() {
        return w.contrastive() != null;
    }

    public boolean hasConfidenceHead() {
        return w.confidence() != null;
    }

    @Override
    public boolean hasMtp() {
        return w.mtp() != null;
    }

    /** The contrastive embedding width (inferred from {@code contrastive_head/proj/kernel}); 0 without the head. */
    public int contrastiveDim() {
        return w.contrastive() == null ? 0 : w.contrastive().outDim();
    }

    /** LM logits [T][vocab] of {@code SimpleAttentionNetwork.__call__} under {@code options}. */
    @Override
    public double[][] forward(int[] tokens, ForwardOptions options) {
        checkTokens(tokens);
        RunSettings s = RunSettings.of(options);
        double[] h = runStack(tokens, sequenceMask(tokens, options, options.maskPadding()), s, null);
        return logits(Norms.zcnRows(h, tokens.length, g.dModel(), w.finalNorm()), tokens.length, 0, s, "");
    }

    /**
     * Upstream {@code hidden_states}: the mean over lanes after each layer, [layers][T][d]
     * (upstream always runs it with quant=False and the causal mask; {@code options} may change that).
     */
    @Override
    public double[][][] hiddenStates(int[] tokens, ForwardOptions options) {
        checkTokens(tokens);
        double[][] means = new double[g.numLayers()][];
        runStack(tokens, sequenceMask(tokens, options, options.maskPadding()), RunSettings.of(options), means);
        double[][][] out = new double[g.numLayers()][][];
        for (int l = 0; l < means.length; l++) out[l] = rows(means[l], tokens.length, g.dModel());
        return out;
    }

    /**
     * Upstream {@code hidden_cells}: per position {@code [x0, lane mean after layer 1..L]}, [T][L+1][d],
     * under the causal AND padding mask (plus the window and sinks of {@code options}).
     */
    @Override
    public double[][][] hiddenCells(int[] tokens, ForwardOptions options) {
        checkTokens(tokens);
        int t = tokens.length;
        int d = g.dModel();
        double[][] means = new double[g.numLayers()][];
        runStack(tokens, sequenceMask(tokens, options, true), RunSettings.of(options), means);
        double[] x0 = trunk.embed(tokens, 0, t);
        double[][][] cells = new double[t][g.numLayers() + 1][d];
        for (int i = 0; i < t; i++) {
            System.arraycopy(x0, i * d, cells[i][0], 0, d);
            for (int l = 0; l < means.length; l++) System.arraycopy(means[l], i * d, cells[i][l + 1], 0, d);
        }
        return cells;
    }

    /** Upstream {@code encode_contrastive}: the L2-normalised projection of the probe-pooled cells. */
    public double[] contrastive(int[] tokens, ForwardOptions options) throws WorkbenchException {
        ProbeHead head = requireHead(w.contrastive(), "contrastive_head");
        double[] p = head.proj().apply(ProbePooling.pool(hiddenCells(tokens, options), tokens, head), 1);
        double sum = 0;
        for (double v : p) sum += v * v;
        double denom = Math.sqrt(sum + 1e-12);
        for (int i = 0; i < p.length; i++) p[i] /= denom;
        return p;
    }

    /** Upstream {@code forward_confidence}: one logit from the probe-pooled cells. */
    public double confidence(int[] tokens, ForwardOptions options) throws WorkbenchException {
        ProbeHead head = requireHead(w.confidence(), "confidence_head");
        double[] logit = head.proj().apply(ProbePooling.pool(hiddenCells(tokens, options), tokens, head), 1);
        return logit[0] + head.bias()[0];
    }

    /**
     * The MTP logits of upstream {@code __call__(return_mtp=True)} [T][vocab]: the final hidden state
     * and the normalised embedding of the next token (PAD after the last), combined, one more Block
     * (no engram, own KV), a final norm and the tied LM head.
     */
    public double[][] mtpLogits(int[] tokens, ForwardOptions options) throws WorkbenchException {
        MtpWeights mtp = w.mtp();
        if (mtp == null) throw new WorkbenchException(ErrorKind.MISSING_KEY, "the parameters have no MTP branch (mtp_combine, mtp_block, ...)");
        checkTokens(tokens);
        int t = tokens.length;
        int d = g.dModel();
        RunSettings s = RunSettings.of(options).withoutTaps();
        Mask mask = sequenceMask(tokens, options, options.maskPadding());
        double[] x = Norms.zcnRows(runStack(tokens, mask, s, null), t, d, w.finalNorm());
        int[] next = new int[t];
        System.arraycopy(tokens, 1, next, 0, t - 1);
        next[t - 1] = PAD_ID;
        double[] e2 = Norms.zcnRows(trunk.embed(next, 0, t), t, d, mtp.embNorm());
        double[] joined = new double[t * 2 * d];
        for (int i = 0; i < t; i++) {
            System.arraycopy(x, i * d, joined, i * 2 * d, d);
            System.arraycopy(e2, i * d, joined, i * 2 * d + d, d);
        }
        if (s.quant()) ActQuant.apply(joined, t, 2 * d, "mtp.in", 0, s.watch());
        double[] m = mtp.combine().apply(joined, t);
        KvCache cache = new KvCache(1, g.numKvHeads(), g.headDim(), t);
        m = Block.forward(m, t, 0, mtp.block(), g, cache, 0, trunk.rope().positions(0, t), mask, s, "mtp.");
        return logits(Norms.zcnRows(m, t, d, mtp.finalNorm()), t, 0, s, "mtp.");
    }

    /**
     * The contrastive vector (with {@code heads}, when the weights have the head), the MTP logits
     * (with {@code mtp}) and the confidence logit (with {@code heads}, when present), in that order.
     */
    @Override
    public SequencedMap<String, NpyArray> extraOutputs(int[] tokens, ForwardOptions options, boolean heads, boolean mtp)
            throws WorkbenchException {
        SequencedMap<String, NpyArray> out = new LinkedHashMap<>();
        if (heads && hasContrastiveHead()) out.put("contrastive", NpyExport.vector(contrastive(tokens, options)));
        if (mtp) out.put("mtp_logits", NpyExport.matrix(mtpLogits(tokens, options)));
        if (heads && hasConfidenceHead()) out.put("confidence", NpyExport.scalar(confidence(tokens, options)));
        return out;
    }

    /** A cached decoder of at most {@code capacity} positions (see {@link Decoder}). */
    @Override
    public Decoder decoder(int capacity, ForwardOptions options) {
        return new Decoder(this, capacity, options);
    }

    Trunk trunk() {
        return trunk;
    }

    double[] finalNorm() {
        return w.finalNorm();
    }

    /**
     * The tied-embedding logits of final-normed rows {@code x} [rows, d] at positions from
     * {@code firstPosition}: optional A8 rounding (quantizer site {@code site + "final"}), then {@code x @ E^T}.
     */
    double[][] logits(double[] x, int rows, int firstPosition, RunSettings s, String site) {
        if (s.taps().wants("final.norm")) s.taps().record("final.norm", x, rows, g.dModel());
        if (s.quant()) ActQuant.apply(x, rows, g.dModel(), site + "final", firstPosition, s.watch());
        double[] logits = w.embeddingMatrix().applyTransposed(x, rows);
        if (s.taps().wants("logits")) s.taps().record("logits", logits, rows, g.vocab());
        return rows(logits, rows, g.vocab());
    }

    void checkTokens(int[] tokens) {
        if (tokens.length == 0) throw new IllegalArgumentException("no tokens");
        for (int i = 0; i < tokens.length; i++) {
            if (tokens[i] < 0 || tokens[i] >= g.vocab()) {
                throw new IllegalArgumentException("token " + tokens[i] + " at position " + i + " is outside the vocabulary [0, " + g.vocab() + ")");
            }
        }
    }

    private double[] runStack(int[] tokens, Mask mask, RunSettings s, double[][] layerMeans) {
        KvCache cache = new KvCache(g.numLayers(), g.numKvHeads(), g.headDim(), tokens.length);
        return trunk.run(tokens, 0, tokens.length, cache, mask, mask, s, layerMeans);
    }

    private static Mask sequenceMask(int[] tokens, ForwardOptions o, boolean padding) {
        if (o.segmentIds() != null && o.segmentIds().length != tokens.length) {
            throw new IllegalArgumentException(o.segmentIds().length + " segment ids for " + tokens.length + " tokens");
        }
        return Mask.sequence(tokens, padding, o.segmentIds(), o.window(), o.sinks());
    }

    private static ProbeHead requireHead(ProbeHead head, String name) throws WorkbenchException {
        if (head == null) throw new WorkbenchException(ErrorKind.MISSING_KEY, "the parameters have no " + name);
        return head;
    }

    static double[][] rows(double[] flat, int rows, int cols) {
        double[][] out = new double[rows][];
        for (int r = 0; r < rows; r++) out[r] = java.util.Arrays.copyOfRange(flat, r * cols, (r + 1) * cols);
        return out;
    }
}
