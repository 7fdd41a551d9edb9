package dev.needlewb.engine.grammar;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * What a string value may hold: a {@code pattern} (a DFA over cells of code points, the universal
 * one without a pattern) and {@code minLength}/{@code maxLength} in code points. It answers, for a
 * DFA state and the characters written so far, the fewest JSON bytes that still complete a valid
 * string (closing quote included), or {@link Need#DEAD}: that is both the liveness test of every byte
 * the string frame takes and its share of the shortest completion the budget check needs.
 */
final class StringRule {
    private static final int DEAD = Need.DEAD;
    static final int MAX_DFA_STATES = 512;
    static final int MAX_TABLE = 4_000_000;
    private static final int MAX_NFA_STATES = 20_000;

    final int minLength;
    /** -1: unbounded. */
    final int maxLength;
    /** Characters counted beyond this are all alike: maxLength when bounded, else minLength. */
    final int countCap;
    private final int[] cellStart;
    private final int[] cellCost;
    /** [state][cell] -> state or -1. */
    private final int[][] next;
    private final boolean[] accepting;
    /** [state][count] -> bytes to finish, closing quote included; null without a pattern, where it is arithmetic. */
    private final int[][] need;

    private StringRule(int minLength, int maxLength, Regex.Node pattern, boolean patterned) {
        this.minLength = minLength;
        this.maxLength = maxLength;
        this.countCap = maxLength >= 0 ? maxLength : minLength;
        Nfa nfa = new Nfa();
        int start = nfa.state();
        int end = nfa.build(pattern, start);
        nfa.target = nfa.targetList.stream().mapToInt(Integer::intValue).toArray();
        TreeSet<Integer> bounds = new TreeSet<>(List.of(0, Regex.MAX_CODE_POINT + 1));
        for (int[] set : nfa.sets) for (int i = 0; set != null && i < set.length; i += 2) {
            bounds.add(set[i]);
            bounds.add(set[i + 1] + 1);
        }
        cellStart = bounds.stream().mapToInt(Integer::intValue).limit(bounds.size() - 1).toArray();
        cellCost = new int[cellStart.length];
        for (int c = 0; c < cellStart.length; c++) cellCost[c] = cheapestBytes(cellStart[c], cellEnd(c));
        List<int[]> transitions = new ArrayList<>();
        List<Boolean> accepts = new ArrayList<>();
        Map<BitSet, Integer> ids = new HashMap<>();
        List<BitSet> pending = new ArrayList<>();
        BitSet first = nfa.closure(List.of(start));
        ids.put(first, 0);
        pending.add(first);
        for (int s = 0; s < pending.size(); s++) {
            BitSet set = pending.get(s);
            accepts.add(set.get(end));
            int[] row = new int[cellStart.length];
            for (int c = 0; c < cellStart.length; c++) {
                List<Integer> targets = new ArrayList<>();
                for (int q = set.nextSetBit(0); q >= 0; q = set.nextSetBit(q + 1)) {
                    int[] chars = nfa.sets.get(q);
                    if (chars != null && CharSets.contains(chars, cellStart[c])) targets.add(nfa.target[q]);
                }
                if (targets.isEmpty()) {
                    row[c] = -1;
                    continue;
                }
                BitSet to = nfa.closure(targets);
                Integer id = ids.get(to);
                if (id == null) {
                    id = pending.size();
                    if (id >= MAX_DFA_STATES) throw new IllegalArgumentException("pattern needs more than " + MAX_DFA_STATES + " automaton states");
                    ids.put(to, id);
                    pending.add(to);
                }
                row[c] = id;
            }
            transitions.add(row);
        }
        next = transitions.toArray(int[][]::new);
        accepting = new boolean[accepts.size()];
        for (int i = 0; i < accepting.length; i++) accepting[i] = accepts.get(i);
        if (!patterned) {
            need = null;
            return;
        }
        if ((long) next.length * (countCap + 1L) > MAX_TABLE) {
            String keyword = maxLength >= 0 ? "maxLength" : "minLength";
            throw new IllegalArgumentException("\"" + keyword + "\" " + countCap + " is too large with a pattern: length bounds up to "
                    + (MAX_TABLE / next.length - 1) + " are supported with this one (" + next.length + " automaton states)");
        }
        need = needTable();
    }

    /** The rule of a string schema; {@code pattern} null for any text. */
    static StringRule of(String pattern, int minLength, int maxLength) {
        Regex.Node tree = pattern == null ? new Regex.Repeat(new Regex.Chars(Regex.ANY), 0, -1) : Regex.parse(pattern);
        return new StringRule(minLength, maxLength, tree, pattern != null);
    }

    private int cellEnd(int c) {
        return c + 1 < cellStart.length ? cellStart[c + 1] - 1 : Regex.MAX_CODE_POINT;
    }

    private int[][] needTable() {
        int states = next.length;
        int[][] t = new int[states][countCap + 1];
        // count == cap: with a maximum no more characters fit; without one, more characters keep the count at cap
        for (int s = 0; s < states; s++) t[s][countCap] = accepting[s] && countCap >= minLength ? 1 : DEAD;
        if (maxLength < 0) {
            boolean changed = true;
            while (changed) {
                changed = false;
                for (int s = 0; s < states; s++) for (int c = 0; c < cellStart.length; c++) {
                    int to = next[s][c];
                    if (to < 0 || cellCost[c] >= DEAD || t[to][countCap] >= DEAD) continue;
                    int v = cellCost[c] + t[to][countCap];
                    if (v < t[s][countCap]) {
                        t[s][countCap] = v;
                        changed = true;
                    }
                }
            }
        }
        for (int count = countCap - 1; count >= 0; count--) {
            for (int s = 0; s < states; s++) {
                int best = accepting[s] && count >= minLength ? 1 : DEAD;
                for (int c = 0; c < cellStart.length; c++) {
                    int to = next[s][c];
                    if (to < 0 || cellCost[c] >= DEAD || t[to][count + 1] >= DEAD) continue;
                    best = Math.min(best, cellCost[c] + t[to][count + 1]);
                }
                t[s][count] = best;
            }
        }
        return t;
    }

    /** Bytes to finish from DFA {@code state} after {@code count} characters (closing quote included), or DEAD. */
    int need(int state, int count) {
        if (need == null) return anyTextNeed(count);
        return need[state][Math.min(count, countCap)];
    }

    /** Without a pattern every character is allowed, the cheapest one byte: the missing characters, then the quote. */
    private int anyTextNeed(int count) {
        if (maxLength >= 0 && count > maxLength) return DEAD;
        return Need.add(Need.times(Math.max(0, minLength - count), 1), 1);
    }

    boolean canClose(int state, int count) {
        return accepting[state] && count >= minLength;
    }

    /** The DFA state after code point {@code cp}, or -1. */
    int next(int state, int cp) {
        int cell = Arrays.binarySearch(cellStart, cp);
        if (cell < 0) cell = -cell - 2;
        return next[state][cell];
    }

    /**
     * The fewest bytes to finish if the next character is one of the allowed code points in
     * {@code [lo, hi]} (its own bytes not counted), or DEAD; {@code raw} excludes U+2581, which the
     * tokenizer's decoder turns into a space when written as raw UTF-8.
     */
    int needAfterCharIn(int state, int count, int lo, int hi, boolean raw) {
        if (maxLength >= 0 && count >= maxLength) return DEAD;
        int cell = Arrays.binarySearch(cellStart, lo);
        if (cell < 0) cell = -cell - 2;
        int best = DEAD;
        for (; cell < cellStart.length && cellStart[cell] <= hi; cell++) {
            int to = next[state][cell];
            if (to < 0 || !hasAllowed(Math.max(lo, cellStart[cell]), Math.min(hi, cellEnd(cell)), raw)) continue;
            best = Math.min(best, need(to, count + 1));
        }
        return best;
    }

    private static boolean hasAllowed(int a, int b, boolean raw) {
        for (int c : new int[] {a, a + 1, 0xE000}) {
            if (c >= a && c <= b && !(c >= 0xD800 && c <= 0xDFFF) && !(raw && c == 0x2581)) return true;
        }
        return false;
    }

    /** Fewest bytes any allowed character of {@code [a, b]} takes inside a JSON string. */
    private static int cheapestBytes(int a, int b) {
        int best = DEAD;
        for (int c : new int[] {a, a + 1, 8, 9, 10, 12, 13, 0x20, 0x80, 0x800, 0x2582, 0xE000, 0x10000}) {
            if (c < a || c > b || (c >= 0xD800 && c <= 0xDFFF)) continue;
            best = Math.min(best, jsonBytes(c));
        }
        return best;
    }

    static int jsonBytes(int c) {
        if (c == '"' || c == '\\') return 2;
        if (c < 0x20) return c == 8 || c == 9 || c == 10 || c == 12 || c == 13 ? 2 : 6;
        if (c < 0x80) return 1;
        if (c < 0x800) return 2;
        if (c == 0x2581) return 6; // only as \u2581 (see needAfterCharIn)
        return c < 0x10000 ? 3 : 4;
    }

    /** Thompson NFA: state q has either one code-point set edge to target[q] or epsilon edges. */
    private static final class Nfa {
        final List<int[]> sets = new ArrayList<>();
        final List<Integer> targetList = new ArrayList<>();
        final List<List<Integer>> epsilon = new ArrayList<>();
        int[] target = new int[0];

        int state() {
            if (sets.size() >= MAX_NFA_STATES) throw new IllegalArgumentException("pattern expands to more than " + MAX_NFA_STATES + " states");
            sets.add(null);
            targetList.add(-1);
            epsilon.add(new ArrayList<>());
            return sets.size() - 1;
        }

        /** Builds {@code node} starting at {@code from}; returns its end state. */
        int build(Regex.Node node, int from) {
            int end = switch (node) {
                case Regex.Chars c -> {
                    int to = state();
                    sets.set(from, c.ranges());
                    targetList.set(from, to);
                    yield to;
                }
                case Regex.Seq s -> {
                    int at = from;
                    for (Regex.Node part : s.parts()) at = build(part, at);
                    yield at;
                }
                case Regex.Alt a -> {
                    int to = state();
                    for (Regex.Node option : a.options()) {
                        int begin = state();
                        epsilon.get(from).add(begin);
                        epsilon.get(build(option, begin)).add(to);
                    }
                    yield to;
                }
                case Regex.Repeat r -> {
                    int at = from;
                    for (int i = 0; i < r.min(); i++) at = build(r.body(), at);
                    if (r.max() < 0) {
                        int loop = state();
                        epsilon.get(at).add(loop);
                        int body = state();
                        epsilon.get(loop).add(body);
                        epsilon.get(build(r.body(), body)).add(loop);
                        yield loop;
                    }
                    int to = state();
                    epsilon.get(at).add(to);
                    for (int i = r.min(); i < r.max(); i++) {
                        int begin = state();
                        epsilon.get(at).add(begin);
                        at = build(r.body(), begin);
                        epsilon.get(at).add(to);
                    }
                    yield to;
                }
            };
            return end;
        }

        BitSet closure(List<Integer> from) {
            BitSet seen = new BitSet();
            List<Integer> stack = new ArrayList<>(from);
            while (!stack.isEmpty()) {
                int q = stack.removeLast();
                if (seen.get(q)) continue;
                seen.set(q);
                stack.addAll(epsilon.get(q));
            }
            return seen;
        }
    }
}
