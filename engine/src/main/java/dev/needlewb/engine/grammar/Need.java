package dev.needlewb.engine.grammar;

/**
 * Byte counts of shortest completions, in saturating arithmetic: schema bounds reach 2^31 - 1
 * ({@code "minItems": 2147483647}), so a plain int sum or product would wrap to a small or negative
 * need and let a budget check pass that no answer can meet. {@link #DEAD} means no completion
 * exists; any finite count too large to matter stops at {@link #MAX}, which is still alive, so a
 * huge but satisfiable schema is told apart from an impossible one.
 */
final class Need {
    /** No valid completion. */
    static final int DEAD = Integer.MAX_VALUE / 4;
    /** The largest finite count: "at least this many". */
    static final int MAX = DEAD - 1;

    private Need() {}

    /** Both are byte counts of completions (never raw item counts, which may exceed {@link #DEAD} and are {@link #times}'s job). */
    static int add(int a, int b) {
        if (a >= DEAD || b >= DEAD) return DEAD;
        return (int) Math.min((long) a + b, MAX);
    }

    static int add(int a, int b, int c) {
        return add(add(a, b), c);
    }

    /** {@code count} copies of {@code each} bytes ({@code count >= 0}; a product of two ints cannot overflow a long). */
    static int times(int count, int each) {
        if (count == 0) return 0;
        if (each >= DEAD) return DEAD;
        return (int) Math.min((long) count * each, MAX);
    }
}
