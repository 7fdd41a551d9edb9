package dev.needlewb.reports.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.core.simd.VectorWidth;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * A report of one command: a machine-readable JSON tree with a stable {@code schema_version}, the
 * run environment and every input's SHA-256, plus a human-readable Markdown rendering.
 */
public final class Report {
    public static final int SCHEMA_VERSION = 1;
    public static final ObjectMapper JSON = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

    private final String kind;
    private final ObjectNode root;
    private final ObjectNode body;

    public Report(String kind, List<InputFile> inputs, String[] commandLine) {
        this.kind = kind;
        this.root = JSON.createObjectNode();
        root.put("schema_version", SCHEMA_VERSION);
        root.put("kind", kind);
        root.put("created", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        ArrayNode cmd = root.putArray("command_line");
        for (String a : commandLine) cmd.add(a);
        root.set("environment", JSON.valueToTree(RunEnvironment.current()));
        ArrayNode in = root.putArray("inputs");
        for (InputFile f : inputs) {
            ObjectNode n = in.addObject();
            n.put("role", f.role());
            n.put("path", f.path().toString());
            n.put("bytes", f.bytes());
            n.put("sha256", f.sha256());
        }
        this.body = root.putObject(kind);
    }

    public String kind() {
        return kind;
    }

    /** The command-specific part of the JSON, under the key named by the kind. */
    public ObjectNode body() {
        return body;
    }

    public ObjectNode root() {
        return root;
    }

    public String json() {
        try {
            return JSON.writeValueAsString(root) + "\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("report trees hold only plain values", e);
        }
    }

    /** The provenance block every Markdown report ends with. */
    public static void appendProvenance(Markdown md, List<InputFile> inputs) {
        RunEnvironment env = RunEnvironment.current();
        md.heading(2, "Provenance");
        for (InputFile f : inputs) md.item(f.role(), "`" + f.path() + "` (" + f.bytes() + " bytes, sha256 `" + f.sha256() + "`)");
        md.item("tool", "needle-wb " + env.toolVersion());
        md.item("JVM", env.javaVendor() + " " + env.javaVersion() + " " + String.join(" ", env.jvmFlags()));
        md.item("CPU", env.cpuModel() + ", " + env.availableProcessors() + " processors, " + String.join(" ", env.simdFlags()));
        md.item("vectors", VectorWidth.describe());
        md.item("OS", env.os());
    }
}
