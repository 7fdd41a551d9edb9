package dev.needlewb.cli;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.converter.flax.FlaxCheckpointWriter;
import dev.needlewb.converter.flax.FlaxParamShapes;
import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.converter.synth.SyntheticSentencePiece;
import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.tokenizer.SpecialTokens;
import dev.needlewb.reference.v3.SyntheticV3Params;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The demo's Needle 3 steps, beside Needle 2's: a synthetic Needle 3 training checkpoint (small,
 * so that the steps take seconds; the released geometry's costs are in docs/reference-v3.md), its
 * export to a {@code .cact} with the shipped bits scheme, the state-dict round trip, and the
 * float64 reference from the checkpoint in upstream's quant=False and quant=True modes, parity of the
 * engine's exact and int8 modes against the reference on the exported file, and two tool calls.
 */
final class Needle3Demo {
    /** The shipped file's scheme (embedding=4, mhc=4, default=2). */
    static final String SHIPPED_BITS = "embedding=4,mhc=4,default=2";

    private Needle3Demo() {}

    /**
     * A Needle 3 config as upstream's checkpoints save it: d_model 256, 4 layers, 4/2 heads, qk 32 / v 48,
     * a sliding window of 32 with layer 2 global, 3 QKV conv taps, engram sites 1 and 3, vocab 512; max_seq_len 4096
     * so the built-in tool-call prompts (spelled mostly byte by byte by the synthetic tokenizer) fit.
     */
    static Map<String, Object> config() {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("vocab_size", 512L);
        c.put("d_model", 256L);
        c.put("num_heads", 4L);
        c.put("num_kv_heads", 2L);
        c.put("num_layers", 4L);
        c.put("qk_head_dim", 32L);
        c.put("v_head_dim", 48L);
        c.put("max_seq_len", 4096L);
        c.put("engram_slots", 512L);
        c.put("engram_layers", List.of(1L, 3L));
        c.put("global_layers", List.of(2L));
        c.put("sliding_window", 32L);
        c.put("qkv_conv_taps", 3L);
        c.put("kv_bits", 8L);
        return c;
    }

    /** Runs the steps, reporting each through {@code demo} and adding the files to {@code written}; returns whether parity passed. */
    static boolean run(Path out, long seed, DemoCommand demo, PrintWriter say, List<Path> written) throws WorkbenchException, IOException {
        Path ckpt = out.resolve("needle3-synthetic.ckpt.pkl");
        Path tok = out.resolve("needle3-synthetic.tok.model");
        Path cact = out.resolve("needle3-synthetic.cact");

        long t0 = System.nanoTime();
        Map<String, Object> saved = config();
        V3Config config = V3Config.fromSaved(saved);
        Map<String, NpyArray> params = new TreeMap<>(FlaxParamShapes.TREE_ORDER);
        params.putAll(SyntheticV3Params.flax(config, EnumSet.of(V3ProbeHead.CONFIDENCE), seed));
        FlaxCheckpointWriter.write(new FlaxCheckpoint(FlaxCheckpoint.FORMAT_VERSION, new LinkedHashMap<>(params), saved, 0L,
                Map.of("note", "needle-wb demo, synthetic weights")), ckpt);
        Files.write(tok, SyntheticSentencePiece.of(config.vocabSize(), SpecialTokens.NEEDLE3_CHAT_MARKERS, true));
        written.addAll(List.of(ckpt, tok));
        demo.step(say, "v3 synth", "a random Needle 3 checkpoint (d_model 256, 4 layers, qk 32 / v 48, window 32 with a global layer, conv taps,"
                + " 2 engram sites, confidence head) and a tokenizer with Needle 3's 16 chat markers", t0);

        t0 = System.nanoTime();
        DemoCommand.subcommand("convert", ckpt.toString(), "--to", cact.toString(), "--tokenizer", tok.toString(), "--bits-map", SHIPPED_BITS);
        try (CactFile f = CactFile.open(cact)) {
            demo.step(say, "v3 export", "checkpoint -> " + cact.getFileName() + " as upstream's write_export, bits " + SHIPPED_BITS + ": "
                    + String.format(java.util.Locale.ROOT, "%d tensors, %,d bytes, tag %s", f.numTensors(), f.fileBytes(),
                    dev.needlewb.core.generation.Generation.hex(f.generation().generation().tag())), t0);
        }
        written.addAll(List.of(cact, Path.of(cact + ".manifest.json"), Path.of(cact + ".manifest.md")));

        Path st = out.resolve("needle3-synthetic.safetensors");
        Path back = out.resolve("needle3-synthetic.from-safetensors.cact");
        t0 = System.nanoTime();
        DemoCommand.subcommand("convert", cact.toString(), "--to", st.toString());
        DemoCommand.subcommand("convert", st.toString(), "--to", back.toString(), "--base", cact.toString());
        boolean identical = Files.mismatch(cact, back) == -1;
        demo.step(say, "v3 convert", ".cact -> .safetensors -> .cact with --base: " + (identical ? "byte-identical" : "DIFFERENT"), t0);
        if (!identical) throw new WorkbenchException(ErrorKind.STEP_FAILED, back + ": the unedited .safetensors round trip changed the file");
        written.addAll(List.of(st, back, Path.of(st + ".manifest.json"), Path.of(back + ".manifest.json")));

        for (boolean quant : new boolean[] {false, true}) {
            Path npz = out.resolve("needle3-synthetic.reference" + (quant ? ".q1" : ".q0") + ".npz");
            List<String> args = new ArrayList<>(List.of("reference", ckpt.toString(), "--prompt", DemoCommand.PARITY_PROMPT, "--tokenizer", tok.toString(),
                    "--heads", "--out", npz.toString()));
            if (quant) args.add("--quant");
            t0 = System.nanoTime();
            DemoCommand.subcommand(args.toArray(String[]::new));
            demo.step(say, "v3 ref " + (quant ? "q1" : "q0"), "float64 reference from the checkpoint, upstream quant=" + (quant ? "True (A8, int8 K/V per head)" : "False")
                    + ", prompt \"" + DemoCommand.PARITY_PROMPT + "\": logits and the confidence head -> " + npz.getFileName(), t0);
            written.add(npz);
        }

        boolean parityPassed = demo.parity(cact, out.resolve("needle3-parity"), "v3 parity", "on the Needle 3 model", say, written);
        demo.toolCalls(cact, out.resolve("needle3-toolcalls"), "v3 tools", say, written);
        return parityPassed;
    }
}
