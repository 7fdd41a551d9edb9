package dev.needlewb.converter.convert;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import java.nio.file.Path;
import java.util.Locale;

/** The file formats a conversion reads and writes, told apart by the file name's extension. */
public enum Format {
    /** An upstream Flax training checkpoint pickle. */
    FLAX("Flax checkpoint"),
    CACT(".cact"),
    /** A PyTorch state dict ({@code torch.save} zip). */
    TORCH("PyTorch .pt"),
    SAFETENSORS("safetensors");

    private final String label;

    Format(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** The format of {@code file}: .pkl/.ckpt, .cact, .pt/.pth, .safetensors. */
    public static Format of(Path file) throws WorkbenchException {
        String name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".pkl") || name.endsWith(".ckpt")) return FLAX;
        if (name.endsWith(".cact")) return CACT;
        if (name.endsWith(".pt") || name.endsWith(".pth")) return TORCH;
        if (name.endsWith(".safetensors")) return SAFETENSORS;
        throw new WorkbenchException(ErrorKind.UNKNOWN_FORMAT, file + ": unknown format (use .pkl/.ckpt, .cact, .pt/.pth or .safetensors)");
    }

    public boolean isStateDict() {
        return this == TORCH || this == SAFETENSORS;
    }
}
