package dev.needlewb.converter.v2;

import static dev.needlewb.converter.v2.ModelTensor.Scope.ONCE;
import static dev.needlewb.converter.v2.ModelTensor.Scope.PER_HEAD;
import static dev.needlewb.converter.v2.ModelTensor.Scope.PER_LAYER;
import static dev.needlewb.converter.v2.ModelTensor.Scope.PER_SITE;
import static dev.needlewb.converter.v2.ModelTensor.Scope.WITH_HEADS;
import static dev.needlewb.converter.v2.ModelTensor.Scope.WITH_TOKENIZER;
import static dev.needlewb.converter.names.Storage.CQ;
import static dev.needlewb.converter.names.Storage.FP16;
import static dev.needlewb.converter.names.Storage.RAW;
import static dev.needlewb.converter.names.Transform.DERIVED;
import static dev.needlewb.converter.names.Transform.LAYER_SCALAR;
import static dev.needlewb.converter.names.Transform.LAYER_SLICE;
import static dev.needlewb.converter.names.Transform.LAYER_SLICE_TRANSPOSE;
import static dev.needlewb.converter.names.Transform.NONE;
import static dev.needlewb.converter.names.Transform.PHI_RESHAPE;
import static dev.needlewb.converter.names.Transform.TABLE_RESHAPE;
import static dev.needlewb.converter.names.Transform.TRANSPOSE;
import static dev.needlewb.converter.names.Transform.ZERO_FILL;

import dev.needlewb.converter.names.Storage;
import dev.needlewb.converter.names.Transform;
import dev.needlewb.core.v2.Geometry;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The one table of a Needle 2 model's tensors (after gguf-py's {@code TensorNameMap}): a row per
 * kind of tensor, in {@code .cact} order (upstream {@code export._tensors}, {@code _head_tensors},
 * {@code _pack_cact}), with its {@code .cact} name, Flax path and PyTorch key, its storage in a
 * {@code .cact}, the transform between the Flax leaf and the {@code .cact} / PyTorch layout and
 * its shape for a geometry. Names are templates over what a row repeats for: {@code %02d} /
 * {@code %d} the layer or engram site, {@code %s} the probe head's key. A per-layer Flax path names
 * the whole stack (scanned layers: a leading layer axis), the layer being the slice.
 *
 * <p>{@link #expand} lists one model's tensors: each run of consecutive rows with one
 * {@link Scope} is written once, per layer, per engram site or per probe head, or only when the
 * model has heads or a tokenizer. The {@code .cact} layout ({@link V2Layout}), the name map
 * ({@link V2Names}) and the engine's look-ups are all read from that list. Shapes are {@code [out, in]} for matrices and saturate
 * at Long.MAX_VALUE (a header's sizes are untrusted; such a dimension matches no u32 field).
 */
public enum ModelTensor {
    EMBEDDING(ONCE, "embedding", "embedding/embedding", "embedding.weight", CQ, NONE,
            g -> dims(g.vocab(), g.dModel())),

    NORM_IN(PER_LAYER, "layer%02d.norm_in", "stack/layers/block/ZCRMSNorm_0/scale", "layers.%d.norm_in.weight", FP16, LAYER_SLICE,
            g -> dims(g.dModel())),
    Q_PROJ(PER_LAYER, "layer%02d.q_proj", "stack/layers/block/self_attn/q_proj/kernel", "layers.%d.attn.q_proj.weight", CQ,
            LAYER_SLICE_TRANSPOSE, g -> dims(qDim(g), g.dModel())),
    K_PROJ(PER_LAYER, "layer%02d.k_proj", "stack/layers/block/self_attn/k_proj/kernel", "layers.%d.attn.k_proj.weight", CQ,
            LAYER_SLICE_TRANSPOSE, g -> dims(kvDim(g), g.dModel())),
    V_PROJ(PER_LAYER, "layer%02d.v_proj", "stack/layers/block/self_attn/v_proj/kernel", "layers.%d.attn.v_proj.weight", CQ,
            LAYER_SLICE_TRANSPOSE, g -> dims(kvDim(g), g.dModel())),
    Q_NORM(PER_LAYER, "layer%02d.q_norm", "stack/layers/block/self_attn/q_norm/scale", "layers.%d.attn.q_norm.weight", FP16,
            LAYER_SLICE, g -> dims(g.headDim())),
    K_NORM(PER_LAYER, "layer%02d.k_norm", "stack/layers/block/self_attn/k_norm/scale", "layers.%d.attn.k_norm.weight", FP16,
            LAYER_SLICE, g -> dims(g.headDim())),
    GATE_PROJ(PER_LAYER, "layer%02d.gate_proj", "stack/layers/block/self_attn/gate_proj/kernel", "layers.%d.attn.gate_proj.weight", CQ,
            LAYER_SLICE_TRANSPOSE, g -> dims(qDim(g), g.dModel())),
    OUT_PROJ(PER_LAYER, "layer%02d.out_proj", "stack/layers/block/self_attn/out_proj/kernel", "layers.%d.attn.out_proj.weight", CQ,
            LAYER_SLICE_TRANSPOSE, g -> dims(g.dModel(), qDim(g))),
    POST_NORM(PER_LAYER, "layer%02d.post_norm", "stack/layers/block/post_attn_norm/scale", "layers.%d.post_norm.weight", FP16,
            LAYER_SLICE, g -> dims(g.dModel())),
    ATTN_GATE(PER_LAYER, "layer%02d.attn_gate", "stack/layers/block/attn_gate", "layers.%d.attn_gate", FP16, LAYER_SCALAR,
            g -> dims(1)),
    PRE_HADA(PER_LAYER, "layer%02d.pre_hada", "stack/layers/block/pre_hada_norm/scale", "layers.%d.pre_hada.weight", FP16,
            LAYER_SLICE, g -> dims(g.dModel())),
    D1(PER_LAYER, "layer%02d.d1", "stack/layers/block/hadamard_mlp/d1", "layers.%d.mlp.d1", FP16, LAYER_SLICE, g -> dims(g.hadaN())),
    D2(PER_LAYER, "layer%02d.d2", "stack/layers/block/hadamard_mlp/d2", "layers.%d.mlp.d2", FP16, LAYER_SLICE, g -> dims(g.hadaN())),
    D3(PER_LAYER, "layer%02d.d3", "stack/layers/block/hadamard_mlp/d3", "layers.%d.mlp.d3", FP16, LAYER_SLICE, g -> dims(g.hadaN())),

    MHC_A_PRE(ONCE, "mhc_a_pre", "stack/mhc_a_pre", "mhc.a_pre", FP16, NONE, g -> dims(g.numLayers())),
    MHC_A_POST(ONCE, "mhc_a_post", "stack/mhc_a_post", "mhc.a_post", FP16, NONE, g -> dims(g.numLayers())),
    MHC_A_RES(ONCE, "mhc_a_res", "stack/mhc_a_res", "mhc.a_res", FP16, NONE, g -> dims(g.numLayers())),
    MHC_B_PRE(ONCE, "mhc_b_pre", "stack/mhc_b_pre", "mhc.b_pre", FP16, NONE, g -> dims(g.numLayers(), g.mhcLanes())),
    MHC_B_POST(ONCE, "mhc_b_post", "stack/mhc_b_post", "mhc.b_post", FP16, NONE, g -> dims(g.numLayers(), g.mhcLanes())),
    MHC_B_RES(ONCE, "mhc_b_res", "stack/mhc_b_res", "mhc.b_res", FP16, NONE, g -> dims(g.numLayers(), g.mhcLanes(), g.mhcLanes())),
    /** Flax (L, lanes*d, k) stored as (L*k, lanes*d). */
    MHC_PHI_PRE(ONCE, "mhc_phi_pre", "stack/mhc_phi_pre", "mhc.phi_pre.weight", CQ, PHI_RESHAPE,
            g -> dims(mul(g.numLayers(), g.mhcLanes()), lanesWidth(g))),
    MHC_PHI_POST(ONCE, "mhc_phi_post", "stack/mhc_phi_post", "mhc.phi_post.weight", CQ, PHI_RESHAPE,
            g -> dims(mul(g.numLayers(), g.mhcLanes()), lanesWidth(g))),
    MHC_PHI_RES(ONCE, "mhc_phi_res", "stack/mhc_phi_res", "mhc.phi_res.weight", CQ, PHI_RESHAPE,
            g -> dims(mul(g.numLayers(), mul(g.mhcLanes(), g.mhcLanes())), lanesWidth(g))),

    /** Flax (tables, slots, sub_dim) stored as (tables*slots, sub_dim). */
    ENGRAM_TABLES(PER_SITE, "engram%d.tables", "engrams_%d/embedding", "engrams.%d.tables.weight", CQ, TABLE_RESHAPE,
            g -> dims(mul(g.numEngramTables(), g.engramSlots()), g.engramSubDim())),
    ENGRAM_KEY_PROJ(PER_SITE, "engram%d.key_proj", "engrams_%d/key_proj/kernel", "engrams.%d.key_proj.weight", CQ, TRANSPOSE,
            g -> dims(g.dModel(), engramWidth(g))),
    ENGRAM_VALUE_PROJ(PER_SITE, "engram%d.value_proj", "engrams_%d/value_proj/kernel", "engrams.%d.value_proj.weight", CQ, TRANSPOSE,
            g -> dims(g.dModel(), engramWidth(g))),
    ENGRAM_TAPS(PER_SITE, "engram%d.taps", "engrams_%d/taps", "engrams.%d.taps", FP16, NONE, g -> dims(g.engramConvTaps(), g.dModel())),

    FINAL_NORM(ONCE, "final_norm", "stack/final_norm/scale", "final_norm.weight", FP16, NONE, g -> dims(g.dModel())),

    /** One code per head present ({@link ProbeHead#code}); no source tensor. */
    HEADS_MANIFEST(WITH_HEADS, "heads.manifest", null, null, FP16, DERIVED, (g, heads, head) -> dims(heads)),
    HEAD_PROBES(PER_HEAD, "%s.probes", "%s/probes", "%s.probes", FP16, NONE, (g, heads, head) -> dims(head.probes(), g.dModel())),
    HEAD_PROJ(PER_HEAD, "%s.proj", "%s/proj/kernel", "%s.proj.weight", FP16, TRANSPOSE,
            (g, heads, head) -> dims(head.out(), mul(head.probes(), g.dModel()))),
    /** Zeros where the head's Flax Dense has no bias ({@link ProbeHead#flaxBias}). */
    HEAD_BIAS(PER_HEAD, "%s.bias", "%s/proj/bias", "%s.proj.bias", FP16, NONE, (g, heads, head) -> dims(head.out())),

    /** The RAW SentencePiece dump, last; never a weight. */
    TOKENIZER(WITH_TOKENIZER, "tokenizer", null, null, RAW, Transform.TOKENIZER, g -> dims());

    /** What a row repeats for in a model. */
    public enum Scope {
        /** Once per model. */
        ONCE,
        /** Once per layer. */
        PER_LAYER,
        /** Once per engram site. */
        PER_SITE,
        /** Once, when the model has a probe head. */
        WITH_HEADS,
        /** Once per probe head present, in canonical order. */
        PER_HEAD,
        /** Once, when the {@code .cact} carries a tokenizer. */
        WITH_TOKENIZER
    }

    /** A row's shape in a model of geometry {@code g} with {@code heads} probe heads; {@code head} is the row's own head. */
    @FunctionalInterface
    private interface Shape {
        long[] of(Geometry g, int heads, HeadShape head);
    }

    private final Scope scope;
    private final String cact;
    private final String flax;
    private final String torch;
    private final Storage storage;
    private final Transform transform;
    private final Shape shape;

    ModelTensor(Scope scope, String cact, String flax, String torch, Storage storage, Transform transform, Shape shape) {
        this.scope = scope;
        this.cact = cact;
        this.flax = flax;
        this.torch = torch;
        this.storage = storage;
        this.transform = transform;
        this.shape = shape;
    }

    ModelTensor(Scope scope, String cact, String flax, String torch, Storage storage, Transform transform, Function<Geometry, long[]> shape) {
        this(scope, cact, flax, torch, storage, transform, (g, heads, head) -> shape.apply(g));
    }

    /**
     * The tensors of a model of geometry {@code g} with these probe heads (canonical order), with
     * or without the tokenizer: the {@code .cact} order.
     */
    public static List<TensorName> expand(Geometry g, List<ProbeHead> heads, boolean tokenizer) {
        List<TensorName> out = new ArrayList<>();
        ModelTensor[] rows = values();
        int end;
        for (int start = 0; start < rows.length; start = end) {
            Scope scope = rows[start].scope;
            end = start;
            while (end < rows.length && rows[end].scope == scope) end++;
            long times = times(scope, g, heads.size(), tokenizer);
            for (int k = 0; k < times; k++) {
                for (int r = start; r < end; r++) out.add(new TensorName(rows[r], k, scope == PER_HEAD ? heads.get(k) : null));
            }
        }
        return out;
    }

    /** How many tensors {@link #expand} lists, computed without listing them (a header's layer count is untrusted). */
    public static long count(Geometry g, int heads, boolean tokenizer) {
        long n = 0;
        for (ModelTensor t : values()) n += times(t.scope, g, heads, tokenizer);
        return n;
    }

    private static long times(Scope scope, Geometry g, int heads, boolean tokenizer) {
        return switch (scope) {
            case ONCE -> 1;
            case PER_LAYER -> g.numLayers();
            case PER_SITE -> g.numEngramSites();
            case WITH_HEADS -> heads > 0 ? 1 : 0;
            case PER_HEAD -> heads;
            case WITH_TOKENIZER -> tokenizer ? 1 : 0;
        };
    }

    /** The tensor of this row for layer or engram site {@code index}. */
    public TensorName at(int index) {
        if (scope != PER_LAYER && scope != PER_SITE) throw new IllegalArgumentException(this + " is not per layer or engram site");
        return new TensorName(this, index, null);
    }

    /** The tensor of this row for probe head {@code head}. */
    public TensorName at(ProbeHead head) {
        if (scope != PER_HEAD) throw new IllegalArgumentException(this + " is not per probe head");
        return new TensorName(this, 0, head);
    }

    /** The tensor of a row written at most once. */
    public TensorName single() {
        if (scope == PER_LAYER || scope == PER_SITE || scope == PER_HEAD) throw new IllegalArgumentException(this + " repeats " + scope);
        return new TensorName(this, 0, null);
    }

    public Scope scope() {
        return scope;
    }

    public Storage storage() {
        return storage;
    }

    /**
     * The shape in a model of geometry {@code g} with {@code heads} probe heads; a head row's needs
     * its {@code head} shape and is null without one (a {@code .cact} header does not fix it).
     */
    public long[] shape(Geometry g, int heads, HeadShape head) {
        if (scope == PER_HEAD && head == null) return null;
        return shape.of(g, heads, head);
    }

    String cactTemplate() {
        return cact;
    }

    String flaxTemplate() {
        return flax;
    }

    String torchTemplate() {
        return torch;
    }

    /** The transform for {@code head} (null unless per head): zeros where the head's Flax Dense has no bias. */
    Transform transformFor(ProbeHead head) {
        return this == HEAD_BIAS && !head.flaxBias() ? ZERO_FILL : transform;
    }

    private static long qDim(Geometry g) {
        return mul(g.numHeads(), g.headDim());
    }

    private static long kvDim(Geometry g) {
        return mul(g.numKvHeads(), g.headDim());
    }

    /** The flattened lanes, {@code mhc_lanes * d_model}: phi's input. */
    private static long lanesWidth(Geometry g) {
        return mul(g.mhcLanes(), g.dModel());
    }

    /** The gathered engram row, {@code tables * sub_dim}: the projections' input. */
    private static long engramWidth(Geometry g) {
        return mul(g.numEngramTables(), g.engramSubDim());
    }

    private static long[] dims(long... d) {
        return d;
    }

    /** Product saturating at Long.MAX_VALUE. */
    private static long mul(long a, long b) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }
}
