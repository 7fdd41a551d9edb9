package dev.needlewb.converter.names;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cq.CqPacking;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The CQ width of each matrix, as upstream's {@code parse_bits_map} / {@code _bits_for} decide
 * it: a spec {@code key=bits,...,default=bits} whose keys are canonicalised like tensor names
 * ({@code canonical_tensor_name}); a tensor takes the width of the longest key its canonical
 * name starts with, else the default. A bare width ({@code 4}) applies to every matrix (upstream's
 * {@code --bits}). Widths are 2, 3, 4 or 1.58 (ternary, record bits 5).
 */
public final class BitsMap {
    /** Upstream's ternary width value. */
    private static final double TERNARY = 1.58;
    private static final Pattern LAYER_PREFIX = Pattern.compile("^layer\\d+\\.");
    private static final Pattern ENGRAM_PREFIX = Pattern.compile("^engrams?_?(\\d+)[./]?");
    private static final Pattern ENGRAM_TABLES = Pattern.compile("^(engram\\d+\\.)embedding$");

    private final String spec;
    private final Map<String, Integer> byPrefix;
    private final int defaultBits;

    private BitsMap(String spec, Map<String, Integer> byPrefix, int defaultBits) {
        this.spec = spec;
        this.byPrefix = Map.copyOf(byPrefix);
        this.defaultBits = defaultBits;
    }

    /** Upstream's default scheme for Needle 2. */
    public static BitsMap released() {
        try {
            return parse("embedding=4,mhc=4,default=2");
        } catch (WorkbenchException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One width, 2, 3 or 4, for every matrix. */
    public static BitsMap uniform(int bits) {
        if (bits < 2 || bits > 4) throw new IllegalArgumentException("width " + bits);
        return new BitsMap(Integer.toString(bits), Map.of(), bits);
    }

    /** Parses a spec; a bare width means that width for every matrix. */
    public static BitsMap parse(String spec) throws WorkbenchException {
        String s = spec == null ? "" : spec.strip();
        if (!s.contains("=")) return new BitsMap(s, Map.of(), width(spec, s));
        Map<String, Integer> map = new LinkedHashMap<>();
        Integer def = null;
        for (String part : s.split(",")) {
            if (part.isBlank()) continue;
            int eq = part.indexOf('=');
            if (eq < 0) throw new WorkbenchException(ErrorKind.BAD_OPTION, "bits map '" + spec + "': entry '" + part.strip() + "' is not key=bits");
            String key = part.substring(0, eq).strip();
            int bits = width(spec, part.substring(eq + 1).strip());
            if (key.equals("default")) def = bits;
            else map.put(canonical(key), bits);
        }
        if (def == null) throw new WorkbenchException(ErrorKind.BAD_OPTION, "bits map '" + spec + "' needs a default=<bits> entry");
        return new BitsMap(s, map, def);
    }

    /** The record bits (2, 3, 4 or 5 for ternary) of the matrix with this canonical .cact name. */
    public int recordBitsFor(String name) {
        String canon = canonical(name);
        String best = null;
        for (String k : byPrefix.keySet()) {
            if (canon.startsWith(k) && (best == null || k.length() > best.length())) best = k;
        }
        return best == null ? defaultBits : byPrefix.get(best);
    }

    public String spec() {
        return spec;
    }

    /** Upstream's {@code canonical_tensor_name}: per-layer names fold to {@code attn.}, Flax paths to dotted .cact names. */
    static String canonical(String name) {
        String n = LAYER_PREFIX.matcher(name).replaceFirst("attn.");
        n = ENGRAM_PREFIX.matcher(n).replaceFirst("engram$1.");
        if (n.startsWith("stack/")) n = n.substring("stack/".length());
        n = n.replace("layers/block/self_attn/", "attn.").replace("mtp_block/self_attn/", "mtp.");
        if (n.endsWith("/kernel")) n = n.substring(0, n.length() - "/kernel".length());
        if (n.equals("embedding/embedding")) n = "embedding";
        n = ENGRAM_TABLES.matcher(n).replaceFirst("$1tables");
        return n.replace('/', '.');
    }

    private static int width(String spec, String value) throws WorkbenchException {
        try {
            if (Double.parseDouble(value) == TERNARY) return CqPacking.TERNARY_RECORD_BITS;
        } catch (NumberFormatException e) {
            throw new WorkbenchException(ErrorKind.BAD_OPTION, "bits map '" + spec + "': '" + value + "' is not a width (2, 3, 4 or 1.58)");
        }
        int bits;
        try {
            bits = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new WorkbenchException(ErrorKind.BAD_OPTION, "bits map '" + spec + "': '" + value + "' is not a width (2, 3, 4 or 1.58)");
        }
        if (bits < 2 || bits > 4) throw new WorkbenchException(ErrorKind.BAD_OPTION, "bits map '" + spec + "' has unsupported width " + bits + " (2, 3, 4 or 1.58)");
        return bits;
    }

    @Override
    public String toString() {
        return spec;
    }
}
