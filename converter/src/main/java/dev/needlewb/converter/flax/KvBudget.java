package dev.needlewb.converter.flax;

/**
 * Upstream's KV budget ({@code kv_budget_window} / {@code effective_kv_window}, SPEC section 5):
 * the widest window whose int8 K/V (one f32 scale per 32 values) plus the engram state fit in
 * 11.5 MiB per sequence, floored to a multiple of 32, capped at max_seq_len and then raised to at
 * least 160: {@code max(KV_WINDOW_MIN, min(window, max_seq_len))}. A model whose max_seq_len is
 * below 160 therefore gets a window of 160, longer than its context (valid; it never binds).
 */
public final class KvBudget {
    static final long BUDGET_BYTES = 11L * 1024 * 1024 + 512 * 1024;
    static final int GROUP = 32;
    static final int MIN_WINDOW = 160;

    private KvBudget() {}

    /** Bytes one position costs: K and V of every layer plus one engram vector per site. */
    public static long bytesPerPosition(FlaxConfig c) {
        long kv = c.kvDim();
        long d = c.dModel();
        return c.numLayers() * (2 * kv + 2 * (kv / GROUP) * 4) + c.engramLayers().length * (d + (d / GROUP) * 4);
    }

    public static int budgetWindow(FlaxConfig c) {
        long window = BUDGET_BYTES / bytesPerPosition(c) / GROUP * GROUP;
        return (int) Math.max(MIN_WINDOW, Math.min(window, c.maxSeqLen()));
    }

    /** The window the exporter writes: the budget, or the config's kv_window if that is smaller. */
    public static int effectiveWindow(FlaxConfig c) {
        int budget = budgetWindow(c);
        return c.kvWindow() != 0 ? Math.min(budget, c.kvWindow()) : budget;
    }
}
