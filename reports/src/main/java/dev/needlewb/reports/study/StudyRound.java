package dev.needlewb.reports.study;

import dev.needlewb.converter.cq.CqBlob;
import dev.needlewb.converter.cq.CqCodes;
import dev.needlewb.converter.cq.CqGroupMap;
import dev.needlewb.converter.cq.CqPacking;
import dev.needlewb.converter.cq.CqQuantizer;
import dev.needlewb.converter.cq.InvalidCodeException;
import dev.needlewb.core.WorkbenchException;
import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * One round of an idempotence study over the groups still moving, fused per group: quantize the
 * group's weights, compare the result with its state and, where codes or norm differ, adopt them,
 * fingerprint the new state and dequantize it over the weights. Each group's data is touched once
 * while it sits in L1 (a quantization followed by a separate dequantization pass read the whole
 * tensor twice more). Groups are split over the common pool in fixed chunks merged in order, so
 * every result is independent of scheduling.
 */
final class StudyRound {
    /**
     * What a round changed: groups {@code changed[0, count)} (ascending) with their new
     * fingerprints, the codes that differ, the norms that differ and by how many float16 ulps at
     * most, and the change of the dequantized weights.
     */
    record Result(int[] changed, long[] prints, int count, long codesChanged, long normsChanged, int maxUlps,
            CqGroupMap.Change change) {}

    private StudyRound() {}

    /**
     * Runs the round on groups {@code active[0, activeCount)} (ascending) of the state (codes,
     * norms, weights), updating it in place. On a failure (a non-finite weight, a norm beyond
     * float16) the first failure in row-major order is thrown and the state is partly updated.
     */
    static Result run(CqGroupMap map, int[] active, int activeCount, byte[] codes, short[] norms, float[] weights)
            throws WorkbenchException {
        int perTask = map.groupsPerTask();
        int tasks = (activeCount + perTask - 1) / perTask;
        IntStream range = IntStream.range(0, tasks);
        if (tasks > 1) range = range.parallel();
        Part[] parts = range.mapToObj(t -> new Part(map, Math.min(activeCount, (t + 1) * perTask) - t * perTask)
                .run(active, t * perTask, codes, norms, weights)).toArray(Part[]::new);
        int count = 0;
        long codesChanged = 0, normsChanged = 0;
        int maxUlps = 0;
        CqGroupMap.Change change = CqGroupMap.Change.NONE;
        for (Part p : parts) {
            if (p.failure != null) throw p.failure.toException(map.tensor(), map.group());
            count += p.count;
            codesChanged += p.codesChanged;
            normsChanged += p.normsChanged;
            maxUlps = Math.max(maxUlps, p.maxUlps);
            change = change.plus(p.scratch.change());
        }
        int[] changed = new int[count];
        long[] prints = new long[count];
        int at = 0;
        for (Part p : parts) {
            System.arraycopy(p.changed, 0, changed, at, p.count);
            System.arraycopy(p.prints, 0, prints, at, p.count);
            at += p.count;
        }
        return new Result(changed, prints, count, codesChanged, normsChanged, maxUlps, change);
    }

    /** One chunk of consecutive active groups, with its own scratch and tallies. */
    private static final class Part {
        private final CqGroupMap map;
        private final CqGroupMap.Scratch scratch;
        private final int group;
        private final byte[] fresh;
        private final short[] freshNorm = new short[1];
        private final int[] changed;
        private final long[] prints;
        private int count;
        private long codesChanged;
        private long normsChanged;
        private int maxUlps;
        private CqQuantizer.Failure failure;

        Part(CqGroupMap map, int size) {
            this.map = map;
            this.scratch = map.scratch();
            this.group = map.group();
            this.fresh = new byte[group];
            this.changed = new int[size];
            this.prints = new long[size];
        }

        /** Runs groups {@code active[from, from + changed.length)}; stops at the first failure. */
        Part run(int[] active, int from, byte[] codes, short[] norms, float[] weights) {
            for (int i = from; i < from + changed.length; i++) {
                int g = active[i];
                int base = g * group;
                failure = map.quantizeGroup(g, weights, base, fresh, 0, freshNorm, 0, scratch);
                if (failure != null) return this;
                short norm = freshNorm[0];
                int differ = differingCodes(codes, base);
                if (differ == 0 && norm == norms[g]) continue;
                codesChanged += differ;
                if (norm != norms[g]) {
                    normsChanged++;
                    maxUlps = Math.max(maxUlps, Math.abs(orderedHalf(norm) - orderedHalf(norms[g])));
                }
                System.arraycopy(fresh, 0, codes, base, group);
                norms[g] = norm;
                prints[count] = GroupFingerprint.of(codes, base, group, norm);
                changed[count++] = g;
                map.dequantizeGroup(g, codes, base, norm, weights, base, scratch);
            }
            return this;
        }

        /** Codes of {@code fresh} that differ from the group's current codes from {@code base}. */
        private int differingCodes(byte[] codes, int base) {
            int first = Arrays.mismatch(fresh, 0, group, codes, base, base + group);
            if (first < 0) return 0;
            int differ = 0;
            for (int k = first; k < group; k++) {
                if (fresh[k] != codes[base + k]) differ++;
            }
            return differ;
        }
    }

    /** float16 bits as a signed integer that increases with the value, so differences count ulps. */
    static int orderedHalf(short bits) {
        int b = bits & 0xFFFF;
        return (b & 0x8000) != 0 ? -(b & 0x7FFF) : b;
    }
}
