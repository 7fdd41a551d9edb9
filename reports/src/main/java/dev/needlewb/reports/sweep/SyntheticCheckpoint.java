package dev.needlewb.reports.sweep;

import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.converter.flax.FlaxCheckpointWriter;
import dev.needlewb.converter.v2.ProbeHead;
import dev.needlewb.converter.synth.DrawnGeometry;
import dev.needlewb.converter.synth.SyntheticSentencePiece;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.AtomicFileWriter;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.reference.SyntheticParams;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The inputs a user would give {@code convert} for a drawn geometry: an upstream training checkpoint
 * (format 2 pickle: random parameters of exactly the Flax shapes, the config dict, the probe heads the
 * draw keeps) and a SentencePiece model of its vocabulary.
 */
public final class SyntheticCheckpoint {
    private SyntheticCheckpoint() {}

    /** Writes {@code checkpoint} and {@code tokenizer} (each atomically); the weights are a function of {@code seed}. */
    public static void write(DrawnGeometry drawn, long seed, Path checkpoint, Path tokenizer) throws WorkbenchException {
        Map<String, NpyArray> params = new LinkedHashMap<>();
        int contrastiveDim = drawn.flaxConfig().contrastiveDim();
        SyntheticParams.flax(drawn.geometry(), contrastiveDim, false, seed).forEach((key, value) -> {
            if (!key.contains("_head/") || drawn.heads().stream().map(ProbeHead::key).anyMatch(h -> key.startsWith(h + "/"))) {
                params.put(key, value);
            }
        });
        FlaxCheckpointWriter.write(new FlaxCheckpoint(FlaxCheckpoint.FORMAT_VERSION, new LinkedHashMap<>(params), drawn.config(), 0L,
                Map.of()), checkpoint);
        byte[] model = SyntheticSentencePiece.of(drawn.geometry().vocab());
        AtomicFileWriter.write(tokenizer, ch -> {
            ByteBuffer b = ByteBuffer.wrap(model);
            while (b.hasRemaining()) ch.write(b);
        });
    }
}
