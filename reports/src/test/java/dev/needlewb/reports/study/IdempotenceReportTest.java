package dev.needlewb.reports.study;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import dev.needlewb.converter.cq.CqCodes;
import dev.needlewb.converter.cq.CqQuantizer;
import dev.needlewb.reports.report.Chart;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.data.category.CategoryDataset;
import org.junit.jupiter.api.Test;

/**
 * The idempotence report's prose and charts follow its rounds: studies built from contrived rounds
 * whose norms grow, shrink, do both or stay put must each be described as they are.
 */
class IdempotenceReportTest {

    /** A tensor whose summed norms go {@code initial} -> {@code sums}, with {@code codes[r-1]} codes changed in round r. */
    private static IdempotenceResult tensor(String name, int bits, double initial, double[] sums, long[] codes,
            IdempotenceResult.Outcome outcome, int cycleStart, long cycleLength) {
        List<IdempotenceRound> rounds = new ArrayList<>();
        for (int r = 1; r <= sums.length; r++) {
            rounds.add(new IdempotenceRound(r, 8, 8, codes[r - 1], 8, 3, sums[r - 1], 1e-3, 1e-4, 0));
        }
        return new IdempotenceResult(name, 8, 128, bits, 128, 8, 6, Double.NaN, Double.NaN, initial, rounds, outcome,
                cycleStart, cycleLength, 0, new long[] {0});
    }

    private static IdempotenceResult running(String name, double initial, double... sums) {
        return tensor(name, 2, initial, sums, new long[sums.length], IdempotenceResult.Outcome.NO_REPEAT, -1, 0);
    }

    private static IdempotenceReport report(int maxRounds, IdempotenceResult... results) {
        return new IdempotenceReport("cact", maxRounds, List.of(results), List.of(), null);
    }

    @Test
    void normsThatGrowAreSaidToGrowWithTheirSizes() {
        // +10% a round: 100 -> 110 -> 121 -> 133.1, +33.1% in all
        IdempotenceReport r = report(3, running("a.proj", 100, 110, 121, 133.1), running("b.proj", 50, 60, 72, 86.4));
        String f = r.findings();
        assertThat(f).contains("Here the summed norms of all 2 tensors grew in every round, so that mean was above 1 in every round"
                + " (last round against round 0: +33.1% to +72.8%).");
        assertThat(f).contains("All tensors together, each at its last round against round 0: +46.3%.");
        assertThat(f).doesNotContain("shr", "below");
        String md = r.markdown();
        assertThat(md).contains("| a.proj | 8x128 | cq2 | none in 3 |", "grew in each of its 3 rounds (+10.0% per round) | +33.1% |",
                "grew in each of its 3 rounds (+20.0% per round) | +72.8% |");
    }

    @Test
    void normsThatShrinkAreSaidToShrink() {
        String f = report(2, running("w", 100, 90, 81)).findings();
        assertThat(f).contains("Here the summed norms of the tensor shrank in every round, so that mean was below 1 in every round"
                + " (last round against round 0: -19.0%).");
        assertThat(f).doesNotContain("grew", "above");
    }

    @Test
    void tensorsGoingDifferentWaysAreNamedByDirection() {
        IdempotenceResult settles = tensor("settles", 4, 100, new double[] {95, 95}, new long[] {7, 0},
                IdempotenceResult.Outcome.FIXED_POINT, 1, 1);
        IdempotenceReport r = report(2, running("up", 100, 101, 102.01), running("down", 100, 99, 98.01), settles);
        String f = r.findings();
        assertThat(f).contains("Here the direction differs: grew in every round: up; shrank in every round: down;"
                + " different directions from round to round: settles (per tensor in the table).");
        assertThat(f).doesNotContain("above 1", "below 1");
        assertThat(r.markdown()).contains("| settles | 8x128 | cq4 | fixed point after 1 |", "shrank in round 1, then unchanged in round 2 | -5.00% |");
    }

    @Test
    void unchangedAndAllZeroNormsAreNotCalledDrift() {
        assertThat(report(3, running("flat", 100, 100, 100, 100)).findings())
                .contains("Here the summed norms of the tensor stayed the same in every round, so that mean was 1.");
        IdempotenceResult zeros = tensor("zeros", 2, 0, new double[] {0}, new long[] {0}, IdempotenceResult.Outcome.FIXED_POINT, 0, 1);
        IdempotenceReport r = report(6, zeros);
        assertThat(r.findings()).contains("Here every group norm of the tensor is 0: there is nothing to scale.")
                .doesNotContain("mean was");
        assertThat(r.markdown()).contains("unchanged in its one round | n/a |");
    }

    @Test
    void oneRoundIsNotEveryRound() {
        String f = report(1, running("once", 100, 97)).findings();
        assertThat(f).contains("shrank in the one round run, so that mean was below 1 (last round against round 0: -3.00%).")
                .doesNotContain("every round");
        assertThat(report(1, running("once", 100, 97)).markdown()).contains("shrank in its one round (-3.00%)");
    }

    @Test
    void roundsAreCategoriesAndStoppedTensorsContinueOnTheirFixedPoint() {
        // "settles" stops after round 2 (round 2 reproduced round 1); "runs" changes codes in every round of 4
        IdempotenceResult settles = tensor("settles", 4, 100, new double[] {95, 95}, new long[] {7, 0},
                IdempotenceResult.Outcome.FIXED_POINT, 1, 1);
        IdempotenceResult runs = tensor("runs", 4, 100, new double[] {110, 120, 130, 140}, new long[] {5, 4, 3, 0},
                IdempotenceResult.Outcome.NO_REPEAT, -1, 0);
        IdempotenceReport r = report(4, settles, runs);

        CategoryPlot codes = r.codesChangedChart().chart().getCategoryPlot();
        CategoryDataset c = codes.getDataset();
        assertThat(c.getColumnKeys()).containsExactly("1", "2", "3", "4");
        assertThat(codes.getDomainAxis()).isInstanceOf(CategoryAxis.class);
        assertThat(c.getRowKeys()).containsExactly("cq4");
        assertThat(List.of(c.getValue("cq4", "1"), c.getValue("cq4", "2"), c.getValue("cq4", "3"), c.getValue("cq4", "4")))
                .containsExactly(12.0, 4.0, 3.0, 0.0);

        CategoryDataset drift = r.normDriftChart().chart().getCategoryPlot().getDataset();
        assertThat(drift.getColumnKeys()).containsExactly("0", "1", "2", "3", "4");
        // round 4: settles still at 95, runs at 140, against 200 at round 0
        assertThat(drift.getValue("cq4", "4").doubleValue()).isCloseTo(100 * (235.0 / 200 - 1), offset(1e-12));
        assertThat(drift.getValue("cq4", "0").doubleValue()).isZero();

        CategoryDataset repeat = r.repeatChart().chart().getCategoryPlot().getDataset();
        assertThat(repeat.getColumnKeys()).containsExactly("settles", "runs (none in 4)");
        assertThat(repeat.getRowKeys()).containsExactly("fixed point");
        assertThat(repeat.getValue("fixed point", "settles")).isEqualTo(1.0);
        assertThat(repeat.getValue("fixed point", "runs (none in 4)")).isNull();
    }

    @Test
    void aCycleContinuesAlongItsCycle() {
        // 100 -> 90 -> 80 -> 90 : round 3 repeats round 1, a cycle of 2 from round 1
        IdempotenceResult cycle = tensor("cycle", 2, 100, new double[] {90, 80, 90}, new long[] {4, 6, 6},
                IdempotenceResult.Outcome.CYCLE, 1, 2);
        IdempotenceResult longer = running("longer", 100, 100, 100, 100, 100, 100);
        IdempotenceReport r = report(5, cycle, longer);
        CategoryDataset codes = r.codesChangedChart().chart().getCategoryPlot().getDataset();
        assertThat(List.of(codes.getValue("cq2", "4"), codes.getValue("cq2", "5"))).containsExactly(6.0, 6.0);
        CategoryDataset drift = r.normDriftChart().chart().getCategoryPlot().getDataset();
        // round 4 = round 2 (80), round 5 = round 3 (90), plus the flat tensor's 100, against 200
        assertThat(drift.getValue("cq2", "4").doubleValue()).isCloseTo(-10.0, offset(1e-12));
        assertThat(drift.getValue("cq2", "5").doubleValue()).isCloseTo(-5.0, offset(1e-12));
    }

    /**
     * Real studies whose truths differ: quantized N(0, 0.02) weights pick centres whose RMS is
     * below 1 (Lloyd-Max reduces the variance), uniformly random 2-bit codes pick the outer
     * centres half the time, RMS above 1. The findings must follow each.
     */
    @Test
    void gaussianWeightsShrinkAndRandomCodesGrowInARealStudy() throws Exception {
        Random random = new Random(36);
        float[] w = new float[16 * 256];
        for (int i = 0; i < w.length; i++) w[i] = (float) (random.nextGaussian() * 0.02);
        IdempotenceResult gaussian = IdempotenceStudy.fromWeights("gaussian", CqQuantizer.of(2, 128), w, 16, 256)
                .run(4, r -> {});
        byte[] codes = new byte[16 * 256];
        for (int i = 0; i < codes.length; i++) codes[i] = (byte) random.nextInt(4);
        short[] norms = new short[16 * 2];
        Arrays.fill(norms, Float.floatToFloat16(0.5f));
        IdempotenceResult uniform = IdempotenceStudy.fromCodes("uniform", new CqCodes(16, 256, 2, 128, codes, norms))
                .run(4, r -> {});

        assertThat(report(4, gaussian).findings()).contains("shrank in every round, so that mean was below 1");
        assertThat(report(4, uniform).findings()).contains("grew in every round, so that mean was above 1");
        assertThat(report(4, gaussian, uniform).findings())
                .contains("Here the direction differs: shrank in every round: gaussian; grew in every round: uniform");
    }

    @Test
    void theJsonCountsTheDirections() {
        IdempotenceResult settles = tensor("settles", 4, 100, new double[] {95, 95}, new long[] {7, 0},
                IdempotenceResult.Outcome.FIXED_POINT, 1, 1);
        var t = report(2, settles).toReport(new String[] {"test"}).body().get("tensors").get(0).get("norm_sum_rounds");
        assertThat(t.get("grew").asLong()).isZero();
        assertThat(t.get("shrank").asLong()).isEqualTo(1);
        assertThat(t.get("unchanged").asLong()).isEqualTo(1);
    }

    @Test
    void chartsDrawWithoutDegenerateAxes() {
        IdempotenceReport r = report(3, running("a", 100, 110, 121, 133.1));
        for (Chart chart : List.of(r.codesChangedChart(), r.codesChangedHeatmap(), r.normDriftChart())) {
            assertThat(chart.png()).isNotEmpty();
        }
        var y = r.codesChangedChart().chart().getCategoryPlot().getRangeAxis();
        assertThat(y.getUpperBound()).as("all-zero counts still get a range").isGreaterThan(y.getLowerBound());
    }
}
