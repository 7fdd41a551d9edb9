package dev.needlewb.engine.grammar;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A prefix tree over a fixed list of byte strings (tool names, keys, enum literals, each spelled
 * as compact JSON), node 0 the root. A node knows its depth, whether a word ends there (and
 * which), and the words below it, so a frame can hold one int while it matches a spelling.
 */
final class ByteTrie {
    private final byte[][] words;
    private final int[][] childBytes;
    private final int[][] childNodes;
    private final int[] depth;
    private final int[] wordAt;
    private final int[][] wordsBelow;

    ByteTrie(List<byte[]> spellings) {
        this.words = spellings.toArray(byte[][]::new);
        List<int[]> bytes = new ArrayList<>();
        List<int[]> nodes = new ArrayList<>();
        List<Integer> depths = new ArrayList<>();
        List<Integer> ends = new ArrayList<>();
        List<List<Integer>> below = new ArrayList<>();
        bytes.add(new int[0]);
        nodes.add(new int[0]);
        depths.add(0);
        ends.add(-1);
        below.add(new ArrayList<>());
        for (int w = 0; w < words.length; w++) {
            int node = 0;
            below.get(0).add(w);
            for (byte value : words[w]) {
                int b = value & 0xFF;
                int at = indexOf(bytes.get(node), b);
                if (at < 0) {
                    int fresh = nodes.size();
                    bytes.add(new int[0]);
                    nodes.add(new int[0]);
                    depths.add(depths.get(node) + 1);
                    ends.add(-1);
                    below.add(new ArrayList<>());
                    bytes.set(node, append(bytes.get(node), b));
                    nodes.set(node, append(nodes.get(node), fresh));
                    node = fresh;
                } else {
                    node = nodes.get(node)[at];
                }
                below.get(node).add(w);
            }
            if (ends.get(node) >= 0) throw new IllegalArgumentException("word " + w + " repeats word " + ends.get(node));
            ends.set(node, w);
        }
        childBytes = bytes.toArray(int[][]::new);
        childNodes = nodes.toArray(int[][]::new);
        depth = depths.stream().mapToInt(Integer::intValue).toArray();
        wordAt = ends.stream().mapToInt(Integer::intValue).toArray();
        wordsBelow = below.stream().map(l -> l.stream().mapToInt(Integer::intValue).toArray()).toArray(int[][]::new);
    }

    private static int indexOf(int[] values, int v) {
        for (int i = 0; i < values.length; i++) if (values[i] == v) return i;
        return -1;
    }

    private static int[] append(int[] values, int v) {
        int[] out = Arrays.copyOf(values, values.length + 1);
        out[values.length] = v;
        return out;
    }

    /** The child of {@code node} on byte {@code b}, or -1. */
    int child(int node, int b) {
        int[] bs = childBytes[node];
        for (int i = 0; i < bs.length; i++) if (bs[i] == b) return childNodes[node][i];
        return -1;
    }

    /** The word ending exactly at {@code node}, or -1. */
    int wordAt(int node) {
        return wordAt[node];
    }

    int depth(int node) {
        return depth[node];
    }

    /** The indices of the words that pass through {@code node} (do not modify). */
    int[] wordsBelow(int node) {
        return wordsBelow[node];
    }

    int words() {
        return words.length;
    }

    int length(int word) {
        return words[word].length;
    }

    /** Bytes left from {@code node} to the nearest word end. */
    int minRest(int node) {
        int best = Integer.MAX_VALUE;
        for (int w : wordsBelow[node]) best = Math.min(best, words[w].length - depth[node]);
        return best;
    }
}
