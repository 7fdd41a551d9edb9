package dev.needlewb.reports.toolcalls;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.needlewb.core.json.JsonValues;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * How two call lists agree: the whole list, the tool names in order, and each argument. Calls are
 * paired by position; an argument matches when both calls name the same tool and hold the key with
 * equal JSON values (numbers compared by value); every key of an unpaired or differently named call
 * counts as a mismatch under its own tool's name. Arguments are keyed {@code tool.key}.
 */
final class CallComparison {
    private static final JsonMapper JSON = new JsonMapper();

    private CallComparison() {}

    /** The parsed call list, or null for no list (or text that is not JSON). */
    static JsonNode parse(String calls) {
        if (calls == null) return null;
        try {
            JsonNode n = JSON.readTree(calls);
            return n != null && n.isArray() ? n : null;
        } catch (JacksonException e) {
            return null;
        }
    }

    static boolean sameCalls(JsonNode a, JsonNode b) {
        return a != null && b != null && JsonValues.same(a, b);
    }

    static boolean sameNames(JsonNode a, JsonNode b) {
        if (a == null || b == null || a.size() != b.size()) return false;
        for (int i = 0; i < a.size(); i++) if (!name(a.get(i)).equals(name(b.get(i)))) return false;
        return true;
    }

    /** Adds each argument's outcome to {@code tally}: key -> {matches, total}. */
    static void arguments(JsonNode a, JsonNode b, Map<String, int[]> tally) {
        int n = Math.max(size(a), size(b));
        for (int i = 0; i < n; i++) {
            JsonNode ca = i < size(a) ? a.get(i) : null;
            JsonNode cb = i < size(b) ? b.get(i) : null;
            boolean sameTool = ca != null && cb != null && name(ca).equals(name(cb));
            Set<String> keys = new LinkedHashSet<>();
            if (ca != null) keys.addAll(keysOf(ca, name(ca)));
            if (cb != null) keys.addAll(keysOf(cb, name(cb)));
            for (String key : keys) {
                int[] t = tally.computeIfAbsent(key, k -> new int[2]);
                t[1]++;
                if (!sameTool) continue;
                String arg = key.substring(name(ca).length() + 1);
                JsonNode va = ca.path("arguments").get(arg);
                JsonNode vb = cb.path("arguments").get(arg);
                if (va != null && vb != null && JsonValues.same(va, vb)) t[0]++;
            }
        }
    }

    private static Set<String> keysOf(JsonNode call, String tool) {
        Set<String> keys = new LinkedHashSet<>();
        for (Iterator<String> it = call.path("arguments").fieldNames(); it.hasNext(); ) keys.add(tool + "." + it.next());
        return keys;
    }

    private static int size(JsonNode list) {
        return list == null ? 0 : list.size();
    }

    private static String name(JsonNode call) {
        return call.path("name").asText("");
    }
}
