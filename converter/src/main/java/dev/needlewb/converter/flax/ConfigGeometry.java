package dev.needlewb.converter.flax;

import dev.needlewb.core.ErrorKind;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.converter.flax.v3.V3ConfigGeometry;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.core.io.TextFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A model geometry from a config alone, for a file that stores none (Needle 2's legacy .cact
 * header): a checkpoint's {@code config} dict (its parameters are not read), or a JSON object of
 * the same fields ({@code {"vocab_size": 8192, "d_model": 512, ...}}, optionally under a
 * {@code "config"} key), read with the checkpoint's value types and rules.
 */
public final class ConfigGeometry {
    /** A config is a few dozen fields; anything larger is not one. */
    private static final long MAX_JSON_BYTES = 1 << 20;
    private static final JsonMapper JSON = new JsonMapper();

    private ConfigGeometry() {}

    public static ModelGeometry read(Path file) throws WorkbenchException {
        Map<String, Object> config = file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".json")
                ? json(file) : FlaxCheckpointReader.readStructure(file).config();
        try {
            return switch (Generation.ofCheckpointConfig(config.keySet())) {
                case NEEDLE2 -> {
                    FlaxConfig c = FlaxConfig.of(config);
                    yield c.toGeometry(KvBudget.effectiveWindow(c));
                }
                case NEEDLE3 -> new V3ConfigGeometry(V3Config.fromSaved(config));
            };
        } catch (FormatException e) {
            throw e;
        } catch (WorkbenchException e) {
            throw new FormatException(e.kind(), file, FormatException.NO_OFFSET, e.getMessage());
        }
    }

    private static Map<String, Object> json(Path file) throws WorkbenchException {
        JsonNode root;
        try {
            root = JSON.readTree(TextFiles.readUtf8(file, "config", MAX_JSON_BYTES));
        } catch (JacksonException e) {
            throw new FormatException(ErrorKind.BAD_JSON, file, FormatException.NO_OFFSET, "not valid JSON: " + e.getOriginalMessage());
        }
        if (root != null && root.path("config").isObject()) root = root.get("config");
        if (root == null || !root.isObject()) throw new FormatException(ErrorKind.BAD_CONFIG, file, FormatException.NO_OFFSET, "a config must be a JSON object of config fields");
        @SuppressWarnings("unchecked")
        Map<String, Object> fields = (Map<String, Object>) value(root);
        return fields;
    }

    /** The value as the checkpoint's unpickler gives it: Long, Double, Boolean, String, List, Map, null. */
    private static Object value(JsonNode n) {
        if (n.isIntegralNumber()) return n.canConvertToLong() ? (Object) n.longValue() : (Object) n.doubleValue();
        if (n.isNumber()) return n.doubleValue();
        if (n.isBoolean()) return n.booleanValue();
        if (n.isTextual()) return n.textValue();
        if (n.isArray()) {
            List<Object> list = new ArrayList<>();
            n.forEach(e -> list.add(value(e)));
            return list;
        }
        if (n.isObject()) {
            Map<String, Object> map = new LinkedHashMap<>();
            n.properties().forEach(e -> map.put(e.getKey(), value(e.getValue())));
            return map;
        }
        return null;
    }
}
