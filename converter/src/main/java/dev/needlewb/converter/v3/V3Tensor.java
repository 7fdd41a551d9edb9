package dev.needlewb.converter.v3;

import static dev.needlewb.converter.names.Storage.CQ;
import static dev.needlewb.converter.names.Storage.FP16;
import static dev.needlewb.converter.names.Storage.FP32;
import static dev.needlewb.converter.names.Storage.RAW;
import static dev.needlewb.converter.names.Transform.DERIVED;
import static dev.needlewb.converter.names.Transform.LAYER_SCALAR;
import static dev.needlewb.converter.names.Transform.LAYER_SLICE;
import static dev.needlewb.converter.names.Transform.LAYER_SLICE_TRANSPOSE;
import static dev.needlewb.converter.names.Transform.NONE;
import static dev.needlewb.converter.names.Transform.PHI_RESHAPE;
import static dev.needlewb.converter.names.Transform.PROBES_RESHAPE;
import static dev.needlewb.converter.names.Transform.TABLE_RESHAPE;
import static dev.needlewb.converter.names.Transform.TRANSPOSE;
import static dev.needlewb.converter.names.Transform.ZERO_FILL;
import static dev.needlewb.converter.v3.V3Tensor.Scope.ONCE;
import static dev.needlewb.converter.v3.V3Tensor.Scope.PER_HEAD;
import static dev.needlewb.converter.v3.V3Tensor.Scope.PER_LAYER;
import static dev.needlewb.converter.v3.V3Tensor.Scope.PER_SITE;
import static dev.needlewb.converter.v3.V3Tensor.Scope.WITH_HEADS;
import static dev.needlewb.converter.v3.V3Tensor.Scope.WITH_TOKENIZER;

import dev.needlewb.converter.names.Storage;
import dev.needlewb.converter.names.Transform;
import dev.needlewb.core.v3.V3Geometry;
import java.util.ArrayList;
import java.util.List;

/**
 * The one table of a Needle 3 model's tensors: a row per kind of tensor in {@code .cact} order
 * (upstream {@code export._tensors}, export.py:236-311; {@code _head_tensors}, 317-331; the
 * tokenizer of {@code _pack_cact}, 399-404), with its {@code .cact} name, Flax path, PyTorch key,
 * storage, transform and shape for a geometry; templates as in Needle 2's table ({@code %02d} /
 * {@code %d} layer or site, {@code %s} the probe head's key). Rows marked {@code conv} exist only
 * when qkv_conv_taps > 0 (export.py:252-257), the calibration row only for the router head.
 *
 * <p>Shapes are {@code [out, in]} for matrices, saturating at Long.MAX_VALUE (a header is
 * untrusted). Where Needle 3 differs from Needle 2: the MLP's Kronecker factors
 * {@code w1a..w3b} and its conditioner {@code cond_v [d, 8]} / {@code cond_u [8, n]} are stored
 * in their Flax orientation, not transposed; the two permutations are FP32 values no checkpoint
 * holds; the probe heads store CQ probes, query and proj. The shapes given for gate_proj and the
 * factors are the default variants (elementwise gate, shared factors); {@link V3Layout} also
 * accepts the headwise gate {@code [H, d]} and block-untied factors, which no header field records.
 */
public enum V3Tensor {
    EMBEDDING(ONCE, "embedding", "embedding/embedding", "embedding.weight", CQ, NONE, (g, h) -> dims(g.vocab(), g.dModel())),

    NORM_IN(PER_LAYER, "layer%02d.norm_in", "stack/layers/block/ZCRMSNorm_0/scale", "layers.%d.norm_in.weight", FP16, LAYER_SLICE,
            (g, h) -> dims(g.dModel())),
    Q_PROJ(PER_LAYER, "layer%02d.q_proj", "stack/layers/block/self_attn/q_proj/kernel", "layers.%d.attn.q_proj.weight", CQ,
            LAYER_SLICE_TRANSPOSE, (g, h) -> dims(g.qDim(), g.dModel())),
    K_PROJ(PER_LAYER, "layer%02d.k_proj", "stack/layers/block/self_attn/k_proj/kernel", "layers.%d.attn.k_proj.weight", CQ,
            LAYER_SLICE_TRANSPOSE, (g, h) -> dims(g.kDim(), g.dModel())),
    V_PROJ(PER_LAYER, "layer%02d.v_proj", "stack/layers/block/self_attn/v_proj/kernel", "layers.%d.attn.v_proj.weight", CQ,
            LAYER_SLICE_TRANSPOSE, (g, h) -> dims(g.vDim(), g.dModel())),
    Q_TAPS(PER_LAYER, true, "layer%02d.q_taps", "stack/layers/block/self_attn/q_taps", "layers.%d.attn.q_taps", FP16, LAYER_SLICE,
            (g, h) -> dims(g.qkvConvTaps(), g.qDim())),
    K_TAPS(PER_LAYER, true, "layer%02d.k_taps", "stack/layers/block/self_attn/k_taps", "layers.%d.attn.k_taps", FP16, LAYER_SLICE,
            (g, h) -> dims(g.qkvConvTaps(), g.kDim())),
    V_TAPS(PER_LAYER, true, "layer%02d.v_taps", "stack/layers/block/self_attn/v_taps", "layers.%d.attn.v_taps", FP16, LAYER_SLICE,
            (g, h) -> dims(g.qkvConvTaps(), g.vDim())),
    Q_NORM(PER_LAYER, "layer%02d.q_norm", "stack/layers/block/self_attn/q_norm/scale", "layers.%d.attn.q_norm.weight", FP16,
            LAYER_SLICE, (g, h) -> dims(g.qkHeadDim())),
    K_NORM(PER_LAYER, "layer%02d.k_norm", "stack/layers/block/self_attn/k_norm/scale", "layers.%d.attn.k_norm.weight", FP16,
            LAYER_SLICE, (g, h) -> dims(g.qkHeadDim())),
    GATE_PROJ(PER_LAYER, "layer%02d.gate_proj", "stack/layers/block/self_attn/gate_proj/kernel", "layers.%d.attn.gate_proj.weight", CQ,
            LAYER_SLICE_TRANSPOSE, (g, h) -> dims(g.attnOutDim(), g.dModel())),
    OUT_PROJ(PER_LAYER, "layer%02d.out_proj", "stack/layers/block/self_attn/out_proj/kernel", "layers.%d.attn.out_proj.weight", CQ,
            LAYER_SLICE_TRANSPOSE, (g, h) -> dims(g.dModel(), g.attnOutDim())),
    POST_NORM(PER_LAYER, "layer%02d.post_norm", "stack/layers/block/post_attn_norm/scale", "layers.%d.post_norm.weight", FP16,
            LAYER_SLICE, (g, h) -> dims(g.dModel())),
    ATTN_GATE(PER_LAYER, "layer%02d.attn_gate", "stack/layers/block/attn_gate", "layers.%d.attn_gate", FP16, LAYER_SCALAR,
            (g, h) -> dims(1)),
    PRE_HADA(PER_LAYER, "layer%02d.pre_hada", "stack/layers/block/pre_hada_norm/scale", "layers.%d.pre_hada.weight", FP16,
            LAYER_SLICE, (g, h) -> dims(g.dModel())),
    D1(PER_LAYER, "layer%02d.d1", "stack/layers/block/hadamard_mlp/d1", "layers.%d.mlp.d1", FP16, LAYER_SLICE, (g, h) -> dims(g.hadaN())),
    D2(PER_LAYER, "layer%02d.d2", "stack/layers/block/hadamard_mlp/d2", "layers.%d.mlp.d2", FP16, LAYER_SLICE, (g, h) -> dims(g.hadaN())),
    B2(PER_LAYER, "layer%02d.b2", "stack/layers/block/hadamard_mlp/b2", "layers.%d.mlp.b2", FP16, LAYER_SLICE, (g, h) -> dims(g.hadaN())),
    D3(PER_LAYER, "layer%02d.d3", "stack/layers/block/hadamard_mlp/d3", "layers.%d.mlp.d3", FP16, LAYER_SLICE, (g, h) -> dims(g.hadaN())),
    D4(PER_LAYER, "layer%02d.d4", "stack/layers/block/hadamard_mlp/d4", "layers.%d.mlp.d4", FP16, LAYER_SLICE, (g, h) -> dims(g.hadaN())),
    W1A(PER_LAYER, "layer%02d.w1a", "stack/layers/block/hadamard_mlp/w1a", "layers.%d.mlp.w1a", FP16, LAYER_SLICE, (g, h) -> factorA(g)),
    W1B(PER_LAYER, "layer%02d.w1b", "stack/layers/block/hadamard_mlp/w1b", "layers.%d.mlp.w1b", FP16, LAYER_SLICE, (g, h) -> factorB(g)),
    W2A(PER_LAYER, "layer%02d.w2a", "stack/layers/block/hadamard_mlp/w2a", "layers.%d.mlp.w2a", FP16, LAYER_SLICE, (g, h) -> factorA(g)),
    W2B(PER_LAYER, "layer%02d.w2b", "stack/layers/block/hadamard_mlp/w2b", "layers.%d.mlp.w2b", FP16, LAYER_SLICE, (g, h) -> factorB(g)),
    W3A(PER_LAYER, "layer%02d.w3a", "stack/layers/block/hadamard_mlp/w3a", "layers.%d.mlp.w3a", FP16, LAYER_SLICE, (g, h) -> factorA(g)),
    W3B(PER_LAYER, "layer%02d.w3b", "stack/layers/block/hadamard_mlp/w3b", "layers.%d.mlp.w3b", FP16, LAYER_SLICE, (g, h) -> factorB(g)),
    /** Used as {@code x @ cond_v}: [d, 8], not transposed. */
    COND_V(PER_LAYER, "layer%02d.cond_v", "stack/layers/block/hadamard_mlp/cond_v", "layers.%d.mlp.cond_v", FP16, LAYER_SLICE,
            (g, h) -> dims(g.dModel(), Rank.COND)),
    COND_U(PER_LAYER, "layer%02d.cond_u", "stack/layers/block/hadamard_mlp/cond_u", "layers.%d.mlp.cond_u", FP16, LAYER_SLICE,
            (g, h) -> dims(Rank.COND, g.hadaN())),

    MHC_A_PRE(ONCE, "mhc_a_pre", "stack/mhc_a_pre", "mhc.a_pre", FP16, NONE, (g, h) -> dims(g.numLayers())),
    MHC_A_POST(ONCE, "mhc_a_post", "stack/mhc_a_post", "mhc.a_post", FP16, NONE, (g, h) -> dims(g.numLayers())),
    MHC_A_RES(ONCE, "mhc_a_res", "stack/mhc_a_res", "mhc.a_res", FP16, NONE, (g, h) -> dims(g.numLayers())),
    MHC_B_PRE(ONCE, "mhc_b_pre", "stack/mhc_b_pre", "mhc.b_pre", FP16, NONE, (g, h) -> dims(g.numLayers(), g.mhcLanes())),
    MHC_B_POST(ONCE, "mhc_b_post", "stack/mhc_b_post", "mhc.b_post", FP16, NONE, (g, h) -> dims(g.numLayers(), g.mhcLanes())),
    MHC_B_RES(ONCE, "mhc_b_res", "stack/mhc_b_res", "mhc.b_res", FP16, NONE, (g, h) -> dims(g.numLayers(), g.mhcLanes(), g.mhcLanes())),
    MHC_PHI_PRE(ONCE, "mhc_phi_pre", "stack/mhc_phi_pre", "mhc.phi_pre.weight", CQ, PHI_RESHAPE,
            (g, h) -> dims(mul(g.numLayers(), g.mhcLanes()), mul(g.mhcLanes(), g.dModel()))),
    MHC_PHI_POST(ONCE, "mhc_phi_post", "stack/mhc_phi_post", "mhc.phi_post.weight", CQ, PHI_RESHAPE,
            (g, h) -> dims(mul(g.numLayers(), g.mhcLanes()), mul(g.mhcLanes(), g.dModel()))),
    MHC_PHI_RES(ONCE, "mhc_phi_res", "stack/mhc_phi_res", "mhc.phi_res.weight", CQ, PHI_RESHAPE,
            (g, h) -> dims(mul(g.numLayers(), mul(g.mhcLanes(), g.mhcLanes())), mul(g.mhcLanes(), g.dModel()))),
    /** RandomState(11).permutation(hada_n) as float32 (export.py:290-297); no checkpoint leaf. */
    HADA_P1(ONCE, "hada_p1", null, "hada.p1", FP32, DERIVED, (g, h) -> dims(g.hadaN())),
    /** RandomState(13).permutation(hada_n) as float32. */
    HADA_P2(ONCE, "hada_p2", null, "hada.p2", FP32, DERIVED, (g, h) -> dims(g.hadaN())),

    ENGRAM_TABLES(PER_SITE, "engram%d.tables", "engrams_%d/embedding", "engrams.%d.tables.weight", CQ, TABLE_RESHAPE,
            (g, h) -> dims(mul(g.numEngramTables(), g.engramSlots()), g.engramSubDim())),
    ENGRAM_KEY_PROJ(PER_SITE, "engram%d.key_proj", "engrams_%d/key_proj/kernel", "engrams.%d.key_proj.weight", CQ, TRANSPOSE,
            (g, h) -> dims(g.dModel(), mul(g.numEngramTables(), g.engramSubDim()))),
    ENGRAM_VALUE_PROJ(PER_SITE, "engram%d.value_proj", "engrams_%d/value_proj/kernel", "engrams.%d.value_proj.weight", CQ, TRANSPOSE,
            (g, h) -> dims(g.dModel(), mul(g.numEngramTables(), g.engramSubDim()))),
    ENGRAM_TAPS(PER_SITE, "engram%d.taps", "engrams_%d/taps", "engrams.%d.taps", FP16, NONE, (g, h) -> dims(g.engramConvTaps(), g.dModel())),

    FINAL_NORM(ONCE, "final_norm", "stack/final_norm/scale", "final_norm.weight", FP16, NONE, (g, h) -> dims(g.dModel())),

    /** One code per head present ({@link V3ProbeHead#code}); no source tensor. */
    HEADS_MANIFEST(WITH_HEADS, "heads.manifest", null, null, FP16, DERIVED, (g, h) -> null),
    /** Flax (L+1, k, d) stored as ((L+1)*k, d): row l*k + j, l = 0 the embedding cell. */
    HEAD_PROBES(PER_HEAD, "%s.probes", "%s/probes", "%s.probes", CQ, PROBES_RESHAPE,
            (g, h) -> dims(mul(g.numLayers() + 1L, h.probes()), g.dModel())),
    HEAD_GAIN(PER_HEAD, "%s.gain", "%s/gain", "%s.gain", FP16, NONE, (g, h) -> dims(g.numLayers() + 1L, h.probes())),
    HEAD_QUERY(PER_HEAD, "%s.query", "%s/query", "%s.query", CQ, NONE, (g, h) -> dims(h.queries(), g.dModel())),
    HEAD_ROW_BIAS(PER_HEAD, "%s.row_bias", "%s/row_bias", "%s.row_bias", FP16, NONE,
            (g, h) -> dims(h.queries(), g.numLayers() + 1L, h.probes())),
    HEAD_PROJ(PER_HEAD, "%s.proj", "%s/proj/kernel", "%s.proj.weight", CQ, TRANSPOSE, (g, h) -> dims(h.out(), mul(h.queries(), g.dModel()))),
    /** Zeros where the head's Flax Dense has no bias ({@link V3ProbeHead#flaxBias}). */
    HEAD_BIAS(PER_HEAD, "%s.bias", "%s/proj/bias", "%s.proj.bias", FP16, NONE, (g, h) -> dims(h.out())),
    /** The router's only: its calibration, or RouterHead.calibration_init when the checkpoint has none. */
    HEAD_CALIBRATION(PER_HEAD, "%s.calibration", "%s/calibration", "%s.calibration", FP16, NONE, (g, h) -> dims(3)),

    /** The RAW SentencePiece dump, last; never a weight. */
    TOKENIZER(WITH_TOKENIZER, "tokenizer", null, null, RAW, Transform.TOKENIZER, (g, h) -> dims());

    /** Upstream {@code HADA_COND_RANK}: the MLP conditioner's width (a holder: enum constants cannot read their own statics). */
    public static final class Rank {
        public static final int COND = 8;

        private Rank() {}
    }

    /** What a row repeats for in a model. */
    public enum Scope { ONCE, PER_LAYER, PER_SITE, WITH_HEADS, PER_HEAD, WITH_TOKENIZER }

    /** A row's shape for geometry {@code g}; {@code head} is the row's head (null unless per head). */
    @FunctionalInterface
    private interface Shape {
        long[] of(V3Geometry g, V3HeadShape head);
    }

    private final Scope scope;
    private final boolean conv;
    private final String cact;
    private final String flax;
    private final String torch;
    private final Storage storage;
    private final Transform transform;
    private final Shape shape;

    V3Tensor(Scope scope, boolean conv, String cact, String flax, String torch, Storage storage, Transform transform, Shape shape) {
        this.scope = scope;
        this.conv = conv;
        this.cact = cact;
        this.flax = flax;
        this.torch = torch;
        this.storage = storage;
        this.transform = transform;
        this.shape = shape;
    }

    V3Tensor(Scope scope, String cact, String flax, String torch, Storage storage, Transform transform, Shape shape) {
        this(scope, false, cact, flax, torch, storage, transform, shape);
    }

    /** One tensor of a model: a row for layer or site {@code index} (0 otherwise) or for {@code head}. */
    public record Name(V3Tensor tensor, int index, V3HeadShape head) {
        /** The canonical {@code .cact} name, e.g. {@code layer07.q_taps}. */
        public String name() {
            return fill(tensor.cact);
        }

        /** The Flax path, or null where the checkpoint holds no leaf (manifest, permutations, tokenizer, the embedding head's bias). */
        public String flaxPath() {
            return transform() == ZERO_FILL ? null : fill(tensor.flax);
        }

        /** The layer of a per-layer row, else -1. */
        public int layer() {
            return tensor.scope == PER_LAYER ? index : -1;
        }

        /** The PyTorch state-dict key, or null for the manifest and the tokenizer. */
        public String torchKey() {
            return fill(tensor.torch);
        }

        public Transform transform() {
            return tensor == HEAD_BIAS && !head.head().flaxBias() ? ZERO_FILL : tensor.transform;
        }

        /** The shape in geometry {@code g} (the manifest's from {@code heads}). */
        public long[] shape(V3Geometry g, int heads) {
            return tensor == HEADS_MANIFEST ? dims(heads) : tensor.shape.of(g, head);
        }

        private String fill(String template) {
            if (template == null) return null;
            return head != null ? template.formatted(head.head().key()) : template.formatted(index);
        }
    }

    /** The tensors of a model of geometry {@code g} with these heads (canonical order), with or without the tokenizer: the {@code .cact} order. */
    public static List<Name> expand(V3Geometry g, List<V3HeadShape> heads, boolean tokenizer) {
        List<Name> out = new ArrayList<>();
        V3Tensor[] rows = values();
        int end;
        for (int start = 0; start < rows.length; start = end) {
            Scope scope = rows[start].scope;
            end = start;
            while (end < rows.length && rows[end].scope == scope) end++;
            switch (scope) {
                case ONCE -> addRun(out, rows, start, end, g, 0, null);
                case PER_LAYER -> {
                    for (int l = 0; l < g.numLayers(); l++) addRun(out, rows, start, end, g, l, null);
                }
                case PER_SITE -> {
                    for (int s = 0; s < g.numEngramSites(); s++) addRun(out, rows, start, end, g, s, null);
                }
                case WITH_HEADS -> {
                    if (!heads.isEmpty()) addRun(out, rows, start, end, g, 0, null);
                }
                case PER_HEAD -> {
                    for (V3HeadShape h : heads) addRun(out, rows, start, end, g, 0, h);
                }
                case WITH_TOKENIZER -> {
                    if (tokenizer) addRun(out, rows, start, end, g, 0, null);
                }
            }
        }
        return out;
    }

    private static void addRun(List<Name> out, V3Tensor[] rows, int start, int end, V3Geometry g, int index, V3HeadShape head) {
        for (int r = start; r < end; r++) {
            V3Tensor t = rows[r];
            if (t.conv && g.qkvConvTaps() == 0) continue;
            if (t == HEAD_CALIBRATION && !head.head().hasCalibration()) continue;
            out.add(new Name(t, index, head));
        }
    }

    /** Tensors from embedding through final_norm, counted without listing them (a header's sizes are untrusted): {@code 13 + L*(24 + 3*[taps>0]) + 4*S}. */
    public static long coreCount(V3Geometry g) {
        long n = 0;
        for (V3Tensor t : values()) {
            if (t.conv && g.qkvConvTaps() == 0) continue;
            n += switch (t.scope) {
                case ONCE -> 1;
                case PER_LAYER -> g.numLayers();
                case PER_SITE -> g.numEngramSites();
                case WITH_HEADS, PER_HEAD, WITH_TOKENIZER -> 0;
            };
        }
        return n;
    }

    /** The tensor of this row for layer or engram site {@code index}. */
    public Name at(int index) {
        if (scope != PER_LAYER && scope != PER_SITE) throw new IllegalArgumentException(this + " is not per layer or engram site");
        return new Name(this, index, null);
    }

    /** The tensor of a row written at most once. */
    public Name single() {
        if (scope == PER_LAYER || scope == PER_SITE || scope == PER_HEAD) throw new IllegalArgumentException(this + " repeats " + scope);
        return new Name(this, 0, null);
    }

    /** The name of this per-head row for {@code head}. */
    public String nameFor(V3ProbeHead head) {
        if (scope != PER_HEAD) throw new IllegalArgumentException(this + " is not per probe head");
        return cact.formatted(head.key());
    }

    public Scope scope() {
        return scope;
    }

    public Storage storage() {
        return storage;
    }

    /** Whether the row exists only when qkv_conv_taps > 0. */
    public boolean conv() {
        return conv;
    }

    /** The first Kronecker factor's size {@code ba = 1 << ((n - 1).bit_length() // 2)} ({@code _hada_blocks}, architecture.py:688-690). */
    public static long blockA(V3Geometry g) {
        int n = g.hadaN();
        return 1L << ((Integer.SIZE - Integer.numberOfLeadingZeros(n - 1)) / 2);
    }

    /** The second factor's size {@code bb = n // ba}. */
    public static long blockB(V3Geometry g) {
        return g.hadaN() / blockA(g);
    }

    private static long[] factorA(V3Geometry g) {
        return dims(blockA(g), blockA(g));
    }

    private static long[] factorB(V3Geometry g) {
        return dims(blockB(g), blockB(g));
    }

    private static long[] dims(long... d) {
        return d;
    }

    /** Product saturating at Long.MAX_VALUE. */
    static long mul(long a, long b) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }
}
