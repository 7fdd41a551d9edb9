package dev.needlewb.converter.synth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.converter.names.BitsMap;
import dev.needlewb.converter.v3.V3Checkpoints;
import dev.needlewb.converter.v3.V3Header;
import dev.needlewb.converter.v3.V3KvBudget;
import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.core.v3.V3Geometry;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every drawn Needle 3 geometry is one upstream's exporter writes from a config its architecture builds (the
 * header passes the workbench's Needle 3 header rules, the checkpoint's names resolve as {@code convert} resolves
 * them), draws repeat exactly per (seed, index), and over a few hundred draws every branch of every rule the
 * sweep is for occurs: conv taps off and on up to the most drawn, windows off, below and above the prompt, global
 * layer sets from none to all and past the stack, qk != v and derived head dims, both gates, both factor modes,
 * both permutation kinds, seed strides, out_vocab cuts, every bits scheme and group.
 */
class V3GeometryDrawsTest {
    /** The sweep's prompt lengths: the test's 12 and the command's default 20. */
    private static final int SHORT_PROMPT = 12, PROMPT = 20;

    @Test
    void everyDrawKeepsUpstreamsRulesAndCoversEveryBranch() throws Exception {
        Set<String> branches = new TreeSet<>();
        Set<Integer> taps = new TreeSet<>(), lanes = new TreeSet<>(), layers = new TreeSet<>(), orderCounts = new TreeSet<>(),
                siteCounts = new TreeSet<>(), groups = new TreeSet<>();
        Set<String> bits = new HashSet<>();
        for (long seed : new long[] {1, 2026}) {
            for (int i = 0; i < 250; i++) {
                DrawnV3Geometry drawn = V3GeometryDraws.draw(seed, i);
                V3Config c = drawn.v3Config();
                V3Geometry g = drawn.geometry();
                String what = drawn.describe();
                assertThat(V3Header.INSTANCE.problem(g)).as(what).isNull();
                Set<String> headPaths = drawn.heads().stream().map(h -> h.key() + "/probes").collect(Collectors.toSet());
                assertThat(V3Checkpoints.names(c, headPaths).rows()).as(what).isNotEmpty();
                assertThat(V3GeometryDraws.draw(seed, i)).as("the same draw again").isEqualTo(drawn);
                assertThat(drawn.name()).startsWith(String.format("v3-g%02d-", i));

                // what upstream's constructor and model need (architecture.py), and what the header says of it
                assertThat(g.qkHeadDim() % 2).as(what).isZero();
                assertThat(g.numHeads() % g.numKvHeads()).as(what).isZero();
                assertThat(g.hadaN()).isEqualTo(Integer.highestOneBit(2 * g.dModel() - 1));
                int[] orders = g.engramOrders();
                assertThat(orders.length).isBetween(1, 4);
                assertThat(Arrays.stream(orders).distinct().count()).isEqualTo(orders.length);
                assertThat(Arrays.stream(orders).allMatch(o -> o >= 1 && o <= 5)).isTrue();
                int[] sites = g.engramSites();
                assertThat(Arrays.stream(sites).distinct().count()).as(what).isEqualTo(sites.length);
                assertThat(Arrays.stream(sites).allMatch(s -> s >= 0 && s < g.numLayers())).isTrue();
                assertThat(g.engramSubDim()).isPositive();
                assertThat(g.outVocab()).isBetween(1, g.vocab());
                assertThat(g.vocab()).isGreaterThanOrEqualTo(V3GeometryDraws.COMPLETE_VOCAB);
                assertThat(g.kvBits()).isEqualTo(8);
                assertThat(g.kvWindow()).isEqualTo(V3KvBudget.effectiveWindow(c));
                // read_export's global layers: the config's below num_layers, whatever else the config lists
                assertThat(g.globalLayers()).as(what).containsExactly(c.globalLayers().stream().filter(l -> l < c.numLayers()).sorted()
                        .mapToInt(Integer::intValue).toArray());
                BitsMap map = BitsMap.parse(drawn.bitsMap());
                assertThat(map).isNotNull();
                assertThat(drawn.bitsMap()).doesNotContain("=3", "=1.58");
                assertThat(drawn.group()).isIn(64, 128);

                taps.add(g.qkvConvTaps());
                lanes.add(g.mhcLanes());
                layers.add(g.numLayers());
                orderCounts.add(orders.length);
                siteCounts.add(sites.length);
                groups.add(drawn.group());
                bits.add(drawn.bitsMap().equals("default=4") ? "upstream" : drawn.bitsMap().equals("embedding=4,mhc=4,default=2") ? "shipped" : "mixed");
                int window = g.slidingWindow();
                int global = g.globalLayers().length;
                if (window == 0) branches.add("window off");
                if (window > 0 && window < SHORT_PROMPT) branches.add("window below the prompt");
                if (window > PROMPT) branches.add("window above the prompt");
                if (window > 0 && global == 0) branches.add("no global layer");
                if (window > 0 && global == g.numLayers()) branches.add("every layer global");
                if (window > 0 && global > 0 && global < g.numLayers()) branches.add("some layers global");
                if (c.globalLayers().stream().anyMatch(l -> l >= c.numLayers())) branches.add("global layer past the stack");
                if (c.globalLayers().stream().anyMatch(l -> l >= V3Geometry.MAX_LAYERS)) branches.add("global layer past the mask");
                if (g.qkHeadDim() != g.vHeadDim()) branches.add("qk != v");
                if (g.vHeadDim() > g.qkHeadDim()) branches.add("v > qk");
                if (g.vHeadDim() % 2 != 0) branches.add("odd v");
                if (c.qkHeadDim() == 0) branches.add("derived head dims");
                if (g.numKvHeads() == 1 && g.numHeads() > 1) branches.add("mqa");
                if (g.numKvHeads() == g.numHeads()) branches.add("mha");
                branches.add("gate " + c.attentionGate());
                branches.add("factors " + c.hadaFactorMode());
                branches.add(c.splitPermutations() ? "split permutations" : "whole permutations");
                int heads = g.engramHeads();
                if (c.engramSeedHeads() == 0) branches.add("seed stride = heads");
                if (c.engramSeedHeads() != 0 && c.engramSeedHeads() < heads) branches.add("seed stride < heads");
                if (c.engramSeedHeads() > heads) branches.add("seed stride > heads");
                if ((Long) drawn.config().get("engram_heads") == 0) branches.add("automatic engram heads");
                if (g.numEngramTables() * g.engramSubDim() < g.dModel()) branches.add("tables short of d_model");
                if (g.outVocabField() == 0) branches.add("out_vocab 0");
                if (g.outVocabField() == g.vocab()) branches.add("out_vocab = vocab");
                if (g.outVocabField() != 0 && g.outVocabField() < g.vocab()) branches.add("out_vocab cut");
                if ((Long) drawn.config().get("kv_bits") == 0) branches.add("kv_bits 0 written as 8");
                if (g.dModel() % 2 != 0) branches.add("odd d_model");
                if (g.hadaN() == g.dModel()) branches.add("hada_n = d_model");
                for (V3ProbeHead h : drawn.heads()) branches.add("head " + h);
                if (drawn.heads().isEmpty()) branches.add("no heads");
            }
        }
        assertThat(taps).containsExactly(0, 1, 2, 3, 4, 7);
        assertThat(lanes).containsExactly(1, 2, 3, 4);
        assertThat(layers).containsExactly(1, 2, 3, 4);
        assertThat(orderCounts).containsExactly(1, 2, 3, 4);
        assertThat(siteCounts).containsExactly(0, 1, 2, 3, 4);
        assertThat(groups).containsExactly(64, 128);
        assertThat(bits).containsExactlyInAnyOrder("upstream", "shipped", "mixed");
        assertThat(branches).containsAll(List.of("window off", "window below the prompt", "window above the prompt", "no global layer",
                "every layer global", "some layers global", "global layer past the stack", "global layer past the mask", "qk != v", "v > qk",
                "odd v", "derived head dims", "mqa", "mha", "gate ELEMENTWISE", "gate HEADWISE", "factors SHARED", "factors BLOCK_UNTIED",
                "split permutations", "whole permutations", "seed stride = heads", "seed stride < heads", "seed stride > heads",
                "automatic engram heads", "tables short of d_model", "out_vocab 0", "out_vocab = vocab", "out_vocab cut",
                "kv_bits 0 written as 8", "odd d_model", "hada_n = d_model", "head EMBEDDING", "head CONFIDENCE", "head ROUTER", "no heads"));
    }

    @Test
    void theFirstDrawsAreTheCornersWhateverTheSeedAndTheRestFollowTheSeed() throws Exception {
        for (int i = 0; i < V3GeometryDraws.CORNERS.size(); i++) {
            DrawnV3Geometry a = V3GeometryDraws.draw(1, i), b = V3GeometryDraws.draw(99, i);
            assertThat(a).isEqualTo(b);
            assertThat(a.name()).endsWith(V3GeometryDraws.CORNERS.get(i).name());
        }
        assertThat(V3GeometryDraws.draw(1, 20)).isNotEqualTo(V3GeometryDraws.draw(2, 20));
        // the six corners alone already take the branches a three-draw sweep test relies on
        Set<String> corners = new TreeSet<>();
        for (int i = 0; i < V3GeometryDraws.CORNERS.size(); i++) {
            V3Geometry g = V3GeometryDraws.draw(0, i).geometry();
            if (g.slidingWindow() == 0) corners.add("window off");
            if (g.slidingWindow() > 0 && g.slidingWindow() < SHORT_PROMPT) corners.add("window below the prompt");
            if (g.slidingWindow() > PROMPT) corners.add("window above the prompt");
            if (g.qkvConvTaps() == 0) corners.add("no taps");
            if (g.qkvConvTaps() > 0) corners.add("taps");
            if (g.qkHeadDim() != g.vHeadDim()) corners.add("qk != v");
        }
        assertThat(corners).containsExactly("no taps", "qk != v", "taps", "window above the prompt", "window below the prompt", "window off");
    }
}
