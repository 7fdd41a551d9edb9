package dev.needlewb.engine.generate;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.Prefill;
import dev.needlewb.engine.Session;
import dev.needlewb.core.tokenizer.Tokenizer;

/**
 * Runs a prompt through a fresh session and generates: prefill (token by token, or batched), then pick, stream,
 * step, until EOS (not emitted, as upstream {@code generate_cached}), {@code maxNew} tokens, or a
 * full session. Streams each token with the text it adds; text that ends in a half UTF-8
 * character (decoded as U+FFFD) is held back until the next token completes it.
 */
public final class Generator {
    /**
     * Receives every generated token with the text it completes (possibly empty). If the output
     * ends in an incomplete character, one last call with id {@code -1} flushes the held-back text.
     */
    @FunctionalInterface
    public interface TokenListener {
        void onToken(int id, String textDelta);
    }

    public enum StopReason { EOS, MAX_NEW, MAX_POSITIONS }

    /**
     * Wall times in nanoseconds: {@code prefill} of the prompt, {@code firstToken} from the start
     * of prefill to the first pick, {@code decode} for the {@code decodeSteps} later step+pick rounds.
     */
    public record Timings(long prefillNanos, long firstTokenNanos, long decodeNanos, int decodeSteps) {}

    /** {@code kvCacheBytes}: what the generating session's KV cache holds (the slots it reached, from 256 up, doubling). */
    public record Result(int[] promptIds, int[] generatedIds, String text, StopReason stopReason, Timings timings,
                         long kvCacheBytes) {
        public Result {
            promptIds = promptIds.clone();
            generatedIds = generatedIds.clone();
        }

        @Override
        public int[] promptIds() {
            return promptIds.clone();
        }

        @Override
        public int[] generatedIds() {
            return generatedIds.clone();
        }
    }

    private final Engine engine;
    private final Tokenizer tokenizer;
    private final Prefill prefill;

    /** Prefills natively, token by token. */
    public Generator(Engine engine, Tokenizer tokenizer) {
        this(engine, tokenizer, Prefill.NATIVE);
    }

    /** Prefills with {@code prefill} (e.g. a {@link dev.needlewb.engine.BatchPrefill} of {@code engine}). */
    public Generator(Engine engine, Tokenizer tokenizer, Prefill prefill) {
        this.engine = engine;
        this.tokenizer = tokenizer;
        this.prefill = prefill;
    }

    /**
     * @param stopAtEos false keeps generating past EOS (fixed-length runs for benchmarks)
     * @throws WorkbenchException for an empty prompt, one longer than the engine's positions, or an
     *     id outside the vocabulary
     */
    public Result generate(int[] promptIds, int maxNew, Sampler sampler, boolean stopAtEos, TokenListener listener)
            throws WorkbenchException {
        return generate(engine.newSession(), promptIds, maxNew, sampler, stopAtEos, listener, null);
    }

    /**
     * Generates in {@code session} (fresh, or {@link Session#reset() reset}), each pick made through
     * {@code constraint} when it is not null.
     */
    public Result generate(Session session, int[] promptIds, int maxNew, Sampler sampler, boolean stopAtEos,
                           TokenListener listener, TokenConstraint constraint) throws WorkbenchException {
        check(promptIds, maxNew);
        long start = System.nanoTime();
        float[] logits = prefill.prefill(session, promptIds);
        long prefilled = System.nanoTime();
        TextStream stream = new TextStream(tokenizer);
        int count = 0, steps = 0, previous = -1;
        StopReason reason = StopReason.MAX_NEW;
        long firstToken = 0;
        while (count < maxNew) {
            if (count > 0) {
                logits = session.step(previous);
                steps++;
            }
            int remaining = Math.min(maxNew - count, engine.maxPositions() - session.position());
            int next = constraint == null ? sampler.next(logits) : constraint.choose(logits, sampler, remaining);
            if (constraint != null) constraint.accept(next);
            if (count == 0) firstToken = System.nanoTime();
            if (stopAtEos && next == tokenizer.eosId()) {
                reason = StopReason.EOS;
                break;
            }
            if (session.position() >= engine.maxPositions()) {
                reason = StopReason.MAX_POSITIONS;
                break;
            }
            count++;
            previous = next;
            String delta = stream.append(next);
            if (listener != null) listener.onToken(next, delta);
        }
        long end = System.nanoTime();
        String rest = stream.finish();
        if (listener != null && !rest.isEmpty()) listener.onToken(-1, rest);
        if (count == 0) firstToken = end;
        Timings timings = new Timings(prefilled - start, firstToken - start, end - firstToken, steps);
        return new Result(promptIds, stream.ids(), stream.text(), reason, timings, session.cacheBytes());
    }

    private void check(int[] promptIds, int maxNew) throws WorkbenchException {
        if (promptIds.length == 0) throw new WorkbenchException(ErrorKind.BAD_PROMPT, "the prompt is empty: it needs at least one token");
        if (maxNew < 0) throw new WorkbenchException(ErrorKind.BAD_OPTION, "max new tokens must be >= 0, got " + maxNew);
        if (promptIds.length > engine.maxPositions()) {
            throw new WorkbenchException(ErrorKind.BAD_PROMPT, "the prompt has " + promptIds.length + " tokens but the model holds at most "
                    + engine.maxPositions() + " positions (max_seq_len)");
        }
        int vocab = engine.geometry().vocab();
        for (int i = 0; i < promptIds.length; i++) {
            if (promptIds[i] < 0 || promptIds[i] >= vocab) {
                throw new WorkbenchException(ErrorKind.BAD_PROMPT, "prompt token " + i + " has id " + promptIds[i] + ", outside the vocabulary 0.." + (vocab - 1));
            }
        }
    }
}
