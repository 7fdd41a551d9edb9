package dev.needlewb.converter.convert;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.AtomicFileWriter;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.safetensors.Safetensors;
import dev.needlewb.converter.torch.TorchStateDict;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.file.Path;
import java.util.Map;

/** Reads and writes state dicts (PyTorch key to tensor) in the state-dict formats. */
public final class StateDictFiles {
    private StateDictFiles() {}

    public static Map<String, NpyArray> read(Path file, Format format) throws WorkbenchException {
        try {
            return switch (format) {
                case SAFETENSORS -> Safetensors.read(file).tensors();
                case TORCH -> TorchStateDict.read(file);
                default -> throw new IllegalArgumentException(format + " is not a state-dict format");
            };
        } catch (IOException e) {
            throw WorkbenchException.cannotRead(file, e);
        }
    }

    static void write(Map<String, NpyArray> tensors, Path target, Format format, Path... inputs) throws WorkbenchException {
        switch (format) {
            case SAFETENSORS -> AtomicFileWriter.write(target, ch -> {
                OutputStream out = new BufferedOutputStream(Channels.newOutputStream(ch), 1 << 16);
                Safetensors.write(out, tensors, Map.of("format", "pt"));
                out.flush();
            }, inputs);
            case TORCH -> TorchStateDict.write(tensors, target, inputs);
            default -> throw new IllegalArgumentException(format + " is not a state-dict format");
        }
    }
}
