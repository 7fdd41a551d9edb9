package dev.needlewb.engine.grammar;

import dev.needlewb.engine.generate.Sampler;
import dev.needlewb.engine.generate.TokenConstraint;

/**
 * One constrained generation: the automaton state, the thinking budget and the token budget. Each
 * pick is masked to the grammar; if the token picked would leave a shortest completion longer
 * than the tokens left, the mask is narrowed to the tokens that fit and the pick redone, so the
 * call list is always closed in time (every byte has a byte-fallback token, so a completion of n
 * symbols takes at most n tokens). The thinking ends after {@code thinkLimit} tokens.
 */
public final class ConstrainedDecoding implements TokenConstraint {
    /** Sees every masked distribution and the token chosen from it (for reports). */
    @FunctionalInterface
    public interface StepObserver {
        void onStep(float[] maskedLogits, int chosen);
    }

    private final GrammarMasks masks;
    private final int thinkLimit;
    private final int thinkEndToken;
    private final StepObserver observer;
    private Frame state;
    private int thinkTokens;
    private long maskNanos;
    private int steps;

    public ConstrainedDecoding(GrammarMasks masks, int thinkLimit, StepObserver observer) {
        this.masks = masks;
        this.thinkLimit = thinkLimit;
        this.thinkEndToken = masks.tokens().singleSymbolToken(Symbols.THINK_END);
        this.observer = observer;
        this.state = masks.grammar().start();
    }

    /** Tokens the shortest answer takes: a generation needs at least this many. */
    public int minimumTokens() {
        return Frame.totalNeed(masks.grammar().start());
    }

    /** {@link #minimumTokens} for a message: a count too large to matter is "more than" the largest one kept. */
    public String minimumTokensText() {
        int n = minimumTokens();
        return n >= Need.MAX ? "more than " + (Need.MAX - 1) : Integer.toString(n);
    }

    /** Whether the call list has been closed. */
    public boolean complete() {
        return ToolCallGrammar.complete(state);
    }

    /** Wall time spent masking and checking the budget, over {@link #steps} picks. */
    public long maskNanos() {
        return maskNanos;
    }

    public int steps() {
        return steps;
    }

    @Override
    public int choose(float[] logits, Sampler sampler, int remaining) {
        long start = System.nanoTime();
        boolean thinkOver = ToolCallGrammar.thinking(state) && thinkTokens >= thinkLimit && thinkEndToken >= 0;
        apply(logits, thinkOver ? masks.only(thinkEndToken) : masks.allowed(state));
        int token = sampler.next(logits);
        if (!fits(token, remaining)) {
            for (int id = 0; id < logits.length; id++) {
                if (logits[id] != Float.NEGATIVE_INFINITY && !fits(id, remaining)) logits[id] = Float.NEGATIVE_INFINITY;
            }
            token = sampler.next(logits);
            if (logits[token] == Float.NEGATIVE_INFINITY) {
                throw new IllegalStateException("no token finishes the tool call within the " + remaining + " tokens left");
            }
        }
        maskNanos += System.nanoTime() - start;
        steps++;
        if (observer != null) observer.onStep(logits, token);
        return token;
    }

    private boolean fits(int token, int remaining) {
        Frame next = masks.advance(state, token);
        return next != null && Frame.totalNeed(next) <= remaining - 1;
    }

    private static void apply(float[] logits, long[] allowed) {
        for (int w = 0; w < allowed.length; w++) {
            long bits = allowed[w];
            int base = w << 6;
            int end = Math.min(base + 64, logits.length);
            if (bits == -1L) continue;
            for (int id = base; id < end; id++) if ((bits >>> (id - base) & 1) == 0) logits[id] = Float.NEGATIVE_INFINITY;
        }
    }

    @Override
    public void accept(int token) {
        boolean wasThinking = ToolCallGrammar.thinking(state);
        Frame next = masks.advance(state, token);
        if (next == null) throw new IllegalStateException("token " + token + " is outside the grammar");
        state = next;
        if (wasThinking && ToolCallGrammar.thinking(state)) thinkTokens++;
    }
}
