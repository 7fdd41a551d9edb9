package dev.needlewb.converter.v3;

import dev.needlewb.converter.flax.v3.V3Config;

/**
 * Upstream Needle 3's KV budget ({@code kv_budget_window} / {@code effective_kv_window},
 * architecture.py:1356-1387), the kv_window its build writes: int8 K and V (one f32 scale per 32
 * values) of every layer plus one engram vector per site in 11.5 MiB; with a sliding window the
 * local layers and sites cost the window, and the global layers get what remains, floored to a
 * multiple of 32, capped at max_seq_len and raised to at least 160.
 */
public final class V3KvBudget {
    static final long BUDGET_BYTES = 11L * 1024 * 1024 + 512 * 1024;
    static final int GROUP = 32;
    static final int MIN_WINDOW = 160;

    private V3KvBudget() {}

    public static int budgetWindow(V3Config c) {
        long kd = (long) c.numKvHeads() * c.qkDim();
        long vd = (long) c.numKvHeads() * c.vDim();
        long d = c.dModel();
        long layers = c.numLayers();
        long sites = c.engramLayers().size();
        long perLayer = kd + vd + (kd / GROUP + vd / GROUP) * 4;
        long perSite = d + (d / GROUP) * 4;
        long maxSeq = c.maxSeqLen();
        if (c.slidingWindow() != 0) {
            long global = c.globalLayers().size();
            long local = Math.min(c.slidingWindow(), maxSeq);
            long fixed = ((layers - global) * perLayer + sites * perSite) * local;
            if (global == 0) return (int) (fixed <= BUDGET_BYTES ? maxSeq : Math.max(MIN_WINDOW, local));
            // Python's // floors: the remainder can be negative
            long ctx = Math.floorDiv(Math.floorDiv(BUDGET_BYTES - fixed, global * perLayer), GROUP) * GROUP;
            return (int) Math.max(MIN_WINDOW, Math.min(ctx, maxSeq));
        }
        long window = BUDGET_BYTES / (layers * perLayer + sites * perSite) / GROUP * GROUP;
        return (int) Math.max(MIN_WINDOW, Math.min(window, maxSeq));
    }

    /** The window build_main passes to write_export: the budget, or the config's kv_window if smaller. */
    public static int effectiveWindow(V3Config c) {
        int budget = budgetWindow(c);
        return c.kvWindow() != 0 ? Math.min(budget, c.kvWindow()) : budget;
    }
}
