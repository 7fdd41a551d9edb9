package dev.needlewb.cli;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.AtomicFileWriter;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.io.Npz;
import dev.needlewb.reference.CachedDecoder;
import dev.needlewb.reference.ForwardOptions;
import dev.needlewb.reference.NpyExport;
import dev.needlewb.reference.ReferenceForward;
import dev.needlewb.reference.Taps;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.channels.Channels;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "reference", mixinStandardHelpOptions = true,
        description = "Run the float64 reference forward (upstream JAX numerics) and write logits and taps as .npz.")
final class ReferenceCommand implements Callable<Integer> {
    @Parameters(paramLabel = "MODEL", description = "A checkpoint (.pkl, raw weights), a .cact (dequantized) or a state dict (.pt/.safetensors, with --like).")
    Path model;

    @ArgGroup(exclusive = true, multiplicity = "1")
    TokenArguments input;

    @Option(names = "--tokenizer", paramLabel = "FILE", description = "Tokenizer for --prompt (.cact or SentencePiece .model) when MODEL has none.")
    Path tokenizer;

    @Option(names = "--like", paramLabel = "FILE.cact", description = "Geometry and names for a state-dict MODEL.")
    Path like;

    @Option(names = "--quant", description = "Upstream quant=True: A8 fake quant of activations.")
    boolean quant;

    @Option(names = "--kv-bits", defaultValue = "8", description = "K and V rounding with --quant, as upstream configure_deploy: 2-4 CQ, 0 none, 8 upstream's default (Needle 2: none; Needle 3: A8) (default: ${DEFAULT-VALUE}).")
    int kvBits;

    @Option(names = "--int8-kv", description = "Emulate the production int8 KV cache (one float32 scale per 32 values); not in upstream.")
    boolean int8Kv;

    @Option(names = "--cached", description = "Use the cached decode path: prefill --prefill tokens, then one step per token.")
    boolean cached;

    @Option(names = "--prefill", defaultValue = "1", description = "Prompt tokens prefilled in one call with --cached (default: ${DEFAULT-VALUE}).")
    int prefill;

    @Option(names = "--window", defaultValue = "0", description = "Sliding attention window (0: none).")
    int window;

    @Option(names = "--sinks", defaultValue = "0", description = "Number of leading positions always visible under the window.")
    int sinks;

    @Option(names = "--taps", description = "Record every named intermediate (full-sequence path only).")
    boolean taps;

    @Option(names = "--hidden", description = "Also write hidden_states [L,T,d] and hidden_cells [T,L+1,d].")
    boolean hidden;

    @Option(names = "--heads", description = "Also write the probe heads' outputs when present (Needle 2: contrastive vector, confidence logit; Needle 3: embedding, confidence, router).")
    boolean heads;

    @Option(names = "--mtp", description = "Also write the MTP branch's logits (training checkpoints that carry mtp_* parameters).")
    boolean mtp;

    @Option(names = "--out", required = true, paramLabel = "FILE.npz", description = "Output .npz (numpy reads it).")
    Path out;

    @picocli.CommandLine.Mixin
    NonFiniteOption nonFinite;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws WorkbenchException {
        if (taps && cached) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--taps records the full-sequence path; drop --cached");
        if (sinks > 0 && window == 0) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--sinks needs a --window");
        if (cached && prefill < 1) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--prefill must be at least 1");
        if (kvBits < 0 || kvBits == 1 || (kvBits > 4 && kvBits < 8)) {
            throw new WorkbenchException(ErrorKind.BAD_OPTION, "--kv-bits " + kvBits + ": the reference fake-quantizes K and V with the 2-, 3- or 4-bit CQ codebook"
                    + " (0: K and V left alone; 8 or more: upstream's default, off for Needle 2 and A8 per head for Needle 3)");
        }
        long t0 = System.nanoTime();
        ModelSource source = ModelSource.load(model, like, nonFinite.policy());
        int[] ids = input.resolve(source.tokenizer(), tokenizer, source.geometry().vocab(), source.geometry().generation());
        ReferenceForward ref = source.reference();
        ForwardOptions options = ForwardOptions.DEFAULT.withQuant(quant).withInt8Kv(int8Kv);
        if (kvBits < 8) options = options.withKvBits(kvBits);
        ref.check(options);
        if (window > 0) options = options.withWindow(window, sinks);
        Taps recorder = taps ? Taps.all() : Taps.off();
        options = options.withTaps(recorder);

        Map<String, NpyArray> arrays = new LinkedHashMap<>();
        arrays.put("tokens", NpyArray.ofInts(new int[] {ids.length}, ids));
        double[][] logits;
        if (cached) {
            CachedDecoder decoder = ref.decoder(ids.length, options);
            int p = Math.min(prefill, ids.length);
            logits = new double[ids.length][];
            double[][] first = decoder.prefill(java.util.Arrays.copyOf(ids, p));
            System.arraycopy(first, 0, logits, 0, p);
            for (int t = p; t < ids.length; t++) logits[t] = decoder.step(ids[t]);
            arrays.putAll(decoder.cache());
        } else {
            logits = ref.forward(ids, options);
        }
        arrays.put("logits", NpyExport.matrix(logits));
        recorder.toNpz().forEach((name, a) -> arrays.put("tap." + name, a));
        ForwardOptions plain = options.withTaps(Taps.off());
        if (hidden) {
            arrays.put("hidden_states", NpyExport.cube(ref.hiddenStates(ids, plain)));
            arrays.put("hidden_cells", NpyExport.cube(ref.hiddenCells(ids, plain)));
        }
        if (mtp && !ref.hasMtp()) throw new WorkbenchException(ErrorKind.MISSING_KEY, model + ": --mtp, but the model has no MTP branch (mtp_* parameters)");
        arrays.putAll(ref.extraOutputs(ids, plain, heads, mtp));

        AtomicFileWriter.write(out, ch -> {
            OutputStream os = new BufferedOutputStream(Channels.newOutputStream(ch), 1 << 16);
            Npz.write(os, arrays);
            os.flush();
        }, model);
        double[] last = logits[logits.length - 1];
        int argmax = 0;
        for (int i = 1; i < last.length; i++) if (last[i] > last[argmax]) argmax = i;
        PrintWriter say = spec.commandLine().getOut();
        String windowText = window > 0 ? window + " (--window, " + sinks + " sinks)"
                : "none (header window: " + source.geometry().slidingWindowText() + ")";
        say.printf(Locale.ROOT, "%s: %d tokens, %s path%s, window %s; last position argmax %d (logit %.6f); %d arrays in %.2f s%n",
                out, ids.length, cached ? "cached" : "full-sequence", quant ? ", quant" : "", windowText, argmax, last[argmax],
                arrays.size(), (System.nanoTime() - t0) / 1e9);
        say.flush();
        return 0;
    }
}
