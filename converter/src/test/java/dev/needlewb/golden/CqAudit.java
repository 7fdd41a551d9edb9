package dev.needlewb.golden;

import dev.needlewb.converter.cq.CqBlob;
import dev.needlewb.converter.cq.CqPacking;
import dev.needlewb.oracle.ExactCq;
import dev.needlewb.oracle.GroupDecision;
import java.util.ArrayList;
import java.util.List;

/**
 * Compares two CQ blobs of one matrix code by code and norm by norm. A difference is acceptable
 * only when the exact oracle certifies both values as correct roundings of the source weights (a
 * float32 boundary case, where upstream's float32 rotation and ours may decide either way).
 */
public final class CqAudit {
    /** The differences found: certified boundary cases and the rest. */
    public record Result(List<String> certified, List<String> uncertified) {}

    private final List<String> certified = new ArrayList<>();
    private final List<String> uncertified = new ArrayList<>();

    /** Audits {@code ours} against {@code theirs} for the row-major [rows, cols] source weights {@code w}. */
    public CqAudit add(String name, CqBlob theirs, CqBlob ours, float[] w, float[] codebook) {
        int rows = (int) theirs.rows(), cols = (int) theirs.cols(), group = theirs.group(), bits = theirs.recordBits();
        int inPad = (int) theirs.inPad();
        byte[] tc = new byte[inPad], oc = new byte[inPad];
        for (int row = 0; row < rows; row++) {
            CqPacking.unpackRow(theirs.codes(), row * theirs.rowBytes(), inPad, bits, tc);
            CqPacking.unpackRow(ours.codes(), row * ours.rowBytes(), inPad, bits, oc);
            for (int gi = 0; gi < inPad / group; gi++) {
                float[] values = new float[group];
                System.arraycopy(w, row * cols + gi * group, values, 0, Math.min(group, cols - gi * group));
                GroupDecision d = null;
                for (int j = 0; j < group; j++) {
                    int k = gi * group + j;
                    if (tc[k] == oc[k]) continue;
                    if (d == null) d = ExactCq.decide(values, codebook);
                    String where = name + " (" + row + ", " + k + ") ours " + oc[k] + " upstream " + tc[k];
                    boolean ok = (oc[k] == d.codes()[j] || d.certifiesCode(j, oc[k])) && (tc[k] == d.codes()[j] || d.certifiesCode(j, tc[k]));
                    (ok ? certified : uncertified).add(where);
                }
                short tn = Float.floatToFloat16(theirs.norm(row, gi)), on = Float.floatToFloat16(ours.norm(row, gi));
                if (tn != on) {
                    if (d == null) d = ExactCq.decide(values, codebook);
                    boolean ok = (on == d.float16Norm() || d.certifiesNorm(on)) && (tn == d.float16Norm() || d.certifiesNorm(tn));
                    (ok ? certified : uncertified).add(name + " (" + row + ", group " + gi + ") norm");
                }
            }
        }
        return this;
    }

    public Result result() {
        return new Result(List.copyOf(certified), List.copyOf(uncertified));
    }
}
