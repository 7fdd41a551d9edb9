package dev.needlewb.converter.cq;

import dev.needlewb.core.WorkbenchException;
import java.util.stream.IntStream;

/**
 * Upstream's dequantize and re-quantize of a CQ matrix applied group by group. Both directions
 * act on each group alone (the dequantization's summation order depends only on the group's
 * position in its row, see {@link NumpyMatmulOrder}), so a study can redo only the groups whose
 * state changed. Dequantization is bit-exact upstream {@code read_export} (a float32 product with
 * numpy's order, {@link HadamardMatmul}); quantization is {@link CqQuantizer}.
 *
 * <p>State layout: codes {@code [rows][inPad]}, norms {@code [rows][groupsPerRow]} as in
 * {@link CqCodes}; weights {@code [rows][inPad]} with the padding columns zero, which is what
 * upstream's zero padding of the {@code [rows, cols]} dequantized matrix gives the next round.
 * Group g's codes and weights start at {@code g * group}, its norm is {@code norms[g]}.
 */
public final class CqGroupMap {
    /** About this many weights make one task of a parallel pass. */
    static final int TASK_WEIGHTS = 1 << 16;

    private final String tensor;
    private final CqQuantizer quantizer;
    private final ScaledCodebook scaledCodebook;
    private final int group;
    private final int groupsPerRow;
    /** Columns of the last group of a row that are real (the rest is padding). */
    private final int lastGroupWidth;
    private final NumpyMatmulOrder[] orders;

    public CqGroupMap(String tensor, CqQuantizer quantizer, int cols) {
        this.tensor = tensor;
        this.quantizer = quantizer;
        this.scaledCodebook = new ScaledCodebook(quantizer.codebook());
        this.group = quantizer.group();
        this.groupsPerRow = (cols + group - 1) / group;
        this.lastGroupWidth = cols - (groupsPerRow - 1) * group;
        this.orders = NumpyMatmulOrder.forRow(groupsPerRow);
    }

    /** The groups upstream's dequantization is reproduced for bit for bit. */
    public static boolean supportsGroup(int group) {
        return group == 64 || group == 128;
    }

    public String tensor() {
        return tensor;
    }

    public int group() {
        return group;
    }

    /** Real (non-padding) columns of the group at position {@code inRow} of its row. */
    private int width(int inRow) {
        return inRow == groupsPerRow - 1 ? lastGroupWidth : group;
    }

    /** Groups per task of a parallel pass. */
    public int groupsPerTask() {
        return Math.max(1, TASK_WEIGHTS / group);
    }

    /** Sum of squares and the largest absolute value of the weight changes a dequantization made. */
    public record Change(double sumSquares, double maxAbs) {
        public static final Change NONE = new Change(0, 0);

        public Change plus(Change o) {
            return new Change(sumSquares + o.sumSquares, Math.max(maxAbs, o.maxAbs));
        }
    }

    /** The scratch of one thread: a group coder, the Hadamard product and the meter of the weights it replaces. */
    public final class Scratch {
        private final CqQuantizer.GroupCoder coder = quantizer.coder();
        private final HadamardMatmul matmul = new HadamardMatmul(group);
        private final float[] scaled = new float[group];
        private final float[] out = new float[group];
        private final WeightChangeMeter meter = new WeightChangeMeter();

        /** The change of every weight replaced through this scratch so far. */
        public Change change() {
            return meter.change();
        }
    }

    public Scratch scratch() {
        return new Scratch();
    }

    /**
     * Quantizes group g's weights {@code weights[at, at + group)} into {@code codes[codeAt ..)} and
     * {@code norms[normAt]}; returns the failure that stopped it, or null.
     */
    public CqQuantizer.Failure quantizeGroup(int g, float[] weights, int at, byte[] codes, int codeAt, short[] norms,
            int normAt, Scratch s) {
        int row = g / groupsPerRow;
        return s.coder.quantize(weights, at, group, row, (g - row * groupsPerRow) * group, codes, codeAt, norms, normAt);
    }

    /**
     * Dequantizes group g from its codes {@code codes[codeAt ..)} and float16 norm into
     * {@code weights[at, at + group)}, metering the change of its real columns in {@code s}.
     */
    public void dequantizeGroup(int g, byte[] codes, int codeAt, short norm, float[] weights, int at, Scratch s) {
        int inRow = g % groupsPerRow;
        scaledCodebook.lookup(codes, codeAt, group, Float.float16ToFloat(norm), s.scaled, 0);
        s.matmul.multiply(s.scaled, 0, orders[inRow], s.out, 0);
        s.meter.replace(s.out, 0, weights, at, width(inRow));
    }

    /**
     * Dequantizes groups {@code ids[0, count)} of (codes, norms) into {@code weights} and returns the
     * change from the weights they replace (real columns only). Split over the common pool in
     * fixed chunks merged in order, so the sums do not depend on scheduling.
     */
    public Change dequantize(int[] ids, int count, byte[] codes, short[] norms, float[] weights) {
        int perTask = groupsPerTask();
        int tasks = (count + perTask - 1) / perTask;
        IntStream range = IntStream.range(0, tasks);
        if (tasks > 1) range = range.parallel();
        Change[] parts = range.mapToObj(t -> {
            Scratch s = scratch();
            for (int i = t * perTask; i < Math.min(count, (t + 1) * perTask); i++) {
                int g = ids[i];
                dequantizeGroup(g, codes, g * group, norms[g], weights, g * group, s);
            }
            return s.change();
        }).toArray(Change[]::new);
        Change total = Change.NONE;
        for (Change c : parts) total = total.plus(c);
        return total;
    }

    /** Group g's state after {@code steps} applications of the map, from (codes, norm) given for it alone. */
    public CqCodes iterate(int g, byte[] groupCodes, short groupNorm, int steps) throws WorkbenchException {
        Scratch s = scratch();
        byte[] codes = groupCodes.clone();
        short[] norms = {groupNorm};
        float[] weights = new float[group];
        for (int step = 0; step < steps; step++) {
            dequantizeGroup(g, codes, 0, norms[0], weights, 0, s);
            CqQuantizer.Failure failure = quantizeGroup(g, weights, 0, codes, 0, norms, 0, s);
            if (failure != null) throw failure.toException(tensor, group);
        }
        return new CqCodes(1, group, quantizer.recordBits(), group, codes, norms);
    }
}
