package dev.needlewb.engine.grammar;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Code-point sets as sorted, disjoint, inclusive range pairs {@code [a0, b0, a1, b1, ...]}. */
final class CharSets {
    private CharSets() {}

    static int[] union(List<int[]> sets) {
        List<int[]> ranges = new ArrayList<>();
        for (int[] s : sets) for (int i = 0; i < s.length; i += 2) ranges.add(new int[] {s[i], s[i + 1]});
        ranges.sort(Comparator.comparingInt(r -> r[0]));
        List<Integer> out = new ArrayList<>();
        for (int[] r : ranges) {
            int n = out.size();
            if (n > 0 && r[0] <= out.get(n - 1) + 1) out.set(n - 1, Math.max(out.get(n - 1), r[1]));
            else {
                out.add(r[0]);
                out.add(r[1]);
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    static int[] complement(int[] set) {
        List<Integer> out = new ArrayList<>();
        int from = 0;
        for (int i = 0; i < set.length; i += 2) {
            if (set[i] > from) {
                out.add(from);
                out.add(set[i] - 1);
            }
            from = set[i + 1] + 1;
        }
        if (from <= Regex.MAX_CODE_POINT) {
            out.add(from);
            out.add(Regex.MAX_CODE_POINT);
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    static boolean contains(int[] set, int c) {
        for (int i = 0; i < set.length; i += 2) if (c >= set[i] && c <= set[i + 1]) return true;
        return false;
    }
}
