package dev.needlewb.reports.sweep;

import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.converter.flax.FlaxCheckpointWriter;
import dev.needlewb.converter.flax.FlaxParamShapes;
import dev.needlewb.converter.synth.DrawnGeometry;
import dev.needlewb.converter.synth.DrawnModel;
import dev.needlewb.converter.synth.DrawnV3Geometry;
import dev.needlewb.converter.synth.SyntheticSentencePiece;
import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.AtomicFileWriter;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.tokenizer.SpecialTokens;
import dev.needlewb.reference.SyntheticParams;
import dev.needlewb.reference.v3.SyntheticV3Params;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The inputs a user would give {@code convert} for a drawn geometry: an upstream training checkpoint
 * (format 2 pickle: random parameters of exactly the Flax shapes of its generation, the config dict, the
 * probe heads the draw keeps) and a SentencePiece model of its vocabulary with that generation's chat
 * markers (Needle 2's ten, Needle 3's sixteen).
 */
public final class SyntheticCheckpoint {
    private SyntheticCheckpoint() {}

    /** Writes {@code checkpoint} and {@code tokenizer} (each atomically); the weights are a function of {@code seed}. */
    public static void write(DrawnModel drawn, long seed, Path checkpoint, Path tokenizer) throws WorkbenchException {
        byte[] model = switch (drawn) {
            case DrawnGeometry v2 -> {
                writeNeedle2(v2, seed, checkpoint);
                yield SyntheticSentencePiece.of(v2.geometry().vocab());
            }
            case DrawnV3Geometry v3 -> {
                writeNeedle3(v3, seed, checkpoint);
                yield SyntheticSentencePiece.of(v3.geometry().vocab(), SpecialTokens.NEEDLE3_CHAT_MARKERS, true);
            }
        };
        AtomicFileWriter.write(tokenizer, ch -> {
            ByteBuffer b = ByteBuffer.wrap(model);
            while (b.hasRemaining()) ch.write(b);
        });
    }

    private static void writeNeedle2(DrawnGeometry drawn, long seed, Path checkpoint) throws WorkbenchException {
        Map<String, NpyArray> params = new LinkedHashMap<>();
        int contrastiveDim = drawn.flaxConfig().contrastiveDim();
        SyntheticParams.flax(drawn.geometry(), contrastiveDim, false, seed).forEach((key, value) -> {
            if (!key.contains("_head/") || drawn.headKeys().stream().anyMatch(h -> key.startsWith(h + "/"))) params.put(key, value);
        });
        write(params, drawn, checkpoint);
    }

    private static void writeNeedle3(DrawnV3Geometry drawn, long seed, Path checkpoint) throws WorkbenchException {
        var heads = drawn.heads().isEmpty() ? EnumSet.noneOf(V3ProbeHead.class) : EnumSet.copyOf(drawn.heads());
        // the tree order upstream's pickle has (sorted keys at every level)
        Map<String, NpyArray> params = new TreeMap<>(FlaxParamShapes.TREE_ORDER);
        params.putAll(SyntheticV3Params.flax(drawn.v3Config(), heads, seed));
        write(params, drawn, checkpoint);
    }

    private static void write(Map<String, NpyArray> params, DrawnModel drawn, Path checkpoint) throws WorkbenchException {
        FlaxCheckpointWriter.write(new FlaxCheckpoint(FlaxCheckpoint.FORMAT_VERSION, new LinkedHashMap<>(params), drawn.config(), 0L,
                Map.of()), checkpoint);
    }
}
