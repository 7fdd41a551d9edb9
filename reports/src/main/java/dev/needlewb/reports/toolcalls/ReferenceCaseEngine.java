package dev.needlewb.reports.toolcalls;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.engine.generate.Sampler;
import dev.needlewb.engine.grammar.ConstrainedDecoding;
import dev.needlewb.engine.grammar.ToolCallAnswer;
import dev.needlewb.reference.CachedDecoder;
import dev.needlewb.reference.ForwardOptions;
import dev.needlewb.reference.ReferenceForward;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The float64 reference (upstream's cached decode path, quant=False, the header window) on the
 * weights of {@code --against}: greedy constrained decoding through the same grammar as the engines,
 * its logits rounded to float32 only to be masked and picked. Clear rather than fast.
 */
public final class ReferenceCaseEngine implements CaseEngine {
    private final ReferenceForward model;
    private final int window;

    public ReferenceCaseEngine(ReferenceForward model) {
        this.model = model;
        this.window = model.headerWindow();
    }

    @Override
    public String name() {
        return "reference";
    }

    @Override
    public int maxPositions() {
        return model.geometry().maxSeqLen();
    }

    @Override
    public Answer answer(ToolCallRunner runner, ToolCallRunner.Prepared p, int maxNew) throws WorkbenchException {
        int[] prompt = p.prompt().ids();
        int room = Math.min(maxNew, maxPositions() - prompt.length);
        List<Answer.Candidates> steps = new ArrayList<>();
        ConstrainedDecoding decoding = runner.decoding(p, (logits, chosen) -> steps.add(NativeCaseEngine.top(logits)));
        if (room < decoding.minimumTokens()) {
            throw new WorkbenchException(ErrorKind.BAD_PROMPT, "the prompt leaves " + room + " positions, fewer than the shortest answer's " + decoding.minimumTokensText());
        }
        ForwardOptions options = window > 0 ? ForwardOptions.DEFAULT.withWindow(window, null) : ForwardOptions.DEFAULT;
        long start = System.nanoTime();
        CachedDecoder decoder = model.decoder(prompt.length + room, options);
        double[][] prefill = decoder.prefill(prompt);
        double[] logits = prefill[prefill.length - 1];
        long decodeStart = 0;
        int[] ids = new int[room];
        int count = 0;
        Sampler greedy = Sampler.greedy();
        float[] f = new float[logits.length];
        while (count < room) {
            if (count == 1) decodeStart = System.nanoTime();
            for (int i = 0; i < f.length; i++) f[i] = (float) logits[i];
            int next = decoding.choose(f, greedy, room - count);
            decoding.accept(next);
            if (next == runner.tokenizer().eosId()) break;
            ids[count++] = next;
            if (count < room) logits = decoder.step(next);
        }
        long end = System.nanoTime();
        int[] generated = Arrays.copyOf(ids, count);
        int decodeSteps = Math.max(0, count - 1);
        return new Answer(generated, ToolCallAnswer.callsJson(generated, runner.tokenizer()), steps, decodeSteps,
                decodeStart == 0 ? 0 : end - decodeStart, end - start, prompt.length, prompt.length);
    }

    @Override
    public void close() {
        // nothing held beyond the heap
    }
}
