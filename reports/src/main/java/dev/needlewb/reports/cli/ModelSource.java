package dev.needlewb.reports.cli;

import dev.needlewb.converter.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.convert.Format;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.convert.StateDictFiles;
import dev.needlewb.converter.convert.WeightSources;
import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.reports.convert.FlaxTree;
import dev.needlewb.converter.flax.FlaxCheckpointReader;
import dev.needlewb.converter.flax.KvBudget;
import dev.needlewb.converter.io.NpyArray;
import dev.needlewb.converter.model.Geometry;
import dev.needlewb.converter.names.NameMap;
import java.nio.file.Path;
import java.util.Map;

/**
 * A model's weights as the Flax parameter tree the reference reads, from any format the
 * converter knows: a checkpoint (raw weights), a .cact (dequantized as upstream's read_export),
 * or a state dict (shapes and names from a .cact given with {@code like}).
 */
record ModelSource(Geometry geometry, Map<String, NpyArray> flaxParams, byte[] tokenizer) {

    static ModelSource load(Path model, Path like) throws WorkbenchException {
        return switch (Format.of(model)) {
            case FLAX -> {
                FlaxCheckpoint ckpt = FlaxCheckpointReader.read(model);
                var config = ckpt.flaxConfig();
                yield new ModelSource(config.toGeometry(KvBudget.effectiveWindow(config)), ckpt.params(), null);
            }
            case CACT -> {
                try (CactFile cact = CactFile.open(model)) {
                    yield fromWeights(cact.geometry(), WeightSources.fromCact(cact, false));
                }
            }
            case TORCH, SAFETENSORS -> {
                if (like == null) throw new WorkbenchException(model + ": a state dict needs --like FILE.cact for its geometry and names");
                try (CactFile cact = CactFile.open(like)) {
                    NameMap names = WeightSources.namesOf(cact);
                    ModelWeights w = WeightSources.fromStateDict(StateDictFiles.read(model, Format.of(model)), names, model);
                    var tokenizer = cact.tokenizerBlob();
                    yield fromWeights(cact.geometry(), tokenizer == null ? w : w.withTokenizer(tokenizer.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
                }
            }
        };
    }

    private static ModelSource fromWeights(Geometry geometry, ModelWeights w) throws WorkbenchException {
        return new ModelSource(geometry, FlaxTree.of(w), w.tokenizer());
    }
}
