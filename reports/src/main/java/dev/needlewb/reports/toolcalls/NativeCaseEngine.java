package dev.needlewb.reports.toolcalls;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.engine.BatchPrefill;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.EngineOptions;
import dev.needlewb.engine.Prefill;
import dev.needlewb.engine.PrefixCache;
import dev.needlewb.engine.Session;
import dev.needlewb.engine.generate.Generator;
import dev.needlewb.engine.generate.Sampler;
import dev.needlewb.engine.kernel.NumericMode;
import dev.needlewb.engine.torch.TorchPrefill;
import java.util.ArrayList;
import java.util.List;

/**
 * The workbench engine on the packed weights (exact or int8 mode; native, batch or torch prefill), with the
 * header window and no sinks (upstream's decode pins none). One session serves every case: it is
 * reset between cases, the way a server reuses its buffers. With the native prefill a case steps only the prompt
 * tokens no earlier case shared ({@link PrefixCache}: the system turn, the tools a case lists in the same order
 * as an earlier one; the same bits as prefilling each prompt whole).
 */
final class NativeCaseEngine implements CaseEngine {
    static final int CANDIDATES = 3;
    /** Most bytes of prompt KV rows kept per engine: at the released geometry a position takes 55,296 bytes in exact mode, 15,552 in int8. */
    private static final long PREFIX_BYTES = Math.min(512L << 20, Runtime.getRuntime().maxMemory() / 8);

    private final String name;
    private final Engine engine;
    private final Prefill prefill;
    private final Runnable release;
    private final Session session;
    private PrefixCache prefixes;

    /** How the prompt enters the session: token by token, the batch prefill, or libtorch. */
    enum PromptPath { NATIVE, BATCH, TORCH }

    NativeCaseEngine(String name, CactFile cact, NumericMode mode, PromptPath path, int threads) throws WorkbenchException {
        this.name = name;
        EngineOptions options = EngineOptions.production().withMode(mode).withThreads(threads).withWindow(EngineOptions.FROM_HEADER, 0);
        this.engine = Engine.load(cact, options);
        try {
            switch (path) {
                case NATIVE -> {
                    prefill = Prefill.NATIVE;
                    release = () -> {};
                }
                case BATCH -> {
                    BatchPrefill batch = BatchPrefill.open(engine);
                    prefill = batch;
                    release = batch::close;
                }
                case TORCH -> {
                    TorchPrefill torch = TorchPrefill.of(cact, threads);
                    prefill = torch;
                    release = torch::close;
                }
                default -> throw new IllegalStateException(path.name());
            }
        } catch (WorkbenchException | RuntimeException e) {
            engine.close();
            throw e;
        }
        this.session = engine.newSession();
        this.prefixes = path == PromptPath.NATIVE ? new PrefixCache(engine, PREFIX_BYTES) : null;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void forgetPrefixes() {
        if (prefixes != null) prefixes = new PrefixCache(engine, PREFIX_BYTES);
    }

    @Override
    public int maxPositions() {
        return engine.maxPositions();
    }

    @Override
    public Answer answer(ToolCallRunner runner, ToolCallRunner.Prepared p, int maxNew) throws WorkbenchException {
        session.reset();
        List<Answer.Candidates> steps = new ArrayList<>();
        Prefill promptPath = prefixes == null ? prefill : prefixes;
        Generator generator = new Generator(engine, runner.tokenizer(), promptPath);
        long steppedBefore = prefixes == null ? 0 : prefixes.steppedTokens();
        long start = System.nanoTime();
        ToolCallRunner.Outcome o = runner.run(generator, session, p, maxNew, Sampler.greedy(), true, null,
                (logits, chosen) -> steps.add(top(logits)));
        long wall = System.nanoTime() - start;
        Generator.Timings t = o.result().timings();
        int promptTokens = p.prompt().ids().length;
        int stepped = prefixes == null ? promptTokens : (int) (prefixes.steppedTokens() - steppedBefore);
        return new Answer(o.result().generatedIds(), o.callsJson(), steps, t.decodeSteps(), t.decodeNanos(), wall, promptTokens, stepped);
    }

    /** The most likely tokens of a masked distribution (softmax over the allowed logits). */
    static Answer.Candidates top(float[] logits) {
        float max = Float.NEGATIVE_INFINITY;
        for (float v : logits) max = Math.max(max, v);
        double sum = 0;
        for (float v : logits) if (v != Float.NEGATIVE_INFINITY) sum += Math.exp(v - max);
        int[] ids = new int[CANDIDATES];
        double[] probs = new double[CANDIDATES];
        java.util.Arrays.fill(ids, -1);
        for (int id = 0; id < logits.length; id++) {
            if (logits[id] == Float.NEGATIVE_INFINITY) continue;
            double p = Math.exp(logits[id] - max) / sum;
            for (int k = 0; k < CANDIDATES; k++) {
                if (ids[k] < 0 || p > probs[k]) {
                    System.arraycopy(ids, k, ids, k + 1, CANDIDATES - k - 1);
                    System.arraycopy(probs, k, probs, k + 1, CANDIDATES - k - 1);
                    ids[k] = id;
                    probs[k] = p;
                    break;
                }
            }
        }
        int n = 0;
        while (n < CANDIDATES && ids[n] >= 0) n++;
        return new Answer.Candidates(java.util.Arrays.copyOf(ids, n), java.util.Arrays.copyOf(probs, n));
    }

    @Override
    public void close() {
        release.run();
        engine.close();
    }
}
