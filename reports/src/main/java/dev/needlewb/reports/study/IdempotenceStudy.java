package dev.needlewb.reports.study;

import dev.needlewb.converter.cq.CqBlob;
import dev.needlewb.converter.cq.CqCodes;
import dev.needlewb.converter.cq.CqGroupMap;
import dev.needlewb.converter.cq.CqPacking;
import dev.needlewb.converter.cq.CqQuantizer;
import dev.needlewb.converter.cq.InvalidCodeException;
import dev.needlewb.core.WorkbenchException;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * Iterates upstream's map s -> quantize(dequantize(s)) on one CQ tensor until its codes and norms
 * equal those of an earlier round (a fixed point when it is the previous round, else a cycle) or
 * the round limit. Dequantization is bit-exact upstream {@code read_export}; quantization is
 * {@link CqQuantizer}, which agrees with upstream's exporter away from float32 decision
 * boundaries.
 *
 * <p>Each CQ group evolves on its own (its dequantization depends only on its codes, norm and
 * position in the row; its quantization only on its own weights), so a round recomputes only the
 * groups that changed in the previous round: a group that did not change has reached a fixed
 * point. Fixed points and cycles are found per group ({@link GroupCycles}); the tensor repeats
 * once every group does, from the latest group start with the least common multiple of the group
 * periods.
 */
public final class IdempotenceStudy {
    /** The most rounds a study runs. */
    public static final int MAX_ROUNDS = 20;

    private final String tensor;
    private final CqGroupMap map;
    private final int rows;
    private final int cols;
    private final int recordBits;
    private final int group;
    private final int groups;
    private final byte[] codes0;
    private final short[] norms0;
    private final byte[] codes;
    private final short[] norms;
    private final float[] weights;
    private final double inputMaxAbsError;
    private final double inputRmsError;
    private final double initialNormSum;
    private final GroupCycles cycles;
    private final List<IdempotenceRound> rounds = new ArrayList<>();
    private int[] active;
    private int activeCount;
    private GroupCycles.Repeat repeat;
    private boolean failed;

    private IdempotenceStudy(String tensor, CqQuantizer quantizer, CqCodes start, float[] input) {
        if (!CqGroupMap.supportsGroup(start.group())) {
            throw new IllegalArgumentException("tensor " + tensor + ": CQ group " + start.group()
                    + " (the study reproduces upstream's dequantization for groups 64 and 128)");
        }
        this.tensor = tensor;
        this.map = new CqGroupMap(tensor, quantizer, start.cols());
        this.rows = start.rows();
        this.cols = start.cols();
        this.recordBits = start.recordBits();
        this.group = start.group();
        this.groups = start.norms().length;
        this.codes0 = start.codes();
        this.norms0 = start.norms();
        this.codes = codes0.clone();
        this.norms = norms0.clone();
        this.weights = new float[codes.length];
        int inPad = start.inPad();
        if (input != null) {
            for (int r = 0; r < rows; r++) System.arraycopy(input, r * cols, weights, r * inPad, cols);
        }
        this.active = new int[groups];
        Arrays.setAll(active, g -> g);
        this.activeCount = groups;
        CqGroupMap.Change error = map.dequantize(active, groups, codes, norms, weights);
        this.inputMaxAbsError = input == null ? Double.NaN : error.maxAbs();
        this.inputRmsError = input == null ? Double.NaN : rms(error);
        this.initialNormSum = normSum();
        long[] prints = new long[groups];
        for (int g = 0; g < groups; g++) prints[g] = GroupFingerprint.of(codes, g * group, group, norms[g]);
        this.cycles = new GroupCycles(prints);
    }

    /** Round 0 = the given codes and norms (e.g. a {@code .cact} tensor as stored). */
    public static IdempotenceStudy fromCodes(String tensor, CqCodes start) {
        return new IdempotenceStudy(tensor, CqQuantizer.of(start.recordBits(), start.group()), start, null);
    }

    /** Round 0 = the stored codes of a CQ blob. */
    public static IdempotenceStudy fromBlob(String tensor, CqBlob blob) throws InvalidCodeException {
        if (blob.rows() * blob.inPad() > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("tensor " + tensor + ": [" + blob.rows() + ", " + blob.cols()
                    + "] does not fit one Java array");
        }
        int rows = (int) blob.rows();
        int inPad = (int) blob.inPad();
        byte[] codes = new byte[rows * inPad];
        byte[] row = new byte[inPad];
        for (int r = 0; r < rows; r++) {
            int bad = CqPacking.unpackRow(blob.data(), r * blob.rowBytes(), inPad, blob.recordBits(), row);
            if (bad >= 0) {
                throw new InvalidCodeException(r * blob.rowBytes() + bad / 4,
                        "ternary crumb 2 (no trit) at row " + r + ", column " + bad);
            }
            System.arraycopy(row, 0, codes, r * inPad, inPad);
        }
        short[] norms = blob.norms().toArray(ValueLayout.JAVA_SHORT_UNALIGNED);
        return fromCodes(tensor, new CqCodes(rows, (int) blob.cols(), blob.recordBits(), blob.group(), codes, norms));
    }

    /** Round 0 = quantize(w) of the row-major {@code [rows, cols]} float32 weights. */
    public static IdempotenceStudy fromWeights(String tensor, CqQuantizer quantizer, float[] w, int rows, int cols)
            throws WorkbenchException {
        return new IdempotenceStudy(tensor, quantizer, quantizer.quantize(tensor, w, rows, cols), w);
    }

    /** Runs rounds until the state repeats or {@code maxRounds} (at most {@value #MAX_ROUNDS}); reports each round done. */
    public IdempotenceResult run(int maxRounds, IntConsumer roundDone) throws WorkbenchException {
        if (maxRounds < 1 || maxRounds > MAX_ROUNDS) {
            throw new IllegalArgumentException("rounds must be in [1, " + MAX_ROUNDS + "], got " + maxRounds);
        }
        while (repeat == null && rounds.size() < maxRounds) {
            next();
            roundDone.accept(rounds.size());
        }
        long onCycles = 0;
        long[] byStart = new long[rounds.size() + 1];
        for (int g = 0; g < groups; g++) {
            if (!cycles.settled(g)) continue;
            byStart[cycles.cycleStart(g)]++;
            if (cycles.period(g) > 1) onCycles++;
        }
        IdempotenceResult.Outcome outcome = repeat == null ? IdempotenceResult.Outcome.NO_REPEAT
                : repeat.fixedPoint() ? IdempotenceResult.Outcome.FIXED_POINT : IdempotenceResult.Outcome.CYCLE;
        return new IdempotenceResult(tensor, rows, cols, recordBits, group, groups, maxRounds, inputMaxAbsError,
                inputRmsError, initialNormSum, rounds, outcome, repeat == null ? -1 : repeat.start(),
                repeat == null ? 0 : repeat.length(), onCycles, byStart);
    }

    /**
     * Runs one round: re-quantizes the groups that changed last round and dequantizes those that
     * change now. A round that throws leaves the study unusable (its state is partly updated).
     */
    public IdempotenceRound next() throws WorkbenchException {
        if (failed) throw new IllegalStateException("tensor " + tensor + ": an earlier round failed");
        int round = rounds.size() + 1;
        failed = true;
        StudyRound.Result r = StudyRound.run(map, active, activeCount, codes, norms, weights);
        CheckedStateCheck check = new CheckedStateCheck();
        cycles.record(r.changed(), r.prints(), r.count(), check);
        if (check.failure != null) throw check.failure;
        failed = false;
        IdempotenceRound row = new IdempotenceRound(round, activeCount, r.count(), r.codesChanged(), r.normsChanged(),
                r.maxUlps(), normSum(), r.change().maxAbs(), rms(r.change()), groups - cycles.unsettled());
        rounds.add(row);
        active = r.changed();
        activeCount = r.count();
        if (cycles.unsettled() == 0) {
            GroupCycles.Repeat repeat = cycles.repeat();
            if (repeat.start() + repeat.length() == round) this.repeat = repeat;
        }
        return row;
    }

    /** True once the state has equalled an earlier round's. */
    public boolean repeated() {
        return repeat != null;
    }

    /** The codes and norms after the last round run (a copy). */
    public CqCodes state() {
        return new CqCodes(rows, cols, recordBits, group, codes.clone(), norms.clone());
    }

    /** The dequantized weights of the current state, row-major {@code [rows, cols]}. */
    public float[] weights() {
        float[] out = new float[rows * cols];
        int inPad = codes.length / Math.max(1, rows);
        for (int r = 0; r < rows; r++) System.arraycopy(weights, r * inPad, out, r * cols, cols);
        return out;
    }

    /** Compares group g's current state with its state at an earlier round, recomputed from round 0. */
    private final class CheckedStateCheck implements GroupCycles.StateCheck {
        WorkbenchException failure;

        @Override
        public boolean same(int g, int earlierRound, int laterRound) {
            try {
                byte[] start = Arrays.copyOfRange(codes0, g * group, (g + 1) * group);
                CqCodes then = map.iterate(g, start, norms0[g], earlierRound);
                return then.norms()[0] == norms[g]
                        && Arrays.equals(then.codes(), 0, group, codes, g * group, (g + 1) * group);
            } catch (WorkbenchException e) {
                failure = e;
                return false;
            }
        }
    }

    private double rms(CqGroupMap.Change change) {
        long n = (long) rows * cols;
        return n == 0 ? 0 : Math.sqrt(change.sumSquares() / n);
    }

    private double normSum() {
        double sum = 0;
        for (short n : norms) sum += Float.float16ToFloat(n);
        return sum;
    }
}
