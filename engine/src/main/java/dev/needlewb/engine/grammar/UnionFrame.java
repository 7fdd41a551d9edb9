package dev.needlewb.engine.grammar;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Inside a value that more than one option of a union may still become (a digit both an integer and
 * a number may start, two object options before their telling key): the frames of the options alive,
 * each with its own parent chain. A byte steps every option and keeps those that take it; when the
 * value ends the options meet again in one and the same container frame, so the set shrinks back to
 * one frame. Its need is its cheapest option's whole completion, so it has no parent of its own.
 */
record UnionFrame(List<Frame> options) implements Frame {
    /** The state for {@code alive} frames: null when none, the frame itself when one, else their union (nested unions flattened, repeats dropped). */
    static Frame of(List<Frame> alive) {
        Set<Frame> distinct = new LinkedHashSet<>();
        for (Frame f : alive) {
            if (f instanceof UnionFrame u) distinct.addAll(u.options);
            else if (f != null) distinct.add(f);
        }
        if (distinct.isEmpty()) return null;
        if (distinct.size() == 1) return distinct.iterator().next();
        return new UnionFrame(List.copyOf(distinct));
    }

    @Override
    public Frame step(int symbol) {
        List<Frame> next = new ArrayList<>(options.size());
        for (Frame f : options) next.add(f.step(symbol));
        return of(next);
    }

    @Override
    public int need() {
        int best = Need.DEAD;
        for (Frame f : options) best = Math.min(best, Frame.totalNeed(f));
        return best;
    }

    @Override
    public Container parent() {
        return null;
    }
}
