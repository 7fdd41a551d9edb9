package dev.needlewb.golden;

import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.cq.CqBlob;
import dev.needlewb.converter.cq.CqCodes;
import dev.needlewb.converter.cq.CqPacking;
import dev.needlewb.converter.cq.Fwht;
import dev.needlewb.core.FormatException;
import dev.needlewb.oracle.ExactCq;
import dev.needlewb.oracle.GroupDecision;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Audits CQ decisions with the exact oracle. {@link #add} compares two CQ blobs of one matrix
 * code by code and norm by norm: a difference is acceptable only when the oracle certifies both
 * values as correct roundings of the source weights (a float32 boundary case, where upstream's
 * float32 rotation and ours may decide either way). {@link #addExact} holds one set of codes to
 * the exact decision itself: groups are screened in float64 (a code or norm within 1e-6 of a
 * decision midpoint, far wider than float32 rounding reach of about 1e-7, goes to the oracle);
 * elsewhere every code must be the float64 nearest entry and the norm its float16 rounding.
 */
public final class CqAudit {
    /** The differences found: certified boundary cases and the rest; the codes and groups audited, and how many groups the oracle decided. */
    public record Result(List<String> certified, List<String> uncertified, long codes, long groups, long screened) {}

    /** One matrix's codes and float16 norms, however they are stored. */
    public interface Codes {
        int code(int row, int col);

        short norm(int row, int group);
    }

    private final List<String> certified = new ArrayList<>();
    private final List<String> uncertified = new ArrayList<>();
    private long codes;
    private long groups;
    private long screened;

    /**
     * The export pass: every non-CQ blob of {@code ours} equal to {@code upstream}'s, every CQ blob
     * audited against upstream's ({@link #add}) and against the exact decision ({@link #addExact})
     * for the source weights of {@code source} (.cact layout).
     */
    public static CqAudit ofExport(CactFile upstream, CactFile ours, ModelWeights source) throws FormatException {
        CqAudit audit = new CqAudit();
        for (TensorRecord r : upstream.tensors()) {
            byte[] g = upstream.blob(r.index()).toArray(ValueLayout.JAVA_BYTE);
            byte[] o = ours.blob(r.index()).toArray(ValueLayout.JAVA_BYTE);
            if (r.dtype() != CactDType.CQ) {
                if (!Arrays.equals(o, g)) audit.uncertified.add(r.name() + ": " + r.dtype() + " blob differs");
                continue;
            }
            float[] w = source.tensors().get(r.name()).asFloats();
            float[] codebook = upstream.codebookFor(r.bits(), r.group());
            CqBlob mine = ours.cqBlob(r.index());
            if (!Arrays.equals(o, g)) audit.add(r.name(), upstream.cqBlob(r.index()), mine, w, codebook);
            audit.addExact(r.name(), (int) mine.rows(), (int) mine.cols(), mine.group(), codes(mine), w, codebook);
        }
        return audit;
    }

    /** The codes of a quantizer's output. */
    public static Codes codes(CqCodes c) {
        return new Codes() {
            @Override
            public int code(int row, int col) {
                return c.code(row, col);
            }

            @Override
            public short norm(int row, int group) {
                return c.norm(row, group);
            }
        };
    }

    /** The codes of a stored blob (unpacked row by row). */
    public static Codes codes(CqBlob blob) {
        int inPad = (int) blob.inPad();
        return new Codes() {
            private int row = -1;
            private final byte[] unpacked = new byte[inPad];

            @Override
            public int code(int r, int col) {
                if (r != row) {
                    CqPacking.unpackRow(blob.codes(), r * blob.rowBytes(), inPad, blob.recordBits(), unpacked);
                    row = r;
                }
                return unpacked[col];
            }

            @Override
            public short norm(int r, int g) {
                return Float.floatToFloat16(blob.norm(r, g));
            }
        };
    }

    /** Audits {@code ours} against {@code theirs} for the row-major [rows, cols] source weights {@code w}. */
    public CqAudit add(String name, CqBlob theirs, CqBlob ours, float[] w, float[] codebook) {
        int rows = (int) theirs.rows(), cols = (int) theirs.cols(), group = theirs.group();
        int inPad = (int) theirs.inPad();
        Codes tc = codes(theirs), oc = codes(ours);
        for (int row = 0; row < rows; row++) {
            for (int gi = 0; gi < inPad / group; gi++) {
                float[] values = group(w, cols, row, gi, group);
                GroupDecision d = null;
                for (int j = 0; j < group; j++) {
                    int k = gi * group + j;
                    int t = tc.code(row, k), o = oc.code(row, k);
                    if (t == o) continue;
                    if (d == null) d = ExactCq.decide(values, codebook);
                    String where = name + " (" + row + ", " + k + ") ours " + o + " upstream " + t;
                    (acceptable(d, j, o) && acceptable(d, j, t) ? certified : uncertified).add(where);
                }
                short tn = tc.norm(row, gi), on = oc.norm(row, gi);
                if (tn != on) {
                    if (d == null) d = ExactCq.decide(values, codebook);
                    (acceptable(d, on) && acceptable(d, tn) ? certified : uncertified).add(name + " (" + row + ", group " + gi + ") norm");
                }
            }
        }
        return this;
    }

    /** Audits {@code ours}, the codes of the row-major [rows, cols] weights {@code w}, against the exact decision. */
    public CqAudit addExact(String name, int rows, int cols, int group, Codes ours, float[] w, float[] codebook) {
        int groupsPerRow = (int) (CqBlob.paddedCols(cols, group) / group);
        double[] rot = new double[group];
        for (int r = 0; r < rows; r++) {
            for (int g = 0; g < groupsPerRow; g++) {
                float[] values = group(w, cols, r, g, group);
                for (int j = 0; j < group; j++) rot[j] = values[j];
                Fwht.normalized(rot, 0, group);
                double sum = 0;
                for (double v : rot) sum += v * v;
                double norm = Math.sqrt(sum);
                boolean near = norm == 0 || nearFloat16Midpoint(norm);
                for (int j = 0; j < group && !near; j++) near = nearMidpoint(rot[j] / norm, codebook);
                codes += group;
                groups++;
                String at = name + " (" + r + ", group " + g + ")";
                if (!near) {
                    // no rounding can flip these decisions: the codes must be the float64 answer
                    for (int j = 0; j < group; j++) {
                        int want = nearest(rot[j] / norm, codebook), got = ours.code(r, g * group + j);
                        if (got != want) uncertified.add(at + " col " + (g * group + j) + " code " + got + ", float64 nearest " + want + " (no boundary near)");
                    }
                    if (ours.norm(r, g) != Float.floatToFloat16((float) norm)) uncertified.add(at + " norm is not float16(norm) (no boundary near)");
                    continue;
                }
                screened++;
                GroupDecision d = ExactCq.decide(values, codebook);
                for (int j = 0; j < group; j++) {
                    int got = ours.code(r, g * group + j);
                    if (got == d.codes()[j]) continue;
                    String line = at + " col " + (g * group + j) + " code " + got + " exact " + d.codes()[j] + " margin " + d.boundaryMargin()[j];
                    (d.certifiesCode(j, got) ? certified : uncertified).add(line);
                }
                short half = ours.norm(r, g);
                if (half != d.float16Norm()) (d.certifiesNorm(half) ? certified : uncertified).add(at + " norm " + Float.float16ToFloat(half));
            }
        }
        return this;
    }

    public Result result() {
        return new Result(List.copyOf(certified), List.copyOf(uncertified), codes, groups, screened);
    }

    private static boolean acceptable(GroupDecision d, int element, int code) {
        return code == d.codes()[element] || d.certifiesCode(element, code);
    }

    private static boolean acceptable(GroupDecision d, short half) {
        return half == d.float16Norm() || d.certifiesNorm(half);
    }

    /** Group {@code g} of row {@code row}, zero-padded past the last column. */
    public static float[] group(float[] w, int cols, int row, int g, int group) {
        float[] out = new float[group];
        int from = g * group;
        System.arraycopy(w, row * cols + from, out, 0, Math.max(0, Math.min(group, cols - from)));
        return out;
    }

    private static int nearest(double u, float[] cb) {
        int code = 0;
        while (code + 1 < cb.length && u > ((double) cb[code] + cb[code + 1]) / 2) code++;
        return code;
    }

    private static boolean nearMidpoint(double u, float[] cb) {
        for (int k = 0; k + 1 < cb.length; k++) {
            if (Math.abs(u - ((double) cb[k] + cb[k + 1]) / 2) < 1e-6) return true;
        }
        return false;
    }

    /** Within 1e-6 (relative) of a float16 rounding midpoint, i.e. half-way to a neighbouring float16. */
    private static boolean nearFloat16Midpoint(double norm) {
        short half = Float.floatToFloat16((float) norm);
        double value = Float.float16ToFloat(half);
        for (int neighbour : new int[] {half - 1, half + 1}) {
            if (neighbour < 0 || neighbour > 0x7BFF) continue;
            double midpoint = (value + Float.float16ToFloat((short) neighbour)) / 2;
            if (Math.abs(norm - midpoint) < 1e-6 * norm) return true;
        }
        return false;
    }
}
