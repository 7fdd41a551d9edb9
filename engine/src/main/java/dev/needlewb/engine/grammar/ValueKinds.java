package dev.needlewb.engine.grammar;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.core.json.JsonValues;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the compiler knows about which values its nodes accept, to decide whether two {@code oneOf}
 * options are disjoint (no value matches both), so that following both options as {@code anyOf}
 * still yields exactly-one matches. The test is sufficient, not complete: different JSON kinds,
 * literal sets without a common value, objects that require one key with disjoint values (a
 * discriminator), arrays of disjoint non-empty items. Anything else counts as overlapping.
 */
final class ValueKinds {
    private static final int STRING = 1, INTEGRAL = 2, FRACTIONAL = 4, BOOLEAN = 8, NULL = 16, ARRAY = 32, OBJECT = 64;

    private final Map<SchemaNode, List<JsonNode>> literals = new IdentityHashMap<>();
    private final Map<SchemaNode, List<String>> objectKeys = new IdentityHashMap<>();

    void literal(SchemaNode.LiteralNode node, List<JsonNode> values) {
        literals.put(node, List.copyOf(values));
    }

    void object(SchemaNode.ObjectNode node, List<String> keys) {
        objectKeys.put(node, List.copyOf(keys));
    }

    boolean disjoint(SchemaNode a, SchemaNode b) {
        if ((kinds(a) & kinds(b)) == 0) return true;
        if (a instanceof SchemaNode.UnionNode u) return u.options().stream().allMatch(o -> disjoint(o, b));
        if (b instanceof SchemaNode.UnionNode u) return u.options().stream().allMatch(o -> disjoint(a, o));
        if (a instanceof SchemaNode.LiteralNode && b instanceof SchemaNode.LiteralNode) {
            for (JsonNode x : literals.get(a)) for (JsonNode y : literals.get(b)) if (JsonValues.same(x, y)) return false;
            return true;
        }
        if (a instanceof SchemaNode.ObjectNode x && b instanceof SchemaNode.ObjectNode y) return discriminated(x, y);
        if (a instanceof SchemaNode.ArrayNode x && b instanceof SchemaNode.ArrayNode y) {
            return x.minItems() > 0 && y.minItems() > 0 && disjoint(x.items(), y.items());
        }
        return false;
    }

    /** Whether some key both objects require takes disjoint values in them. */
    private boolean discriminated(SchemaNode.ObjectNode a, SchemaNode.ObjectNode b) {
        List<String> keysA = objectKeys.get(a), keysB = objectKeys.get(b);
        for (int i = 0; i < keysA.size(); i++) {
            int j = keysB.indexOf(keysA.get(i));
            if (j < 0 || (a.required() >>> i & 1) == 0 || (b.required() >>> j & 1) == 0) continue;
            if (disjoint(a.values().get(i), b.values().get(j))) return true;
        }
        return false;
    }

    private int kinds(SchemaNode node) {
        return switch (node) {
            case SchemaNode.StringNode s -> STRING;
            case SchemaNode.NumberNode n -> n.rule().integer ? INTEGRAL : INTEGRAL | FRACTIONAL;
            case SchemaNode.LiteralNode l -> literals.get(l).stream().mapToInt(ValueKinds::kind).reduce(0, (x, y) -> x | y);
            case SchemaNode.ArrayNode a -> ARRAY;
            case SchemaNode.ObjectNode o -> OBJECT;
            case SchemaNode.UnionNode u -> u.options().stream().mapToInt(this::kinds).reduce(0, (x, y) -> x | y);
            case SchemaNode.CallNode c -> OBJECT;
        };
    }

    private static int kind(JsonNode v) {
        if (v.isTextual()) return STRING;
        if (v.isNumber()) return Double.isFinite(v.doubleValue()) && v.decimalValue().stripTrailingZeros().scale() <= 0 ? INTEGRAL : FRACTIONAL;
        if (v.isBoolean()) return BOOLEAN;
        if (v.isNull()) return NULL;
        return v.isArray() ? ARRAY : OBJECT;
    }
}
