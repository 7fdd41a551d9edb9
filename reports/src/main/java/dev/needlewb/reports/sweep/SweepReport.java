package dev.needlewb.reports.sweep;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.reports.report.InputFile;
import dev.needlewb.reports.report.Markdown;
import dev.needlewb.reports.report.Report;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * A geometry sweep as JSON (every geometry's config, conversion, and per width every engine's verdict
 * and worst tap) and Markdown: the verdict first, then the first failing geometry with the commands that
 * reproduce it alone, a table geometry x width -> verdict per engine, and the geometries' shapes.
 */
public final class SweepReport {
    public static final String KIND = "sweep";

    /**
     * What was swept: the generations drawn, {@code count} draws of each ({@code only} the one index run, or null for
     * all), widths, engines, prompt length.
     */
    public record Settings(List<Generation> generations, long seed, int count, Integer only, List<Integer> widths, List<String> engines,
            int tokens) {
        public Settings {
            generations = List.copyOf(generations);
            widths = List.copyOf(widths);
            engines = List.copyOf(engines);
        }
    }

    private final Settings settings;
    private final List<GeometryOutcome> outcomes;
    private final GeometryOutcome firstFailure;
    private final List<String> reproduce;
    private final Report report;

    /** {@code reproduce}: the command lines that rerun the first failing geometry alone (empty when all passed). */
    public SweepReport(Settings settings, List<GeometryOutcome> outcomes, List<String> reproduce, String[] commandLine)
            throws WorkbenchException {
        this.settings = settings;
        this.outcomes = List.copyOf(outcomes);
        this.firstFailure = outcomes.stream().filter(o -> !o.passed()).findFirst().orElse(null);
        this.reproduce = List.copyOf(reproduce);
        this.report = new Report(KIND, List.of(), commandLine);
        ObjectNode body = report.body();
        body.put("passed", passed());
        body.put("crashed", crashed());
        settings.generations().forEach(g -> body.withArray("generations").add(g.displayName()));
        body.put("seed", settings.seed());
        body.put("count", settings.count());
        if (settings.only() != null) body.put("only", settings.only());
        settings.widths().forEach(body.putArray("widths")::add);
        settings.engines().forEach(body.putArray("engines")::add);
        body.put("prompt_tokens", settings.tokens());
        if (firstFailure != null) {
            ObjectNode f = body.putObject("first_failure");
            f.put("generation", firstFailure.drawn().generation().displayName());
            f.put("index", firstFailure.index());
            f.put("geometry", firstFailure.drawn().name());
            f.put("failure", firstFailure.failure());
            reproduce.forEach(f.putArray("reproduce")::add);
        }
        ArrayNode all = body.putArray("geometries");
        for (GeometryOutcome o : outcomes) all.add(geometryNode(o));
    }

    /** Every geometry converted and passed every engine at every width. */
    public boolean passed() {
        return firstFailure == null;
    }

    /** Some command ended in an internal error (exit 3) or its process died: the sweep fails whatever else passed. */
    public boolean crashed() {
        return outcomes.stream().anyMatch(GeometryOutcome::crashed);
    }

    public GeometryOutcome firstFailure() {
        return firstFailure;
    }

    public Report report() {
        return report;
    }

    private static ObjectNode geometryNode(GeometryOutcome o) throws WorkbenchException {
        ObjectNode n = Report.JSON.createObjectNode();
        n.put("generation", o.drawn().generation().displayName());
        n.put("index", o.index());
        n.put("name", o.drawn().name());
        n.put("shape", o.shape());
        n.set("config", Report.JSON.valueToTree(o.drawn().config()));
        o.drawn().headKeys().forEach(h -> n.withArray("probe_heads").add(h));
        n.put("group", o.drawn().group());
        n.put("bits_map", o.drawn().bitsMap());
        n.put("model", o.model().toString());
        n.put("passed", o.passed());
        if (o.failure() != null) n.put("failure", o.failure());
        n.set("convert", outcomeNode(o.convert()));
        ObjectNode widths = n.putObject("widths");
        for (WidthOutcome w : o.widths()) {
            ObjectNode wn = widths.putObject(Integer.toString(w.bits()));
            wn.set("parity", outcomeNode(w.parity()));
            wn.put("passed", w.passed());
            ObjectNode engines = wn.putObject("engines");
            for (EngineVerdict e : w.engines()) {
                ObjectNode en = engines.putObject(e.engine());
                en.put("profile", e.profile());
                en.put("passed", e.passed());
                en.put("worst_tap", e.worstTap());
                en.put("worst_rel_l2", e.worstRelL2());
                en.put("rel_l2_limit", e.limit());
                en.put("share_of_limit", e.share());
                if (e.firstFailure() != null) en.put("first_failure", e.firstFailure());
            }
        }
        return n;
    }

    private static ObjectNode outcomeNode(CommandOutcome c) {
        ObjectNode n = Report.JSON.createObjectNode();
        n.put("exit", c.exit());
        if (c.error() != null) n.put("error", c.error());
        n.put("seconds", c.seconds());
        return n;
    }

    /** The one-line verdict the command prints and the Markdown opens with. */
    public String headline() {
        int widths = settings.widths().size(), engines = settings.engines().size();
        long passed = outcomes.stream().filter(GeometryOutcome::passed).count();
        String scope = outcomes.size() + " geometries" + byGeneration() + " x " + widths + " widths x " + engines + " engines";
        if (passed()) return "PASS: " + scope + ", every comparison within its profile, no command failed";
        return "FAIL: " + passed + " of " + scope + " passed" + (crashed() ? "; a command ended in an internal error" : "")
                + "; first failing geometry " + firstFailure.drawn().name() + " (" + firstFailure.failure() + ")";
    }

    /** {@code  (8 Needle 2, 6 Needle 3)} when the sweep drew more than one generation, else empty. */
    private String byGeneration() {
        if (settings.generations().size() < 2) return "";
        StringJoiner counts = new StringJoiner(", ", " (", ")");
        for (Generation g : settings.generations()) counts.add(outcomes.stream().filter(o -> o.drawn().generation() == g).count() + " " + g.displayName());
        return counts.toString();
    }

    public String markdown() throws WorkbenchException {
        Markdown md = new Markdown();
        md.heading(1, "Geometry sweep");
        md.paragraph("**" + headline() + "**");
        String drawn = String.join(" and ", settings.generations().stream().map(Generation::displayName).toList());
        md.item("seed", settings.seed() + (settings.only() != null ? " (" + drawn + " geometry " + settings.only() + " alone)"
                : " (" + settings.count() + " geometries of " + drawn + (settings.generations().size() > 1 ? " each" : "") + ")"));
        md.item("widths", String.join(", ", settings.widths().stream().map(b -> b + " bits").toList()));
        md.item("engines", String.join(", ", settings.engines()) + " against the float64 reference (exact, batch and torch: q0, profile strict;"
                + " int8 on Needle 2: quant=True with int8 KV emulation, profile int8; int8 on Needle 3: quant=True under upstream's deploy"
                + " settings, A8 per head on Q, K and V, profile int8-v3)");
        md.item("prompt", settings.tokens() + " tokens");
        if (firstFailure != null) {
            md.heading(2, "First failure");
            md.paragraph(firstFailure.drawn().name() + " (" + firstFailure.drawn().generation().displayName() + "): " + firstFailure.failure());
            md.paragraph("Reproduce it alone:");
            md.paragraph("```\n" + String.join("\n", reproduce) + "\n```");
        }
        md.heading(2, "Verdicts");
        md.paragraph("Each cell: the verdict, then the engine's worst tap and the share of its relative-L2 limit it uses"
                + " (100% is at the limit).");
        List<String> headers = new ArrayList<>(List.of("geometry", "generation", "bits", "parity"));
        headers.addAll(settings.engines());
        List<List<String>> rows = new ArrayList<>();
        for (GeometryOutcome o : outcomes) {
            if (o.convert().exit() != 0) {
                List<String> row = new ArrayList<>(List.of(o.drawn().name(), o.drawn().generation().displayName(), "-", "convert " + o.convert().describe()));
                settings.engines().forEach(e -> row.add("-"));
                rows.add(row);
                continue;
            }
            for (WidthOutcome w : o.widths()) {
                List<String> row = new ArrayList<>(List.of(o.drawn().name(), o.drawn().generation().displayName(), Integer.toString(w.bits()),
                        w.parity().ran() ? String.format(Locale.ROOT, "exit %d, %.1f s", w.parity().exit(), w.parity().seconds())
                                : w.parity().describe()));
                for (String engine : settings.engines()) row.add(cell(w, engine));
                rows.add(row);
            }
        }
        md.table(headers, rows);
        md.heading(2, "Geometries");
        List<List<String>> shapes = new ArrayList<>();
        for (GeometryOutcome o : outcomes) shapes.add(List.of(o.drawn().name(), o.drawn().generation().displayName(), o.shape(), "`" + o.model() + "`"));
        md.table(List.of("geometry", "generation", "shape", "model"), shapes);
        Report.appendProvenance(md, List.<InputFile>of());
        return md.toString();
    }

    private static String cell(WidthOutcome w, String engine) {
        EngineVerdict e = w.engines().stream().filter(v -> v.engine().equals(engine)).findFirst().orElse(null);
        if (e == null) return "-";
        String worst = e.worstTap() == null ? "" : String.format(Locale.ROOT, " · %s %.0f%%", e.worstTap(), 100 * e.share());
        return e.passed() ? "PASS" + worst : "**FAIL** " + e.firstFailure();
    }
}
