package dev.needlewb.converter.convert;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.FileOutput;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.finite.NonFiniteCount;
import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.converter.safetensors.Safetensors;
import dev.needlewb.converter.torch.TorchStateDict;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Reads and writes state dicts (PyTorch key to tensor) in the state-dict formats. */
public final class StateDictFiles {
    private StateDictFiles() {}

    /**
     * Reads a state dict; with {@link NonFinitePolicy#REFUSE} a tensor holding NaN or infinity is
     * refused, naming the key, the first such element and (safetensors) its byte offset.
     */
    public static StateDict read(Path file, Format format, NonFinitePolicy policy) throws WorkbenchException {
        StateDict dict;
        try {
            dict = switch (format) {
                case SAFETENSORS -> {
                    Safetensors.Contents c = Safetensors.read(file);
                    yield new StateDict(file, new LinkedHashMap<>(c.tensors()), c.stored());
                }
                case TORCH -> StateDict.of(file, TorchStateDict.read(file));
                default -> throw new IllegalArgumentException(format + " is not a state-dict format");
            };
        } catch (IOException e) {
            throw WorkbenchException.cannotRead(file, e);
        }
        if (policy == NonFinitePolicy.REFUSE) {
            for (var e : dict.tensors().entrySet()) {
                NonFiniteCount bad = NonFiniteCount.of(e.getValue());
                if (bad.any()) throw dict.error(ErrorKind.NON_FINITE, e.getKey(), bad.firstElement(), bad.describe() + "; " + NonFinitePolicy.OVERRIDE_HINT);
            }
        }
        return dict;
    }

    static void write(Map<String, NpyArray> tensors, Path target, Format format, FileOutput output, Path... inputs) throws WorkbenchException {
        switch (format) {
            case SAFETENSORS -> output.write(target, ch -> {
                OutputStream out = new BufferedOutputStream(Channels.newOutputStream(ch), 1 << 16);
                Safetensors.write(out, tensors, Map.of("format", "pt"));
                out.flush();
            }, inputs);
            case TORCH -> TorchStateDict.write(tensors, target, output, inputs);
            default -> throw new IllegalArgumentException(format + " is not a state-dict format");
        }
    }
}
