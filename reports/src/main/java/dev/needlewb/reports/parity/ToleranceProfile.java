package dev.needlewb.reports.parity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Tolerances as data: a JSON object {@code {"name", "description", "rules": [{"taps": GLOB,
 * "why": TEXT, LIMIT: number, ...}]}}. A tap takes the first rule whose glob ({@code *} any
 * characters, {@code ?} one) matches its whole name; a tap no rule matches is reported but not
 * judged. Limit keys: max_abs, max_rms, max_rel_l2, min_cosine, max_ulps, and for logits min_top1,
 * min_top5, max_mean_kl, max_kl, max_prob_diff.
 */
public record ToleranceProfile(String name, String description, List<Rule> rules) {
    /** The built-in profiles, under /parity/NAME.json on the class path. */
    public static final List<String> BUILT_IN = List.of("strict", "int8", "int8-v3", "converted", "quant");

    public record Rule(String glob, Pattern pattern, String why, Limits limits) {}

    /** The rule for {@code tap}, or null when none matches. */
    public Rule ruleFor(String tap) {
        for (Rule r : rules) if (r.pattern.matcher(tap).matches()) return r;
        return null;
    }

    /** A built-in profile by name, or else a JSON file at that path. */
    public static ToleranceProfile resolve(String nameOrFile) throws WorkbenchException {
        if (BUILT_IN.contains(nameOrFile)) {
            try (InputStream in = ToleranceProfile.class.getResourceAsStream("/parity/" + nameOrFile + ".json")) {
                if (in == null) throw new IllegalStateException("built-in profile " + nameOrFile + " missing from the jar");
                return parse(new ObjectMapper().readTree(in), nameOrFile);
            } catch (IOException e) {
                throw new IllegalStateException("built-in profile " + nameOrFile + " unreadable", e);
            }
        }
        Path file = Path.of(nameOrFile);
        if (!Files.isRegularFile(file)) {
            throw new WorkbenchException(ErrorKind.BAD_OPTION, nameOrFile + ": no such profile file (built-in profiles: " + String.join(", ", BUILT_IN) + ")");
        }
        try {
            return parse(new ObjectMapper().readTree(file.toFile()), file.toString());
        } catch (IOException e) {
            throw new WorkbenchException(ErrorKind.BAD_JSON, file + ": not a JSON tolerance profile (" + e.getMessage().lines().findFirst().orElse("") + ")", e);
        }
    }

    static ToleranceProfile parse(JsonNode root, String source) throws WorkbenchException {
        if (root == null || !root.isObject() || !root.path("rules").isArray()) {
            throw new WorkbenchException(ErrorKind.BAD_SCHEMA, source + ": a tolerance profile is an object with a \"rules\" array");
        }
        List<Rule> rules = new ArrayList<>();
        int index = 0;
        for (JsonNode r : root.get("rules")) {
            String where = source + ": rules[" + index++ + "]";
            if (!r.path("taps").isTextual()) throw new WorkbenchException(ErrorKind.BAD_SCHEMA, where + ": needs \"taps\": a glob of tap names");
            String glob = r.get("taps").asText();
            Double[] v = new Double[LIMIT_KEYS.size()];
            for (Iterator<Map.Entry<String, JsonNode>> it = r.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> f = it.next();
                if (f.getKey().equals("taps") || f.getKey().equals("why")) continue;
                int k = LIMIT_KEYS.indexOf(f.getKey());
                if (k < 0) throw new WorkbenchException(ErrorKind.UNKNOWN_KEY, where + ": unknown limit \"" + f.getKey() + "\" (known: " + String.join(", ", LIMIT_KEYS) + ")");
                if (!f.getValue().isNumber()) throw new WorkbenchException(ErrorKind.BAD_SCHEMA, where + ": \"" + f.getKey() + "\" must be a number");
                v[k] = f.getValue().asDouble();
            }
            Limits limits = new Limits(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]);
            rules.add(new Rule(glob, globPattern(glob), r.path("why").asText(""), limits));
        }
        return new ToleranceProfile(root.path("name").asText(source), root.path("description").asText(""), List.copyOf(rules));
    }

    /** In the order of {@link Limits}' components. */
    private static final List<String> LIMIT_KEYS = List.of("max_abs", "max_rms", "max_rel_l2", "min_cosine", "max_ulps",
            "min_top1", "min_top5", "max_mean_kl", "max_kl", "max_prob_diff");

    private static Pattern globPattern(String glob) {
        StringBuilder re = new StringBuilder();
        for (char c : glob.toCharArray()) {
            switch (c) {
                case '*' -> re.append(".*");
                case '?' -> re.append('.');
                default -> re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(re.toString());
    }
}
