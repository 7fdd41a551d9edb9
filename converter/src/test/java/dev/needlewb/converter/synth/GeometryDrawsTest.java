package dev.needlewb.converter.synth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.v2.GeometryRules;
import dev.needlewb.converter.flax.FlaxConfig;
import dev.needlewb.converter.names.BitsMap;
import dev.needlewb.core.v2.Geometry;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Every drawn geometry is one upstream's exporter writes (the postconditions of docs/geometry.md's
 * recipe, and the workbench's own header rules), draws repeat exactly per (seed, index), and over a
 * few hundred draws the corners the sweep is for all occur.
 */
class GeometryDrawsTest {
    @Test
    void everyDrawKeepsUpstreamsRules() throws Exception {
        Set<Integer> headDims = new TreeSet<>(), groups = new TreeSet<>(), lanes = new TreeSet<>(), orderCounts = new TreeSet<>(),
                siteCounts = new TreeSet<>(), ratios = new TreeSet<>();
        Set<String> widths = new HashSet<>();
        int dNotSixteen = 0, attnNotD = 0, shortTables = 0, autoHeads = 0;
        for (long seed : new long[] {1, 2026}) {
            for (int i = 0; i < 300; i++) {
                DrawnGeometry drawn = GeometryDraws.draw(seed, i);
                FlaxConfig c = drawn.flaxConfig();
                Geometry g = drawn.geometry();
                assertThat(GeometryRules.check(g)).as(drawn.describe()).isNull();
                assertThat(c.headDim() % 2).isZero();
                assertThat(c.attnDim()).isEqualTo(c.numHeads() * c.headDim());
                assertThat(c.numHeads() % c.numKvHeads()).isZero();
                assertThat(g.hadaN()).isEqualTo(Integer.highestOneBit(2 * c.dModel() - 1));
                int[] orders = c.engramOrders();
                assertThat(orders.length).isBetween(1, 4);
                assertThat(Arrays.stream(orders).distinct().count()).isEqualTo(orders.length);
                assertThat(Arrays.stream(orders).min().orElseThrow()).isPositive();
                int[] sites = c.engramLayers();
                assertThat(Arrays.stream(sites).distinct().count()).isEqualTo(sites.length);
                assertThat(Arrays.stream(sites).allMatch(s -> s >= 0 && s < c.numLayers())).isTrue();
                assertThat(g.numEngramTables()).isEqualTo(orders.length * c.engramHeadsPerOrder());
                assertThat(g.engramSubDim()).isPositive();
                assertThat(g.engramConvDilation()).isEqualTo(Arrays.stream(orders).max().orElseThrow());
                assertThat(drawn.group()).isIn(64, 128);
                assertThat(c.vocabSize()).isGreaterThanOrEqualTo(SyntheticVocab.COMPLETE);
                assertThat(GeometryDraws.draw(seed, i)).as("the same draw again").isEqualTo(drawn);
                BitsMap bits = BitsMap.parse(drawn.bitsMap());
                assertThat(bits).isNotNull();
                for (String w : new String[] {"=2", "=3", "=4", "=1.58"}) if (drawn.bitsMap().contains(w)) widths.add(w);
                headDims.add(c.headDim());
                groups.add(drawn.group());
                lanes.add(c.mhcLanes());
                orderCounts.add(orders.length);
                siteCounts.add(sites.length);
                ratios.add(c.numHeads() / c.numKvHeads());
                if (c.dModel() % 16 != 0) dNotSixteen++;
                if (c.attnDim() != c.dModel()) attnNotD++;
                if (g.numEngramTables() * g.engramSubDim() < c.dModel()) shortTables++;
                if ((Long) drawn.config().get("engram_heads") == 0) autoHeads++;
            }
        }
        assertThat(headDims).containsExactly(8, 16, 24, 40, 64, 72, 100);
        assertThat(groups).containsExactly(64, 128);
        assertThat(lanes).containsExactly(1, 2, 3, 4);
        assertThat(orderCounts).containsExactly(1, 2, 3, 4);
        assertThat(siteCounts).containsExactly(0, 1, 2, 3);
        assertThat(ratios).contains(1, 2, 3, 4, 5);
        assertThat(widths).containsExactlyInAnyOrder("=2", "=3", "=4", "=1.58");
        assertThat(dNotSixteen).isGreaterThan(300);
        assertThat(attnNotD).isGreaterThan(300);
        assertThat(shortTables).isGreaterThan(50);
        assertThat(autoHeads).isGreaterThan(100);
    }

    @Test
    void theFirstDrawsAreTheCornersWhateverTheSeed() throws Exception {
        for (int i = 0; i < GeometryDraws.CORNERS.size(); i++) {
            DrawnGeometry a = GeometryDraws.draw(1, i), b = GeometryDraws.draw(99, i);
            assertThat(a).isEqualTo(b);
            assertThat(a.name()).endsWith(GeometryDraws.CORNERS.get(i).name());
            assertThat(a.geometry().headDim()).isEqualTo(GeometryDraws.CORNERS.get(i).headDim());
        }
        // issue 33's file: d_model 96, 4 query heads / 2 kv heads of 24, vocab 384
        Geometry issue = GeometryDraws.draw(0, GeometryDraws.CORNERS.size() - 1).geometry();
        assertThat(new int[] {issue.dModel(), issue.numHeads(), issue.numKvHeads(), issue.headDim(), issue.vocab()})
                .containsExactly(96, 4, 2, 24, 384);
        assertThat(GeometryDraws.draw(1, 20)).isNotEqualTo(GeometryDraws.draw(2, 20));
    }
}
