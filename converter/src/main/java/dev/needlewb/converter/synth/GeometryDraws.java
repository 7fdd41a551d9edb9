package dev.needlewb.converter.synth;

import dev.needlewb.converter.v2.ProbeHead;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * Valid Needle 2 geometries for a sweep, each a function of (seed, index) alone, so one can be drawn
 * again without the others: the corner geometries first (fixed: every index below {@link #CORNERS}),
 * then random draws. Every value is drawn inside upstream's rules (docs/geometry.md lists them with their
 * sources), so no draw is rejected: head_dim even and of any size, attn_dim = heads x head_dim free of
 * d_model, kv heads any divisor of the heads, d_model of any size (hada_n then the next power of two),
 * 1 to 4 engram orders of 1 to 5 in any order with explicit or automatic heads per order (tables x sub_dim
 * may fall short of d_model), 0 to 4 distinct engram sites in any order, any slot count, one CQ group of
 * 64 or 128 per file and bits maps that put 2, 3, 4 and ternary codes in every file.
 *
 * <p>Held back, with the reason: max_seq_len is drawn from 256 up (tool-call prompts of the synthetic
 * byte-level tokenizer need room; contexts below kv_window's minimum of 160 are covered by the odd-geometry
 * export test); vocabularies from 270 (the smallest complete byte-fallback vocabulary); kv_bits 8 (the int8
 * engine runs an 8-bit cache only, and upstream never applies another width); no repeated engram site (upstream's
 * full and cached forwards disagree on it, and every engine refuses it at load); CQ groups below 64 (the
 * engine's kernels refuse them at load, and upstream's command line always writes 128).
 */
public final class GeometryDraws {
    /**
     * The corners of docs/geometry.md (head_dim 8, 24, 40, 72, 100, upstream's own test shape, an odd
     * d_model with one lane) and the file of issue 33 (d_model 96, 4/2 heads of 24, vocab 384).
     */
    public static final List<Corner> CORNERS = List.of(
            new Corner("hd8-mqa", 40, 5, 1, 8, 4, 2, new int[] {2, 3}, 0, new int[] {1}, 64, 0),
            new Corner("hd24-attn-below-d", 100, 3, 1, 24, 2, 2, new int[] {2, 3}, 3, new int[] {1}, 128, 0),
            new Corner("hd40-unsorted-sites", 136, 4, 2, 40, 4, 3, new int[] {1, 2, 3}, 2, new int[] {2, 0}, 64, 0),
            new Corner("hd72-no-sites-mha", 150, 2, 2, 72, 3, 2, new int[] {3}, 1, new int[] {}, 128, 0),
            new Corner("hd100-attn-above-d", 96, 3, 1, 100, 4, 2, new int[] {4, 2, 1, 3}, 2, new int[] {0, 1}, 128, 0),
            new Corner("pow2-upstream-test", 64, 4, 2, 16, 2, 2, new int[] {2, 3}, 0, new int[] {1}, 128, 0),
            new Corner("odd-d-one-lane", 101, 6, 3, 24, 1, 1, new int[] {2}, 3, new int[] {0}, 64, 0),
            new Corner("issue33-d96-hd24", 96, 4, 2, 24, 4, 2, new int[] {2, 3}, 0, new int[] {1}, 128, 384));

    /**
     * A fixed geometry: shape fields as given ({@code vocab} 0: drawn), the rest (vocabulary, context,
     * theta, slots, bits, probe heads) drawn once from its name.
     */
    public record Corner(String name, int dModel, int heads, int kvHeads, int headDim, int lanes, int layers, int[] orders,
            int headsPerOrder, int[] sites, int group, int vocab) {}

    private static final int[] HEAD_DIMS = {8, 24, 40, 72, 100, 8, 24, 40, 72, 100, 16, 64};
    private static final int[] HEAD_COUNTS = {1, 2, 3, 4, 5, 6, 8};
    private static final int MAX_ATTN = 400;
    private static final int[] ODD_WIDTHS = {33, 40, 57, 66, 72, 90, 100, 101, 136, 150};
    private static final int[] SIXTEENS = {48, 80, 96, 144, 160};
    private static final int[] POWERS = {32, 64, 128};
    private static final int[] SLOTS = {8, 16, 31, 64, 97, 128, 256, 512};
    private static final int[] CONTEXTS = {256, 320, 512, 2048, 1 << 16, 1 << 24};
    private static final int[] KV_WINDOWS = {0, 0, 96, 256};
    private static final double[] THETAS = {10000.0, 100000.0, 500000.0, 12345.5};
    /** Bits-map kinds every file has (engram tensors exist only with sites). */
    private static final List<String> PRESENT_KINDS = List.of("embedding", "attn.q_proj", "attn.k_proj", "attn.v_proj",
            "attn.gate_proj", "attn.out_proj", "mhc", "default");
    private static final List<String> WIDTHS = List.of("2", "3", "4", "1.58");

    private GeometryDraws() {}

    /** Geometry {@code index} of the sweep with seed {@code seed}. */
    public static DrawnGeometry draw(long seed, int index) {
        if (index < 0) throw new IllegalArgumentException("index " + index);
        if (index < CORNERS.size()) return corner(CORNERS.get(index), index);
        SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + index);
        int headDim = pick(random, HEAD_DIMS);
        int[] heads = IntStream.of(HEAD_COUNTS).filter(h -> h * headDim <= MAX_ATTN).toArray();
        int h = pick(random, heads);
        int[] divisors = IntStream.rangeClosed(1, h).filter(k -> h % k == 0).toArray();
        int kv = pick(random, divisors);
        double widthKind = random.nextDouble();
        int d = pick(random, widthKind < 0.7 ? ODD_WIDTHS : widthKind < 0.9 ? SIXTEENS : POWERS);
        int layers = 1 + random.nextInt(3);
        int lanes = random.nextDouble() < 0.5 ? 4 : 1 + random.nextInt(3);
        List<Integer> orderValues = new ArrayList<>(List.of(1, 2, 3, 4, 5));
        Collections.shuffle(orderValues, new java.util.Random(random.nextLong()));
        int k = 1 + random.nextInt(4);
        int[] orders = orderValues.subList(0, k).stream().mapToInt(Integer::intValue).toArray();
        int headsPerOrder = explicitHeads(random, k, d);
        List<Integer> layerIds = new ArrayList<>(IntStream.range(0, layers).boxed().toList());
        Collections.shuffle(layerIds, new java.util.Random(random.nextLong()));
        int[] sites = layerIds.subList(0, random.nextInt(Math.min(4, layers) + 1)).stream().mapToInt(Integer::intValue).toArray();
        String name = "g" + String.format("%02d", index) + "-hd" + headDim;
        return build(name, random, 0, d, h, kv, headDim, lanes, layers, orders, headsPerOrder, sites, random.nextBoolean() ? 64 : 128);
    }

    private static DrawnGeometry corner(Corner c, int index) {
        SplittableRandom random = new SplittableRandom(c.name().hashCode());
        return build("g" + String.format("%02d", index) + "-" + c.name(), random, c.vocab(), c.dModel(), c.heads(), c.kvHeads(),
                c.headDim(), c.lanes(), c.layers(), c.orders(), c.headsPerOrder(), c.sites(), c.group());
    }

    /**
     * 0 (upstream's automatic count, {@code max(1, d // (orders * 128))}) or an explicit 1 to 3 heads per
     * order, such that the tables stay at most 8 and each row keeps at least 2 values.
     */
    private static int explicitHeads(SplittableRandom random, int orders, int d) {
        if (random.nextBoolean()) return 0;
        int most = 1;
        for (int heads = 2; heads <= 3; heads++) if (orders * heads <= 8 && d / (orders * heads) >= 2) most = heads;
        return 1 + random.nextInt(most);
    }

    /** The config of these shape fields, the rest drawn from {@code random}; {@code vocab} 0 draws one of 270 to 600. */
    private static DrawnGeometry build(String name, SplittableRandom random, int vocab, int d, int heads, int kvHeads, int headDim,
            int lanes, int layers, int[] orders, int headsPerOrder, int[] sites, int group) {
        Map<String, Object> c = new LinkedHashMap<>();
        int drawnVocab = SyntheticVocab.COMPLETE + random.nextInt(331);
        c.put("vocab_size", (long) (vocab == 0 ? drawnVocab : vocab));
        c.put("d_model", (long) d);
        c.put("attn_dim", (long) heads * headDim);
        c.put("num_heads", (long) heads);
        c.put("num_kv_heads", (long) kvHeads);
        c.put("num_layers", (long) layers);
        c.put("max_seq_len", (long) pick(random, CONTEXTS));
        c.put("rope_theta", THETAS[random.nextInt(THETAS.length)]);
        c.put("engram_orders", longs(orders));
        c.put("engram_heads", (long) headsPerOrder);
        c.put("engram_slots", (long) pick(random, SLOTS));
        c.put("engram_layers", longs(sites));
        c.put("mhc_lanes", (long) lanes);
        c.put("kv_window", (long) pick(random, KV_WINDOWS));
        c.put("kv_bits", 8L);
        int contrastiveDim = 8 + random.nextInt(57);
        c.put("contrastive_dim", (long) contrastiveDim);
        List<ProbeHead> probeHeads = new ArrayList<>();
        for (ProbeHead p : ProbeHead.values()) if (random.nextBoolean()) probeHeads.add(p);
        return new DrawnGeometry(name, c, probeHeads, group, bitsMap(random));
    }

    /** Every width on one of the kinds every file has, then any width on the rest. */
    private static String bitsMap(SplittableRandom random) {
        List<String> kinds = new ArrayList<>(PRESENT_KINDS);
        Collections.shuffle(kinds, new java.util.Random(random.nextLong()));
        Map<String, String> widths = new LinkedHashMap<>();
        for (int i = 0; i < kinds.size(); i++) {
            widths.put(kinds.get(i), i < WIDTHS.size() ? WIDTHS.get(i) : WIDTHS.get(random.nextInt(WIDTHS.size())));
        }
        StringBuilder spec = new StringBuilder();
        for (String kind : PRESENT_KINDS) {
            if (!kind.equals("default")) spec.append(kind).append('=').append(widths.get(kind)).append(',');
        }
        if (random.nextBoolean()) spec.append("engram=").append(WIDTHS.get(random.nextInt(WIDTHS.size()))).append(',');
        return spec.append("default=").append(widths.get("default")).toString();
    }

    private static List<Long> longs(int[] values) {
        return IntStream.of(values).mapToObj(v -> (long) v).toList();
    }

    private static int pick(SplittableRandom random, int[] values) {
        return values[random.nextInt(values.length)];
    }
}
