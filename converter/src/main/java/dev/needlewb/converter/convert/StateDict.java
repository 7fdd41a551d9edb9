package dev.needlewb.converter.convert;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.safetensors.Safetensors;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;

/**
 * A state dict read from {@code file}: PyTorch key to tensor, in the file's order, and where each
 * tensor's bytes lie in the file when the format says (safetensors; a .pt's storages may be
 * compressed, shared or strided, so its errors name the key without an offset).
 */
public record StateDict(Path file, SequencedMap<String, NpyArray> tensors, Map<String, Safetensors.Stored> stored) {

    public StateDict {
        tensors = Collections.unmodifiableSequencedMap(new LinkedHashMap<>(tensors));
        stored = Map.copyOf(stored);
    }

    /** A state dict held in memory, with no file offsets. */
    public static StateDict of(Path file, Map<String, NpyArray> tensors) {
        return new StateDict(file, new LinkedHashMap<>(tensors), Map.of());
    }

    /** An error about tensor {@code key} at its element {@code element} (its data start for 0), with the file offset where known. */
    public FormatException error(ErrorKind kind, String key, long element, String problem) {
        int index = List.copyOf(tensors.keySet()).indexOf(key);
        Safetensors.Stored where = stored.get(key);
        return new FormatException(kind, file, index, key, where == null ? FormatException.NO_OFFSET : where.byteOf(element), problem);
    }
}
