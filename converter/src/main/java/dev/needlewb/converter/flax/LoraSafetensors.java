package dev.needlewb.converter.flax;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.safetensors.Safetensors;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A LoRA adapter in the safetensors form of Needle 3's {@code checkpoints.write_adapter}: tensors
 * {@code lora/<flax path>/A} and {@code .../B}, and the metadata {@code scale, base, rank, seed},
 * each a JSON-encoded string (an absent or empty one is None, as {@code read_adapter} reads it).
 * Read into the same tree as the pickle form, so one reader checks both.
 */
final class LoraSafetensors {
    private static final String PREFIX = "lora/";
    private static final String[] FIELDS = {"scale", "base", "rank", "seed"};
    private static final ObjectMapper JSON = new ObjectMapper();

    private LoraSafetensors() {}

    static boolean isSafetensors(Path file) {
        return file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".safetensors");
    }

    /** {@code {"lora": {path: {"A": a, "B": b}}, "scale", "base", "rank", "seed"}} as the pickle would hold it. */
    static Map<String, Object> tree(Path file) throws WorkbenchException {
        Safetensors.Contents contents;
        try {
            contents = Safetensors.read(file);
        } catch (IOException e) {
            throw WorkbenchException.cannotRead(file, e);
        }
        Map<String, Object> lora = new LinkedHashMap<>();
        for (var e : contents.tensors().entrySet()) {
            String name = e.getKey();
            int slash = name.lastIndexOf('/');
            String factor = slash < 0 ? "" : name.substring(slash + 1);
            if (!name.startsWith(PREFIX) || slash <= PREFIX.length() || !(factor.equals("A") || factor.equals("B"))) {
                throw new FormatException(ErrorKind.UNKNOWN_KEY, file, FormatException.NO_TENSOR, name, contents.stored().get(name).offset(),
                        "tensor " + name + " is not lora/<path>/A or lora/<path>/B");
            }
            @SuppressWarnings("unchecked")
            Map<String, NpyArray> pair = (Map<String, NpyArray>) lora.computeIfAbsent(name.substring(PREFIX.length(), slash), k -> new LinkedHashMap<String, NpyArray>());
            pair.put(factor, e.getValue());
        }
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("lora", lora);
        for (String field : FIELDS) root.put(field, metadata(file, field, contents.metadata().get(field)));
        return root;
    }

    private static Object metadata(Path file, String field, String text) throws FormatException {
        if (text == null || text.isEmpty()) return null;
        JsonNode node;
        try {
            node = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new FormatException(ErrorKind.BAD_JSON, file, FormatException.NO_OFFSET, "metadata '" + field + "' is not JSON: " + text);
        }
        if (node == null || node.isNull()) return null;
        if (node.isIntegralNumber() && node.canConvertToLong()) return node.longValue();
        if (node.isNumber()) return node.doubleValue();
        if (node.isTextual()) return node.textValue();
        throw new FormatException(ErrorKind.BAD_JSON, file, FormatException.NO_OFFSET, "metadata '" + field + "' is " + text + ", not a number or string");
    }
}
