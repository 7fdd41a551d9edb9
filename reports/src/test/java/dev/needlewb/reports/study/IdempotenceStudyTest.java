package dev.needlewb.reports.study;

import dev.needlewb.converter.cq.CqBlob;
import dev.needlewb.converter.cq.CqCodes;
import dev.needlewb.converter.cq.CqDequantizer;
import dev.needlewb.converter.cq.CqPacking;
import dev.needlewb.converter.cq.CqQuantizer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.WorkbenchException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The incremental, group-wise study against a plain whole-matrix iteration (quantize the whole
 * matrix, dequantize it with {@link CqDequantizer}, keep every state, stop at the first repeat):
 * the same outcome, repeat round and per-round counts.
 */
class IdempotenceStudyTest {

    private static float[] gaussian(long seed, int n, double sigma) {
        Random random = new Random(seed);
        float[] w = new float[n];
        for (int i = 0; i < n; i++) w[i] = (float) (random.nextGaussian() * sigma);
        return w;
    }

    /** The naive trajectory: states[0..], stopping at the first state equal to an earlier one. */
    private record Naive(List<CqCodes> states, int repeatOf) {}

    private static Naive naive(CqQuantizer q, float[] w, int rows, int cols, int maxRounds) throws Exception {
        List<CqCodes> states = new ArrayList<>();
        states.add(q.quantize("naive", w, rows, cols));
        for (int round = 1; round <= maxRounds; round++) {
            CqCodes prev = states.get(round - 1);
            float[] deq = CqDequantizer.dequantize(blob(prev), q.codebook());
            CqCodes next = q.quantize("naive", deq, rows, cols);
            states.add(next);
            for (int j = 0; j < round; j++) {
                if (same(states.get(j), next)) return new Naive(states, j);
            }
        }
        return new Naive(states, -1);
    }

    private static boolean same(CqCodes a, CqCodes b) {
        return Arrays.equals(a.codes(), b.codes()) && Arrays.equals(a.norms(), b.norms());
    }

    private static CqBlob blob(CqCodes c) {
        byte[] packed = CqPacking.pack(c.codes(), c.recordBits());
        ByteBuffer data = ByteBuffer.allocate(packed.length + 2 * c.norms().length).order(ByteOrder.nativeOrder());
        data.put(packed);
        for (short n : c.norms()) data.putShort(n);
        return new CqBlob(c.rows(), c.cols(), c.group(), c.recordBits(), MemorySegment.ofArray(data.array()));
    }

    private static long differingCodes(CqCodes a, CqCodes b) {
        long n = 0;
        for (int i = 0; i < a.codes().length; i++) if (a.codes()[i] != b.codes()[i]) n++;
        return n;
    }

    private static long differingNorms(CqCodes a, CqCodes b) {
        long n = 0;
        for (int i = 0; i < a.norms().length; i++) if (a.norms()[i] != b.norms()[i]) n++;
        return n;
    }

    /**
     * Weights of N(0, 0.02) never repeat within 20 rounds (every norm shrinks each round by the norm
     * of its codebook vector, below 1); weights near float16's smallest norms reach fixed points,
     * some after many rounds, because there a shrink smaller than half an ulp rounds back.
     */
    @ParameterizedTest(name = "bits {0}, group {1}, [{2}, {3}], sigma {4}")
    @CsvSource({"2, 128, 24, 512, 0.02", "3, 128, 16, 200, 3e-8", "4, 128, 16, 384, 0.02", "5, 128, 64, 512, 1e-7",
            "2, 128, 64, 512, 3e-8", "2, 64, 16, 320, 3e-8", "4, 64, 8, 100, 0.02"})
    void agreesWithTheWholeMatrixIteration(int bits, int group, int rows, int cols, double sigma) throws Exception {
        CqQuantizer q = CqQuantizer.of(bits, group);
        float[] w = gaussian(31L * bits + group + cols, rows * cols, sigma);
        Naive expected = naive(q, w, rows, cols, IdempotenceStudy.MAX_ROUNDS);
        IdempotenceStudy study = IdempotenceStudy.fromWeights("random", q, w, rows, cols);
        IdempotenceResult result = study.run(IdempotenceStudy.MAX_ROUNDS, r -> {});

        int last = expected.states().size() - 1;
        assertThat(result.rounds()).hasSize(last);
        assertThat(same(study.state(), expected.states().get(last))).isTrue();
        for (IdempotenceRound r : result.rounds()) {
            CqCodes before = expected.states().get(r.round() - 1);
            CqCodes after = expected.states().get(r.round());
            assertThat(r.codesChanged()).as("codes changed in round %d", r.round()).isEqualTo(differingCodes(before, after));
            assertThat(r.normsChanged()).as("norms changed in round %d", r.round()).isEqualTo(differingNorms(before, after));
        }
        assertThat(result.cycleStart()).isEqualTo(expected.repeatOf());
        if (expected.repeatOf() < 0) {
            assertThat(result.outcome()).isEqualTo(IdempotenceResult.Outcome.NO_REPEAT);
        } else {
            assertThat(result.cycleLength()).isEqualTo(last - expected.repeatOf());
            assertThat(result.outcome()).isEqualTo(last - expected.repeatOf() == 1
                    ? IdempotenceResult.Outcome.FIXED_POINT : IdempotenceResult.Outcome.CYCLE);
        }
    }

    @Test
    void allZeroRowsAreAnImmediateFixedPoint() throws WorkbenchException {
        IdempotenceStudy study = IdempotenceStudy.fromWeights("zeros", CqQuantizer.of(2, 128), new float[4 * 300], 4, 300);
        IdempotenceResult result = study.run(IdempotenceStudy.MAX_ROUNDS, r -> {});
        assertThat(result.outcome()).isEqualTo(IdempotenceResult.Outcome.FIXED_POINT);
        assertThat(result.cycleStart()).isZero();
        assertThat(result.rounds()).hasSize(1);
        IdempotenceRound first = result.rounds().getFirst();
        assertThat(first.groupsChanged()).isZero();
        assertThat(first.maxAbsWeightChange()).isZero();
        assertThat(result.inputMaxAbsError()).isZero();
        assertThat(result.groupsByStart()).containsExactly(12, 0);
    }

    @Test
    void roundLimitWithoutRepeatReportsNoRepeat() throws WorkbenchException {
        float[] w = gaussian(5, 8 * 256, 0.02);
        IdempotenceStudy study = IdempotenceStudy.fromWeights("limited", CqQuantizer.of(2, 128), w, 8, 256);
        // Every nonzero group's norm changes in round 1 (see cq_roundtrip.json), so one round cannot repeat.
        IdempotenceResult result = study.run(1, r -> {});
        assertThat(result.outcome()).isEqualTo(IdempotenceResult.Outcome.NO_REPEAT);
        assertThat(result.cycleStart()).isEqualTo(-1);
        assertThat(result.rounds()).hasSize(1);
    }

    @Test
    void startingFromCodesReproducesStartingFromTheirWeights() throws WorkbenchException {
        CqQuantizer q = CqQuantizer.of(4, 128);
        float[] w = gaussian(9, 8 * 256, 0.02);
        IdempotenceResult fromWeights = IdempotenceStudy.fromWeights("w", q, w, 8, 256).run(20, r -> {});
        IdempotenceResult fromCodes = IdempotenceStudy.fromCodes("c", q.quantize("w", w, 8, 256)).run(20, r -> {});
        assertThat(fromCodes.rounds()).isEqualTo(fromWeights.rounds());
        assertThat(fromCodes.inputMaxAbsError()).isNaN();
    }
}
