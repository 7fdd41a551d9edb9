package dev.needlewb.converter.flax.v3;

import dev.needlewb.converter.flax.ConfigFields;
import dev.needlewb.converter.flax.EngramShape;
import dev.needlewb.converter.flax.FlaxConfig;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The fields of upstream Needle 3's {@code TransformerConfig} that shape the model, read from a
 * checkpoint's {@code config} dict the way {@code TransformerConfig.from_saved} does: a key missing
 * from the dict means the feature is <em>off</em> for the fields from_saved lists (qk/v head dims 0,
 * sliding_window 0, global_layers (), ladder_widths (), engram_seed_heads 0, qkv_conv_taps 0,
 * out_vocab 0, elementwise gate, shared factors, no engram banks, no CLA pairs), and the class
 * default for the others. Compute-only fields (dtype, flash, remat, scan_unroll, ladder_depths,
 * ladder_sample, ladder_order, weight_bits) are not kept.
 *
 * <p>Zero-valued head dims, out_vocab and engram_heads keep upstream's meaning ("derive it"); the
 * methods {@link #qkDim()}, {@link #vDim()}, {@link #logitRows()} and the engram ones resolve them.
 */
public record V3Config(
        int vocabSize,
        int dModel,
        int numHeads,
        int numKvHeads,
        int numLayers,
        int qkHeadDim,
        int vHeadDim,
        int maxSeqLen,
        int padTokenId,
        int embeddingDim,
        int embeddingProbes,
        int embeddingQueries,
        int confidenceProbes,
        int confidenceQueries,
        int routerProbes,
        int routerQueries,
        double ropeTheta,
        List<Integer> engramOrders,
        int engramHeads,
        int engramSlots,
        int engramSeedHeads,
        List<Integer> engramLayers,
        List<Integer> globalLayers,
        int slidingWindow,
        List<Integer> ladderWidths,
        int mhcLanes,
        int qkvConvTaps,
        int outVocab,
        int kvWindow,
        int kvBits,
        int actBits,
        AttentionGate attentionGate,
        FactorMode hadaFactorMode,
        List<Integer> engramBankIds,
        List<List<Integer>> claPairs) {

    /** {@code attention_gate}: a sigmoid gate per output channel (H*v) or per head (H). */
    public enum AttentionGate {
        ELEMENTWISE, HEADWISE;

        static AttentionGate of(String name) throws WorkbenchException {
            return switch (name) {
                case "elementwise" -> ELEMENTWISE;
                case "headwise" -> HEADWISE;
                default -> throw ConfigFields.bad("unsupported attention_gate '" + name + "' (elementwise or headwise)");
            };
        }
    }

    /** {@code hada_factor_mode}: one Kronecker factor pair per stage, or one matrix per block row/column. */
    public enum FactorMode {
        SHARED, BLOCK_UNTIED;

        static FactorMode of(String name) throws WorkbenchException {
            return switch (name) {
                case "shared" -> SHARED;
                case "block_untied" -> BLOCK_UNTIED;
                default -> throw ConfigFields.bad("unsupported hada_factor_mode '" + name + "' (shared or block_untied)");
            };
        }
    }

    /** Upstream {@code HADA_COND_RANK}: the width of the MLP's softmax conditioner. */
    public static final int HADA_COND_RANK = 8;
    /** Upstream {@code ENGRAM_CONV_TAPS} (unchanged from Needle 2). */
    public static final int ENGRAM_CONV_TAPS = FlaxConfig.ENGRAM_CONV_TAPS;

    public V3Config {
        engramOrders = List.copyOf(engramOrders);
        engramLayers = List.copyOf(engramLayers);
        globalLayers = List.copyOf(globalLayers);
        ladderWidths = List.copyOf(ladderWidths);
        engramBankIds = List.copyOf(engramBankIds);
        claPairs = claPairs.stream().map(List::copyOf).toList();
    }

    /**
     * The released Needle 3 geometry (SPEC section 8): d_model 768, 20 layers, 12/2 heads, qk 48 /
     * v 64, window 1024 with global layers 4/9/14/19, 3 conv taps, engram sites 3/7/11/15/19 with
     * 18,432 slots, max_seq_len 8192, kv_bits 8; vocab 8192, which the published parameter count
     * implies (SPEC does not state it).
     */
    public static V3Config released() {
        Map<String, Object> c = new java.util.HashMap<>();
        c.put("vocab_size", 8192L);
        c.put("max_seq_len", 8192L);
        c.put("qk_head_dim", 48L);
        c.put("v_head_dim", 64L);
        c.put("sliding_window", 1024L);
        c.put("global_layers", List.of(4L, 9L, 14L, 19L));
        c.put("qkv_conv_taps", 3L);
        try {
            // every other field is the class default: d_model 768, 20 layers, 12/2 heads, the sites
            return fromSaved(c);
        } catch (WorkbenchException e) {
            throw new IllegalStateException("the released config does not parse", e);
        }
    }

    /**
     * Reads the config dict of a Needle 3 checkpoint and checks what upstream's constructor and
     * model checks, plus what the forward needs (even qk head dim for the half-split RoPE).
     *
     * @throws WorkbenchException a Needle 2 config ({@code attn_dim} without {@code qk_head_dim},
     *     which upstream's load_checkpoint refuses too), a value of the wrong type, or an invalid one
     */
    public static V3Config fromSaved(Map<String, Object> c) throws WorkbenchException {
        if (c.containsKey("attn_dim") && !c.containsKey("qk_head_dim")) {
            throw ConfigFields.bad(ErrorKind.WRONG_GENERATION, "attn_dim without qk_head_dim: a Needle 2 config (upstream's Needle 3 loader refuses it too)");
        }
        int layers = ConfigFields.integer(c, "num_layers", 20);
        V3Config v = new V3Config(
                ConfigFields.integer(c, "vocab_size", 16384),
                ConfigFields.integer(c, "d_model", 768),
                ConfigFields.integer(c, "num_heads", 12),
                ConfigFields.integer(c, "num_kv_heads", 2),
                layers,
                ConfigFields.integer(c, "qk_head_dim", 0),
                ConfigFields.integer(c, "v_head_dim", 0),
                ConfigFields.integer(c, "max_seq_len", 4096),
                ConfigFields.integer(c, "pad_token_id", 0),
                ConfigFields.integer(c, "embedding_dim", 128),
                ConfigFields.integer(c, "embedding_probes", 4),
                ConfigFields.integer(c, "embedding_queries", 4),
                ConfigFields.integer(c, "confidence_probes", 4),
                ConfigFields.integer(c, "confidence_queries", 4),
                ConfigFields.integer(c, "router_probes", 4),
                ConfigFields.integer(c, "router_queries", 4),
                ConfigFields.number(c, "rope_theta", 100000.0),
                list(ConfigFields.integers(c, "engram_orders", new int[] {2, 3})),
                ConfigFields.integer(c, "engram_heads", 0),
                ConfigFields.integer(c, "engram_slots", 18432),
                ConfigFields.integer(c, "engram_seed_heads", 0),
                // the class default, cut to the stack as __init__ does when the key is not passed
                list(c.containsKey("engram_layers") ? ConfigFields.integers(c, "engram_layers", new int[0])
                        : Arrays.stream(new int[] {3, 7, 11, 15, 19}).filter(l -> l < layers).toArray()),
                list(ConfigFields.integers(c, "global_layers", new int[0])),
                ConfigFields.integer(c, "sliding_window", 0),
                list(ConfigFields.integers(c, "ladder_widths", new int[0])),
                ConfigFields.integer(c, "mhc_lanes", 4),
                ConfigFields.integer(c, "qkv_conv_taps", 0),
                ConfigFields.integer(c, "out_vocab", 0),
                ConfigFields.integer(c, "kv_window", 0),
                ConfigFields.integer(c, "kv_bits", 8),
                ConfigFields.integer(c, "act_bits", 8),
                AttentionGate.of(ConfigFields.string(c, "attention_gate", "elementwise")),
                FactorMode.of(ConfigFields.string(c, "hada_factor_mode", "shared")),
                list(ConfigFields.integers(c, "engram_bank_ids", new int[0])),
                pairs(c));
        v.check();
        return v;
    }

    private static List<List<Integer>> pairs(Map<String, Object> c) throws WorkbenchException {
        Object v = c.get("cla_pairs");
        if (v == null) return List.of();
        if (!(v instanceof List<?> list)) throw ConfigFields.bad("cla_pairs is " + v + ", not a tuple of pairs");
        List<List<Integer>> out = new ArrayList<>();
        for (Object pair : list) {
            if (!(pair instanceof List<?>)) throw ConfigFields.bad("cla_pairs holds " + pair + ", not a pair");
            out.add(list(ConfigFields.integers(Map.of("cla_pairs", pair), "cla_pairs", new int[0])));
        }
        return out;
    }

    private static List<Integer> list(int[] values) {
        return Arrays.stream(values).boxed().toList();
    }

    /** Upstream's constructor checks (architecture.py 86-139) and what the model needs to build. */
    private void check() throws WorkbenchException {
        ConfigFields.positive("vocab_size", vocabSize);
        ConfigFields.positive("d_model", dModel);
        ConfigFields.positive("num_heads", numHeads);
        ConfigFields.positive("num_kv_heads", numKvHeads);
        ConfigFields.positive("num_layers", numLayers);
        ConfigFields.positive("max_seq_len", maxSeqLen);
        ConfigFields.positive("mhc_lanes", mhcLanes);
        if (numHeads % numKvHeads != 0) throw ConfigFields.bad("num_heads " + numHeads + " is not a multiple of num_kv_heads " + numKvHeads);
        if (qkHeadDim < 0 || vHeadDim < 0) throw ConfigFields.bad("head dims qk " + qkHeadDim + " / v " + vHeadDim + " are negative");
        ConfigFields.positive("qk head dim (d_model // num_heads when qk_head_dim is 0)", qkDim());
        ConfigFields.positive("v head dim (d_model // num_heads when v_head_dim is 0)", vDim());
        if (qkDim() % 2 != 0) throw ConfigFields.bad("qk head dim " + qkDim() + " is odd: RoPE rotates its two halves");
        if (outVocab < 0 || outVocab > vocabSize) throw ConfigFields.bad("out_vocab " + outVocab + " is outside 0.." + vocabSize);
        if (slidingWindow < 0) throw ConfigFields.bad("sliding_window " + slidingWindow + " is negative");
        if (qkvConvTaps < 0) throw ConfigFields.bad("qkv_conv_taps " + qkvConvTaps + " is negative");
        if (kvBits < 0) throw ConfigFields.bad("kv_bits " + kvBits + " is negative");
        if (engramHeads < 0) throw ConfigFields.bad("engram_heads " + engramHeads + " is negative");
        if (engramSeedHeads < 0) throw ConfigFields.bad("engram_seed_heads " + engramSeedHeads + " is negative");
        for (int l : engramLayers) {
            if (l < 0 || l >= numLayers) throw ConfigFields.bad("engram layer " + l + " is outside 0.." + (numLayers - 1));
        }
        if (!engramLayers.isEmpty()) {
            if (engramOrders.isEmpty()) throw ConfigFields.bad("engram_orders is empty");
            for (int o : engramOrders) if (o < 1) throw ConfigFields.bad("engram order " + o + " is not positive");
            ConfigFields.positive("engram_slots", engramSlots);
            if (engram().subDim() < 1) throw ConfigFields.bad("d_model " + dModel + " is too small for " + engram().tables() + " engram tables");
        }
        checkBanks();
        checkClaPairs();
    }

    private void checkBanks() throws WorkbenchException {
        if (engramBankIds.isEmpty()) return;
        if (engramBankIds.size() != engramLayers.size()) throw ConfigFields.bad("engram_bank_ids must contain one bank id per Engram site");
        Set<Integer> ids = new HashSet<>();
        for (int b : engramBankIds) {
            if (b < 0) throw ConfigFields.bad("Engram bank ids must be non-negative");
            ids.add(b);
        }
        int max = Collections.max(engramBankIds);
        if (ids.size() != max + 1) throw ConfigFields.bad("Engram bank ids must be contiguous starting at zero");
    }

    private void checkClaPairs() throws WorkbenchException {
        Set<Integer> used = new HashSet<>();
        for (List<Integer> pair : claPairs) {
            if (pair.size() != 2) throw ConfigFields.bad("CLA pair " + pair + " must contain producer and consumer");
            int producer = pair.get(0);
            int consumer = pair.get(1);
            if (producer < 0 || producer >= numLayers || consumer < 0 || consumer >= numLayers) {
                throw ConfigFields.bad("CLA pair " + pair + " is outside the model depth");
            }
            if (consumer != producer + 1) throw ConfigFields.bad("CLA pair " + pair + " must contain adjacent layers");
            if (used.contains(producer) || used.contains(consumer)) {
                throw ConfigFields.bad("CLA layer appears in more than one pair: " + pair);
            }
            if (listedGlobal(producer) != listedGlobal(consumer)) {
                throw ConfigFields.bad("CLA pair " + pair + " mixes local and global attention masks");
            }
            used.add(producer);
            used.add(consumer);
        }
    }

    /** The q/k head width: {@code qk_head_dim}, or {@code d_model // num_heads} when 0. */
    public int qkDim() {
        return qkHeadDim != 0 ? qkHeadDim : dModel / numHeads;
    }

    /** The v head width: {@code v_head_dim}, or {@code d_model // num_heads} when 0. */
    public int vDim() {
        return vHeadDim != 0 ? vHeadDim : dModel / numHeads;
    }

    /** The logit rows: the first {@code out_vocab} embedding rows, all of them when 0. */
    public int logitRows() {
        return outVocab != 0 ? outVocab : vocabSize;
    }

    /** True if layer {@code l} attends to every earlier key: no sliding window, or l is a global layer. */
    public boolean isGlobalLayer(int l) {
        return slidingWindow == 0 || listedGlobal(l);
    }

    private boolean listedGlobal(int l) {
        return globalLayers.contains(l);
    }

    /** The Kronecker MLP length {@code n}: the smallest power of two >= d_model. */
    public int hadaN() {
        return dModel <= 1 ? 1 : Integer.highestOneBit(dModel - 1) << 1;
    }

    /** The first Kronecker factor's size {@code ba = 1 << (bit_length(n - 1) // 2)}. */
    public int hadaBlockA() {
        return 1 << ((Integer.SIZE - Integer.numberOfLeadingZeros(hadaN() - 1)) / 2);
    }

    /** The second factor's size {@code bb = n / ba} (>= ba). */
    public int hadaBlockB() {
        return hadaN() / hadaBlockA();
    }

    /** The MLP permutations are two independently shuffled halves when {@code ladder_widths} is set. */
    public boolean splitPermutations() {
        return !ladderWidths.isEmpty();
    }

    /** The engram table geometry (heads per order, tables, row width, conv dilation). */
    public EngramShape engram() {
        return new EngramShape(dModel, engramOrders.stream().mapToInt(Integer::intValue).toArray(), engramHeads);
    }

    /** The hash seed stride: {@code engram_seed_heads or engram heads} (Needle 2 always used the heads). */
    public int engramSeedStride() {
        return engramSeedHeads != 0 ? engramSeedHeads : engram().headsPerOrder();
    }
}
