package dev.needlewb.converter.convert;

import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.names.NameMap;
import dev.needlewb.converter.names.NameRow;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.SequencedMap;

/**
 * The one in-memory form every conversion goes through: the name map of the model and its
 * weights by canonical name, each in the {@code .cact} / PyTorch layout ({@code [out, in]}),
 * float32 or float16 as the source held them, plus the tokenizer blob when the source has one.
 * Rows without weights (heads.manifest, tokenizer) are never in {@code tensors}; the contrastive
 * bias (absent in Flax) may be missing.
 */
public record ModelWeights(NameMap names, SequencedMap<String, NpyArray> tensors, byte[] tokenizer) {

    public ModelWeights {
        tensors = Collections.unmodifiableSequencedMap(new LinkedHashMap<>(tensors));
        tokenizer = tokenizer == null ? null : tokenizer.clone();
    }

    @Override
    public byte[] tokenizer() {
        return tokenizer == null ? null : tokenizer.clone();
    }

    public ModelWeights withTokenizer(byte[] blob) {
        return new ModelWeights(names, tensors, blob);
    }

    /** The weights of {@code row}, or null. */
    public NpyArray tensor(NameRow row) {
        return tensors.get(row.name());
    }
}
