package dev.needlewb.converter.cq;

import dev.needlewb.converter.WorkbenchException;
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
 */
final class CqGroupMap {
    /** About this many weights make one dequantization task. */
    private static final int TASK_WEIGHTS = 1 << 16;

    private final String tensor;
    private final CqQuantizer quantizer;
    private final ScaledCodebook scaledCodebook;
    private final int group;
    private final int groupsPerRow;
    /** Columns of the last group of a row that are real (the rest is padding). */
    private final int lastGroupWidth;
    private final NumpyMatmulOrder[] orders;

    CqGroupMap(String tensor, CqQuantizer quantizer, int cols) {
        this.tensor = tensor;
        this.quantizer = quantizer;
        this.scaledCodebook = new ScaledCodebook(quantizer.codebook());
        this.group = quantizer.group();
        this.groupsPerRow = (cols + group - 1) / group;
        this.lastGroupWidth = cols - (groupsPerRow - 1) * group;
        this.orders = NumpyMatmulOrder.forRow(groupsPerRow);
    }

    /** A one-group state standing for a group of width {@code width} at a row position with {@code order}. */
    private CqGroupMap(String tensor, CqQuantizer quantizer, int width, NumpyMatmulOrder order) {
        this.tensor = tensor;
        this.quantizer = quantizer;
        this.scaledCodebook = new ScaledCodebook(quantizer.codebook());
        this.group = quantizer.group();
        this.groupsPerRow = 1;
        this.lastGroupWidth = width;
        this.orders = new NumpyMatmulOrder[] {order};
    }

    /** The groups upstream's dequantization is reproduced for bit for bit. */
    static boolean supportsGroup(int group) {
        return group == 64 || group == 128;
    }

    int group() {
        return group;
    }

    /** Real (non-padding) columns of group g. */
    int width(int g) {
        return g % groupsPerRow == groupsPerRow - 1 ? lastGroupWidth : group;
    }

    /** Sum of squares and the largest absolute value of the weight changes a dequantization made. */
    record Change(double sumSquares, double maxAbs) {
        static final Change NONE = new Change(0, 0);

        Change plus(Change o) {
            return new Change(sumSquares + o.sumSquares, Math.max(maxAbs, o.maxAbs));
        }
    }

    /**
     * Dequantizes groups {@code ids[0, count)} of (codes, norms) into {@code weights} and returns the
     * change from the weights they replace (real columns only). Split over the common pool in
     * fixed chunks merged in order, so the sums do not depend on scheduling.
     */
    Change dequantize(int[] ids, int count, byte[] codes, short[] norms, float[] weights) {
        int perTask = Math.max(1, TASK_WEIGHTS / group);
        int tasks = (count + perTask - 1) / perTask;
        IntStream range = IntStream.range(0, tasks);
        if (tasks > 1) range = range.parallel();
        Change[] parts = range.mapToObj(t -> dequantizeRange(ids, t * perTask, Math.min(count, (t + 1) * perTask),
                codes, norms, weights)).toArray(Change[]::new);
        Change total = Change.NONE;
        for (Change c : parts) total = total.plus(c);
        return total;
    }

    private Change dequantizeRange(int[] ids, int from, int to, byte[] codes, short[] norms, float[] weights) {
        HadamardMatmul matmul = new HadamardMatmul(group);
        WeightChangeMeter meter = new WeightChangeMeter();
        float[] scaled = new float[group];
        float[] out = new float[group];
        for (int i = from; i < to; i++) {
            int g = ids[i];
            int base = g * group;
            scaledCodebook.lookup(codes, base, group, Float.float16ToFloat(norms[g]), scaled, 0);
            matmul.multiply(scaled, 0, orders[g % groupsPerRow], out, 0);
            meter.replace(out, 0, weights, base, width(g));
        }
        return meter.change();
    }

    /** Quantizes groups {@code ids[0, count)} of {@code weights}; row i of the result is group ids[i]. */
    CqCodes quantize(int[] ids, int count, float[] weights) throws WorkbenchException {
        if (count * group == weights.length) return quantizer.quantize(tensor, weights, count, group); // every group, in order
        float[] gathered = new float[count * group];
        for (int i = 0; i < count; i++) System.arraycopy(weights, ids[i] * group, gathered, i * group, group);
        return quantizer.quantize(tensor, gathered, count, group);
    }

    /** One group's state after {@code steps} applications of the map, from (codes, norm) given for it alone. */
    CqCodes iterate(int g, byte[] groupCodes, short groupNorm, int steps) throws WorkbenchException {
        int[] only = {0};
        CqGroupMap single = new CqGroupMap(tensor, quantizer, width(g), orders[g % groupsPerRow]);
        byte[] codes = groupCodes.clone();
        short[] norms = {groupNorm};
        float[] weights = new float[group];
        for (int s = 0; s < steps; s++) {
            single.dequantize(only, 1, codes, norms, weights);
            CqCodes next = single.quantize(only, 1, weights);
            codes = next.codes();
            norms = next.norms();
        }
        return new CqCodes(1, group, quantizer.recordBits(), group, codes, norms);
    }

}
