package dev.needlewb.converter.synth;

import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.core.tokenizer.SpecialTokens;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * Valid Needle 3 geometries for a sweep, each a function of (seed, index) alone: the corner geometries
 * first (every index below {@link #CORNERS}, whatever the seed), then random draws. Every value is inside
 * upstream Needle 3's rules (docs/geometry.md lists them with file:line): qk head dim even (or derived,
 * {@code d_model // num_heads}), v head dim of any size, kv heads any divisor of the heads, d_model of any
 * size, a sliding window of 0 (every layer global) or 1 up, smaller or larger than the prompt, any set of
 * global layers from none to all (and indices past the stack, which upstream writes and its reader drops),
 * 0 to 7 QKV conv taps, the elementwise or headwise gate, shared or block-untied Kronecker factors, whole or
 * split permutations ({@code ladder_widths}), 1 to 4 distinct engram orders of 1 to 5, automatic or explicit
 * engram heads, a hash seed stride of 0 (the heads) or any positive value, 0 to 4 distinct sites in any order,
 * out_vocab 0, the whole vocabulary or a cut, kv_bits 8 or 0 (written as 8), probe heads none to all three,
 * and the CQ widths a Needle 3 file holds: 4 everywhere (upstream's v3 exporter), the shipped file's
 * {@code embedding=4,mhc=4,default=2}, or another 2/4 mix by tensor kind; CQ group 128 or 64.
 *
 * <p>Held back, with the reason: vocabularies from {@link #COMPLETE_VOCAB} (specials, Needle 3's sixteen
 * markers and the 256 byte pieces: the synthetic tokenizer's smallest complete vocabulary); kv_bits other
 * than 8 (the int8 engine keeps an 8-bit cache only, and upstream's deploy settings are 8/8); repeated
 * engram sites (upstream's full and cached forwards disagree on them, and every engine refuses them);
 * engram_bank_ids and cla_pairs (upstream's export cannot write them; {@code convert} refuses them).
 */
public final class V3GeometryDraws {
    /** Specials, Needle 3's sixteen chat markers and every byte piece: 276. */
    public static final int COMPLETE_VOCAB = 4 + SpecialTokens.NEEDLE3_CHAT_MARKERS.size() + 256;

    /**
     * Fixed geometries that between them take every branch of the rules, small enough for a quick sweep:
     * see docs/geometry.md for what each one is for.
     */
    public static final List<Corner> CORNERS = List.of(
            new Corner("window3-taps3-gqa", 64, 4, 2, 16, 24, 3, 2, 3, new int[] {1}, 3, false, false, false, new int[] {2, 3}, 0, 0,
                    new int[] {0, 2}, 0, "embedding=4,mhc=4,default=2", 128),
            new Corner("all-global-no-taps-derived-mqa", 96, 4, 1, 0, 0, 2, 1, 0, new int[] {}, 0, false, false, false, new int[] {2}, 0, 0,
                    new int[] {1}, 0, "default=4", 128),
            new Corner("headwise-untied-every-layer-global", 96, 3, 3, 12, 40, 3, 3, 5, new int[] {0, 1, 2}, 2, true, true, false,
                    new int[] {1, 3}, 2, 7, new int[] {2, 0}, 200, "attn.gate_proj=2,attn.out_proj=2,default=4", 64),
            new Corner("window64-above-prompt-split-perms", 72, 2, 1, 8, 100, 2, 4, 64, new int[] {}, 1, false, false, true,
                    new int[] {3}, 1, 1, new int[] {}, 0, "embedding=2,attn.q_proj=4,attn.k_proj=4,default=2", 128),
            new Corner("odd-d-window1-one-lane", 101, 2, 2, 10, 7, 4, 1, 1, new int[] {3, 9}, 4, false, true, false,
                    new int[] {4, 1, 5, 2}, 0, 3, new int[] {3, 1}, 0, "embedding=4,mhc=4,default=2", 128),
            new Corner("released-pattern-small", 128, 6, 2, 16, 24, 4, 4, 8, new int[] {1, 3}, 3, false, false, false,
                    new int[] {2, 3}, 0, 0, new int[] {1, 3}, 0, "embedding=4,mhc=4,default=2", 128));

    /**
     * A fixed geometry: the shape fields as given ({@code qk}, {@code v} 0: derived from d_model; {@code split}: a non-empty
     * ladder_widths, so split permutations; {@code seedHeads} 0: the heads; {@code outVocab} 0: every row), the rest
     * (vocabulary, context, theta, slots, probe heads) drawn once from its name.
     */
    public record Corner(String name, int dModel, int heads, int kvHeads, int qk, int v, int layers, int lanes, int window,
            int[] global, int taps, boolean headwise, boolean untied, boolean split, int[] orders, int engramHeads, int seedHeads, int[] sites,
            int outVocab, String bits, int group) {}

    private static final int[] QK_DIMS = {2, 8, 12, 16, 24, 32, 48};
    private static final int[] V_DIMS = {4, 7, 16, 24, 40, 64, 100};
    private static final int[] WIDTHS = {40, 57, 64, 72, 96, 101, 128, 136, 150};
    private static final int[] WINDOWS = {0, 0, 1, 2, 3, 5, 8, 16, 64, 1024};
    private static final int[] TAPS = {0, 0, 1, 2, 3, 3, 4, 7};
    private static final int[] SLOTS = {8, 31, 64, 97, 256};
    private static final int[] CONTEXTS = {256, 512, 4096, 1 << 16};
    private static final int[] KV_WINDOWS = {0, 0, 64, 256};
    private static final double[] THETAS = {10000.0, 100000.0, 500000.0, 12345.5};
    /** Bits-map kinds every Needle 3 file has (engram tensors exist only with sites). */
    private static final List<String> KINDS = List.of("embedding", "attn.q_proj", "attn.k_proj", "attn.v_proj", "attn.gate_proj",
            "attn.out_proj", "mhc", "engram");
    /** Upstream's v3 exporter writes 4 (export.py:185-186); the shipped file mixes in 2. */
    private static final String UPSTREAM_BITS = "default=4";
    private static final String SHIPPED_BITS = "embedding=4,mhc=4,default=2";

    private V3GeometryDraws() {}

    /** Needle 3 geometry {@code index} of the sweep with seed {@code seed}. */
    public static DrawnV3Geometry draw(long seed, int index) {
        if (index < 0) throw new IllegalArgumentException("index " + index);
        String prefix = "v3-g" + String.format("%02d", index) + "-";
        if (index < CORNERS.size()) return corner(CORNERS.get(index), prefix);
        // a stream of its own, apart from Needle 2's draw of the same (seed, index)
        SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + index ^ 0x3333_3333_3333_3333L);
        int kv = 1 + r.nextInt(3);
        int heads = kv * (1 + r.nextInt(3));
        int d = pick(r, WIDTHS);
        boolean derived = r.nextInt(6) == 0 && d % heads == 0 && (d / heads) % 2 == 0;
        int qk = derived ? 0 : pick(r, QK_DIMS);
        int v = derived ? 0 : pick(r, V_DIMS);
        int layers = 1 + r.nextInt(4);
        int lanes = 1 + r.nextInt(4);
        int window = pick(r, WINDOWS);
        int[] global = globalLayers(r, layers);
        int taps = pick(r, TAPS);
        boolean headwise = r.nextBoolean();
        boolean untied = r.nextBoolean();
        boolean split = r.nextInt(4) == 0;
        List<Integer> orderValues = new ArrayList<>(List.of(1, 2, 3, 4, 5));
        Collections.shuffle(orderValues, new Random(r.nextLong()));
        int[] orders = orderValues.subList(0, 1 + r.nextInt(4)).stream().mapToInt(Integer::intValue).toArray();
        int engramHeads = explicitHeads(r, orders.length, d);
        int perOrder = engramHeads != 0 ? engramHeads : Math.max(1, d / (orders.length * 128));
        int seedHeads = r.nextBoolean() ? 0 : 1 + r.nextInt(perOrder + 3);
        List<Integer> layerIds = new ArrayList<>(IntStream.range(0, layers).boxed().toList());
        Collections.shuffle(layerIds, new Random(r.nextLong()));
        int[] sites = layerIds.subList(0, r.nextInt(Math.min(4, layers) + 1)).stream().mapToInt(Integer::intValue).toArray();
        Corner c = new Corner(prefix + "qk" + (qk == 0 ? "d" : qk) + "-v" + (v == 0 ? "d" : v), d, heads, kv, qk, v, layers, lanes,
                window, global, taps, headwise, untied, split, orders, engramHeads, seedHeads, sites, -1, bitsMap(r), r.nextBoolean() ? 128 : 64);
        return build(c, c.name(), r);
    }

    private static DrawnV3Geometry corner(Corner c, String prefix) {
        return build(c, prefix + c.name(), new SplittableRandom(c.name().hashCode()));
    }

    /**
     * None, all, or any set of the layers; a quarter of the sets also name a layer past the stack (upstream's
     * _pack_cact writes its bit, read_export drops it: export.py:411-413, 461-477).
     */
    private static int[] globalLayers(SplittableRandom r, int layers) {
        List<Integer> g = new ArrayList<>();
        int kind = r.nextInt(4);
        for (int l = 0; l < layers; l++) if (kind == 1 || kind >= 2 && r.nextBoolean()) g.add(l);
        if (kind == 3) g.add(layers + r.nextInt(70));
        return g.stream().mapToInt(Integer::intValue).toArray();
    }

    /** 0 (upstream's automatic count, {@code max(1, d // (orders * 128))}) or 1 to 3 heads per order keeping rows of 2 values or more. */
    private static int explicitHeads(SplittableRandom r, int orders, int d) {
        if (r.nextBoolean()) return 0;
        int most = 1;
        for (int heads = 2; heads <= 3; heads++) if (d / (orders * heads) >= 2) most = heads;
        return 1 + r.nextInt(most);
    }

    /** Upstream's 4 everywhere, the shipped scheme, or 2 and 4 spread over the kinds (both always present). */
    private static String bitsMap(SplittableRandom r) {
        int kind = r.nextInt(3);
        if (kind == 0) return UPSTREAM_BITS;
        if (kind == 1) return SHIPPED_BITS;
        List<String> kinds = new ArrayList<>(KINDS);
        Collections.shuffle(kinds, new Random(r.nextLong()));
        int fours = 1 + r.nextInt(kinds.size() - 1);
        StringBuilder spec = new StringBuilder();
        for (String k : KINDS) spec.append(k).append('=').append(kinds.indexOf(k) < fours ? 4 : 2).append(',');
        return spec.append("default=").append(r.nextBoolean() ? 2 : 4).toString();
    }

    /** The config of {@code c}'s shape fields, the rest drawn from {@code r}; {@code c.outVocab()} -1 draws one. */
    private static DrawnV3Geometry build(Corner c, String name, SplittableRandom r) {
        Map<String, Object> m = new LinkedHashMap<>();
        int vocab = COMPLETE_VOCAB + r.nextInt(325);
        m.put("vocab_size", (long) vocab);
        m.put("d_model", (long) c.dModel());
        m.put("num_heads", (long) c.heads());
        m.put("num_kv_heads", (long) c.kvHeads());
        m.put("num_layers", (long) c.layers());
        m.put("qk_head_dim", (long) c.qk());
        m.put("v_head_dim", (long) c.v());
        m.put("max_seq_len", (long) pick(r, CONTEXTS));
        m.put("rope_theta", THETAS[r.nextInt(THETAS.length)]);
        m.put("engram_orders", longs(c.orders()));
        m.put("engram_heads", (long) c.engramHeads());
        m.put("engram_slots", (long) pick(r, SLOTS));
        m.put("engram_seed_heads", (long) c.seedHeads());
        m.put("engram_layers", longs(c.sites()));
        m.put("global_layers", longs(c.global()));
        m.put("sliding_window", (long) c.window());
        // any non-empty ladder_widths splits the permutations (architecture.py:693-701); the widths train only
        m.put("ladder_widths", c.split() ? List.of((long) c.dModel() / 2) : List.of());
        m.put("mhc_lanes", (long) c.lanes());
        m.put("qkv_conv_taps", (long) c.taps());
        int out = r.nextInt(3);
        m.put("out_vocab", (long) (c.outVocab() >= 0 ? c.outVocab() : out == 0 ? 0 : out == 1 ? vocab : vocab / 2 + r.nextInt(vocab / 2)));
        m.put("kv_window", (long) pick(r, KV_WINDOWS));
        m.put("kv_bits", r.nextInt(4) == 0 ? 0L : 8L);
        m.put("attention_gate", c.headwise() ? "headwise" : "elementwise");
        m.put("hada_factor_mode", c.untied() ? "block_untied" : "shared");
        List<V3ProbeHead> heads = new ArrayList<>();
        for (V3ProbeHead h : V3ProbeHead.values()) {
            if (!r.nextBoolean()) continue;
            heads.add(h);
            String key = h.key().replace("_head", "");
            m.put(key + "_probes", (long) (1 + r.nextInt(4)));
            m.put(key + "_queries", (long) (1 + r.nextInt(4)));
        }
        m.put("embedding_dim", (long) (8 + r.nextInt(57)));
        return new DrawnV3Geometry(name, m, heads, c.group(), c.bits());
    }

    private static List<Long> longs(int[] values) {
        return IntStream.of(values).mapToObj(v -> (long) v).toList();
    }

    private static int pick(SplittableRandom r, int[] values) {
        return values[r.nextInt(values.length)];
    }
}
