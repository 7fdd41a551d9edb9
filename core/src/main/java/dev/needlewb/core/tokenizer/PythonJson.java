package dev.needlewb.core.tokenizer;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Iterator;
import java.util.Map;

/**
 * Reads JSON the way Python's {@code json} module does and writes a JSON tree exactly as Python's {@code json.dumps(obj, separators=...)} does with its
 * other defaults: {@code ensure_ascii} (every character outside space..tilde escaped, short
 * escapes for {@code \b \f \n \r \t}, else {@code \\uXXXX} in lowercase hex, astral characters
 * as surrogate pairs), floats as Python's {@code repr}, {@code NaN}/{@code Infinity} allowed,
 * object keys in their stored order.
 */
public final class PythonJson {
    /** The two separator pairs upstream uses. */
    public enum Separators {
        /** {@code (",", ":")}: finetune.render_example, the format the model is trained on. */
        COMPACT(",", ":"),
        /** {@code (", ", ": ")}: json.dumps defaults (the Needle SDK hands this to its native engine). */
        SPACED(", ", ": ");

        final String item;
        final String key;

        Separators(String item, String key) {
            this.item = item;
            this.key = key;
        }
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();
    private static final JsonMapper READER = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private PythonJson() {}

    /**
     * Reads JSON text as Python's {@code json.loads} does: floats as doubles, integers exact, NaN and
     * Infinity accepted, object keys in their order (the last of a repeated key wins). Null for empty text.
     */
    public static JsonNode parse(String text) throws JacksonException {
        return READER.readTree(text);
    }

    public static String dumps(JsonNode node, Separators separators) {
        StringBuilder out = new StringBuilder();
        write(node, separators, out);
        return out.toString();
    }

    private static void write(JsonNode node, Separators sep, StringBuilder out) {
        switch (node.getNodeType()) {
            case OBJECT -> {
                out.append('{');
                Iterator<Map.Entry<String, JsonNode>> fields = node.properties().iterator();
                while (fields.hasNext()) {
                    Map.Entry<String, JsonNode> field = fields.next();
                    string(field.getKey(), out);
                    out.append(sep.key);
                    write(field.getValue(), sep, out);
                    if (fields.hasNext()) out.append(sep.item);
                }
                out.append('}');
            }
            case ARRAY -> {
                out.append('[');
                for (int i = 0; i < node.size(); i++) {
                    if (i > 0) out.append(sep.item);
                    write(node.get(i), sep, out);
                }
                out.append(']');
            }
            case STRING -> string(node.textValue(), out);
            case BOOLEAN -> out.append(node.booleanValue() ? "true" : "false");
            case NULL -> out.append("null");
            case NUMBER -> {
                if (node.isIntegralNumber()) out.append(node.bigIntegerValue());
                else out.append(floatRepr(node.doubleValue()));
            }
            default -> throw new IllegalArgumentException("no JSON form for a " + node.getNodeType() + " node");
        }
    }

    private static void string(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c >= ' ' && c <= '~') {
                        out.append(c);
                    } else {
                        out.append("\\u").append(HEX[c >> 12]).append(HEX[c >> 8 & 15]).append(HEX[c >> 4 & 15]).append(HEX[c & 15]);
                    }
                }
            }
        }
        out.append('"');
    }

    /**
     * Python's float repr as json.dumps writes it: the shortest digits that read back to the
     * same double, positional for decimal exponents -4..15, else {@code d.ddde+XX}.
     */
    static String floatRepr(double x) {
        if (Double.isNaN(x)) return "NaN";
        if (Double.isInfinite(x)) return x > 0 ? "Infinity" : "-Infinity";
        if (x == 0) return (1 / x < 0) ? "-0.0" : "0.0";
        String sign = x < 0 ? "-" : "";
        BigDecimal shortest = shortestDecimal(Math.abs(x));
        String digits = shortest.unscaledValue().toString();
        int decimalPoint = digits.length() - shortest.scale();
        int exponent = decimalPoint - 1;
        if (exponent < -4 || exponent >= 16) {
            String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + (Math.abs(exponent) < 10 ? "0" : "") + Math.abs(exponent);
        }
        if (decimalPoint <= 0) return sign + "0." + "0".repeat(-decimalPoint) + digits;
        if (decimalPoint >= digits.length()) return sign + digits + "0".repeat(decimalPoint - digits.length()) + ".0";
        return sign + digits.substring(0, decimalPoint) + "." + digits.substring(decimalPoint);
    }

    /**
     * The shortest decimal that reads back as x (x > 0), closest to x among the shortest.
     * Java's Double.toString gives that except that it may print two digits where one would
     * do (e.g. 4.9E-324 for Python's 5e-324); that case is resolved here.
     */
    private static BigDecimal shortestDecimal(double x) {
        BigDecimal java = new BigDecimal(Double.toString(x)).stripTrailingZeros();
        if (java.precision() != 2) return java;
        BigDecimal exact = new BigDecimal(x);
        BigDecimal best = null;
        for (RoundingMode mode : new RoundingMode[] {RoundingMode.FLOOR, RoundingMode.CEILING}) {
            BigDecimal candidate = java.round(new MathContext(1, mode));
            if (candidate.signum() <= 0 || Double.parseDouble(candidate.toString()) != x) continue;
            if (best == null || candidate.subtract(exact).abs().compareTo(best.subtract(exact).abs()) < 0) best = candidate;
        }
        return best == null ? java : best.stripTrailingZeros();
    }
}
