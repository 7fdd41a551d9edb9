package dev.needlewb.reports.study;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.reports.report.Chart;
import dev.needlewb.reports.report.Charts;
import dev.needlewb.reports.report.HtmlPage;
import dev.needlewb.reports.report.InputFile;
import dev.needlewb.reports.report.Markdown;
import dev.needlewb.reports.report.Report;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The idempotence study's report: per tensor and round, what re-quantizing upstream's own
 * dequantization changes, as JSON ({@code idempotence}), a Markdown summary and an HTML page
 * with charts.
 */
public final class IdempotenceReport {
    static final String KIND = "idempotence";
    static final String DEQUANTIZATION = "bit-exact upstream read_export: float32 (codebook[idx] * norm) @ H"
            + " in numpy/OpenBLAS summation order";

    private final String inputKind;
    private final int maxRounds;
    private final List<IdempotenceResult> results;
    private final List<InputFile> inputs;
    private final Boolean headerCodebookMatches;

    /** @param headerCodebookMatches for a .cact: whether its header codebook equals the one the quantizer computes; else null */
    public IdempotenceReport(String inputKind, int maxRounds, List<IdempotenceResult> results, List<InputFile> inputs,
            Boolean headerCodebookMatches) {
        this.inputKind = inputKind;
        this.maxRounds = maxRounds;
        this.results = List.copyOf(results);
        this.inputs = List.copyOf(inputs);
        this.headerCodebookMatches = headerCodebookMatches;
    }

    /** "cq2", "cq3", "cq4" or "ternary". */
    static String width(int recordBits) {
        return recordBits == 5 ? "ternary" : "cq" + recordBits;
    }

    /** Relative change of the summed norms after a round against round 0. */
    static double drift(IdempotenceResult r, IdempotenceRound round) {
        return r.initialNormSum() == 0 ? 0 : round.normSum() / r.initialNormSum() - 1;
    }

    public Report toReport(String[] commandLine) {
        Report report = new Report(KIND, inputs, commandLine);
        ObjectNode body = report.body();
        body.put("input_kind", inputKind);
        body.put("max_rounds", maxRounds);
        body.put("dequantization", DEQUANTIZATION);
        if (headerCodebookMatches != null) body.put("header_codebook_matches_quantizer", headerCodebookMatches);
        ObjectNode summary = body.putObject("summary");
        summary.put("tensors", results.size());
        for (IdempotenceResult.Outcome o : IdempotenceResult.Outcome.values()) {
            summary.put(o.name().toLowerCase(Locale.ROOT), results.stream().filter(r -> r.outcome() == o).count());
        }
        ArrayNode tensors = body.putArray("tensors");
        for (IdempotenceResult r : results) {
            ObjectNode t = tensors.addObject();
            t.put("name", r.tensor());
            t.putArray("shape").add(r.rows()).add(r.cols());
            t.put("record_bits", r.recordBits());
            t.put("width", width(r.recordBits()));
            t.put("group", r.group());
            t.put("groups", r.groups());
            t.put("outcome", r.outcome().name().toLowerCase(Locale.ROOT));
            if (r.cycleStart() >= 0) {
                t.put("cycle_start", r.cycleStart());
                t.put("cycle_length", r.cycleLength());
            } else {
                t.putNull("cycle_start");
                t.putNull("cycle_length");
            }
            t.put("rounds_run", r.rounds().size());
            t.put("groups_on_cycles", r.groupsOnCycles());
            ArrayNode byStart = t.putArray("groups_settled_by_start_round");
            for (long n : r.groupsByStart()) byStart.add(n);
            putNumber(t, "input_max_abs_error", r.inputMaxAbsError());
            putNumber(t, "input_rms_error", r.inputRmsError());
            t.put("initial_norm_sum", r.initialNormSum());
            NormDrift drift = NormDrift.of(r);
            ObjectNode directions = t.putObject("norm_sum_rounds");
            for (NormDrift.Direction d : NormDrift.Direction.values()) directions.put(d.word, drift.count(d));
            ArrayNode rounds = t.putArray("rounds");
            for (IdempotenceRound x : r.rounds()) {
                ObjectNode n = rounds.addObject();
                n.put("round", x.round());
                n.put("groups_recomputed", x.groupsRecomputed());
                n.put("groups_changed", x.groupsChanged());
                n.put("codes_changed", x.codesChanged());
                n.put("norms_changed", x.normsChanged());
                n.put("max_norm_change_ulps", x.maxNormUlps());
                n.put("norm_sum", x.normSum());
                n.put("norm_drift", drift(r, x));
                n.put("max_abs_weight_change", x.maxAbsWeightChange());
                n.put("rms_weight_change", x.rmsWeightChange());
                n.put("groups_settled", x.groupsSettled());
            }
        }
        return report;
    }

    private static void putNumber(ObjectNode n, String key, double v) {
        if (Double.isNaN(v)) n.putNull(key);
        else n.put(key, v);
    }

    private static String outcome(IdempotenceResult r) {
        return switch (r.outcome()) {
            case FIXED_POINT -> "fixed point after " + r.cycleStart();
            case CYCLE -> "cycle of " + r.cycleLength() + " from " + r.cycleStart();
            case NO_REPEAT -> "none in " + r.rounds().size();
        };
    }

    private static String num(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.3g", v);
    }

    private List<String> headers() {
        return List.of("tensor", ">shape", "width", ">rounds to repeat", ">codes changed r1", ">norms changed r1",
                ">max norm ulps r1", "summed norms per round", ">norm drift (last)", ">max abs dw r1", ">rms dw (last)");
    }

    private List<List<String>> rows() {
        List<List<String>> rows = new ArrayList<>();
        for (IdempotenceResult r : results) {
            IdempotenceRound first = r.rounds().getFirst();
            IdempotenceRound last = r.rounds().getLast();
            rows.add(List.of(r.tensor(), r.rows() + "x" + r.cols(), width(r.recordBits()), outcome(r),
                    first.codesChanged() + " / " + (long) r.groups() * r.group(), first.normsChanged() + " / " + r.groups(),
                    String.valueOf(first.maxNormUlps()), NormDrift.of(r).describe(), NormDrift.percent(NormDrift.of(r).total()),
                    num(first.maxAbsWeightChange()),
                    num(last.rmsWeightChange())));
        }
        return rows;
    }

    String findings() {
        long repeated = results.stream().filter(r -> r.outcome() != IdempotenceResult.Outcome.NO_REPEAT).count();
        long codesAfterFirst = 0;
        for (IdempotenceResult r : results) {
            for (IdempotenceRound x : r.rounds()) if (x.round() > 1) codesAfterFirst += x.codesChanged();
        }
        return results.size() + (results.size() == 1 ? " tensor, " : " tensors, ") + repeated
                + " reached a fixed point or cycle within " + maxRounds + " rounds; codes changed after round 1: "
                + codesAfterFirst + ". Dequantization: " + DEQUANTIZATION + ". " + normFindings();
    }

    /**
     * The norm drift as the rounds show it: re-quantizing multiplies each group's norm by
     * |codebook[idx]|, whose direction depends on the codes (above 1 for uniformly random codes,
     * below 1 for quantized Gaussian weights), so the direction is read from the sums, never assumed.
     */
    private String normFindings() {
        if (results.isEmpty()) return "No tensor was studied.";
        String mechanism = "Re-quantizing stores the norm of each dequantized group, |codebook[idx]| times its stored norm,"
                + " so a round multiplies a tensor's summed norms by the norm-weighted mean of |codebook[idx]|.";
        List<NormDrift> drifts = results.stream().map(NormDrift::of).toList();
        Map<String, List<String>> byDirection = new LinkedHashMap<>();
        for (int t = 0; t < results.size(); t++) {
            NormDrift.Direction d = drifts.get(t).uniform();
            byDirection.computeIfAbsent(d == null ? "mixed" : d.word + " in every round", k -> new ArrayList<>())
                    .add(results.get(t).tensor());
        }
        double before = 0, after = 0;
        for (NormDrift d : drifts) {
            before += d.initial();
            after += d.rounds() == 0 ? d.initial() : d.sums()[d.rounds() - 1];
        }
        String together = before == 0 || results.size() == 1 ? "" : " All tensors together, each at its last round against round 0: "
                + NormDrift.percent(after / before - 1) + ".";
        if (byDirection.size() == 1 && !byDirection.containsKey("mixed")) {
            NormDrift.Direction d = drifts.getFirst().uniform();
            String who = results.size() == 1 ? "the tensor" : "all " + results.size() + " tensors";
            if (d == NormDrift.Direction.UNCHANGED) {
                return mechanism + (before == 0 ? " Here every group norm of " + who + " is 0: there is nothing to scale."
                        : " Here the summed norms of " + who + " stayed the same in every round, so that mean was 1.");
            }
            boolean single = drifts.stream().allMatch(x -> x.rounds() == 1);
            return mechanism + " Here the summed norms of " + who + " " + d.word + (single ? " in the one round run" : " in every round")
                    + ", so that mean was " + (d == NormDrift.Direction.GREW ? "above" : "below") + " 1" + (single ? "" : " in every round")
                    + " (last round against round 0: " + totalRange(drifts) + ")." + together;
        }
        List<String> parts = new ArrayList<>();
        byDirection.forEach((direction, names) -> parts.add((direction.equals("mixed") ? "different directions from round to round"
                : direction) + ": " + String.join(", ", names)));
        return mechanism + " Here the direction differs: " + String.join("; ", parts)
                + " (per tensor in the table)." + together;
    }

    private static String totalRange(List<NormDrift> drifts) {
        double lo = drifts.stream().mapToDouble(NormDrift::total).min().orElse(Double.NaN);
        double hi = drifts.stream().mapToDouble(NormDrift::total).max().orElse(Double.NaN);
        return NormDrift.range(lo, hi);
    }

    public String markdown() {
        Markdown md = new Markdown();
        md.heading(1, "Quantizer idempotence study");
        md.paragraph(findings());
        if (headerCodebookMatches != null) {
            md.item("header codebook equals the computed one", headerCodebookMatches ? "yes" : "NO (the study uses the computed codebook)");
            md.blank();
        }
        md.table(headers(), rows());
        Report.appendProvenance(md, inputs);
        return md.toString();
    }

    public String html() {
        HtmlPage page = new HtmlPage("Quantizer idempotence study");
        page.paragraph(findings());
        if (headerCodebookMatches != null && !headerCodebookMatches) {
            page.verdict(false, "The file's header codebook differs from the computed one; the study uses the computed codebook.");
        }
        page.heading(2, "Codes changed per round");
        page.chart("codes changed per round, summed per width", codesChangedChart());
        page.chart("codes changed per tensor and round", codesChangedHeatmap());
        page.heading(2, "Norm drift");
        page.chart("norm drift per round", normDriftChart());
        if (results.stream().anyMatch(r -> r.cycleStart() >= 0)) {
            page.heading(2, "Rounds to a fixed point or cycle");
            page.chart("rounds to fixed point per tensor", repeatChart());
        }
        page.heading(2, "Tensors");
        page.table(headers().stream().map(h -> h.startsWith(">") ? h.substring(1) : h).toList(), rows());
        return page.render();
    }

    private int longest() {
        return results.stream().mapToInt(r -> r.rounds().size()).max().orElse(0);
    }

    /** Per round, codes changed summed per width: bars, one label per round, zero bars labelled 0. */
    Chart codesChangedChart() {
        return Charts.bars("Codes changed per round (sum per width)", "round", "codes changed", roundLabels(1, longest()),
                codesChangedByWidth(longest()));
    }

    Chart codesChangedHeatmap() {
        return Charts.heatmap("Codes changed per tensor and round", "codes changed",
                results.stream().map(IdempotenceResult::tensor).toList(),
                roundLabels(1, longest()).stream().map(r -> "r" + r).toList(), codesChangedByTensor(longest()));
    }

    Chart normDriftChart() {
        return Charts.lines("Sum of group norms against round 0 (per width)", "round", "change (%)", roundLabels(0, longest()),
                normDriftByWidth(longest()), Charts.Scale.LINEAR);
    }

    Chart repeatChart() {
        return Charts.bars("Round where the fixed point or cycle starts", "tensor", "round", repeatLabels(), roundsToRepeat());
    }

    /** Rounds first .. last as chart points. */
    private static List<String> roundLabels(int first, int last) {
        List<String> labels = new ArrayList<>();
        for (int i = first; i <= last; i++) labels.add(Integer.toString(i));
        return labels;
    }

    /** [tensor][round - 1]: codes changed; NaN after a tensor's last round. */
    private double[][] codesChangedByTensor(int rounds) {
        double[][] codes = new double[results.size()][rounds];
        for (int t = 0; t < results.size(); t++) {
            Arrays.fill(codes[t], Double.NaN);
            for (IdempotenceRound x : results.get(t).rounds()) codes[t][x.round() - 1] = x.codesChanged();
        }
        return codes;
    }

    /**
     * A round whose state equals the tensor's state after round {@code i} (0 = the start): on its
     * proven fixed point or cycle the matching round of the first pass, before its last round
     * (re-quantization is deterministic), else {@code i} while the tensor ran; -1 when unknown.
     */
    private static int sameStateAs(IdempotenceResult r, int i) {
        if (r.cycleStart() >= 0 && i > r.cycleStart()) return r.cycleStart() + (int) ((i - r.cycleStart()) % r.cycleLength());
        return i <= r.rounds().size() ? i : -1;
    }

    /**
     * Per width, element round - 1: codes changed in that round summed over the width's tensors, a
     * tensor that stopped continuing along its fixed point or cycle; NaN where that is unknown.
     */
    private Map<String, double[]> codesChangedByWidth(int rounds) {
        Map<String, double[]> byWidth = new TreeMap<>();
        for (IdempotenceResult r : results) {
            double[] total = byWidth.computeIfAbsent(width(r.recordBits()), k -> new double[rounds]);
            for (int i = 1; i <= rounds; i++) {
                int from = sameStateAs(r, i - 1);
                total[i - 1] += from < 0 || from >= r.rounds().size() ? Double.NaN : r.rounds().get(from).codesChanged();
            }
        }
        return byWidth;
    }

    /**
     * Per width, element = round (0 first): the percent change of the width's summed norms against
     * round 0, a tensor that stopped continuing along its fixed point or cycle; NaN where that is
     * unknown or every norm of the width is zero.
     */
    private Map<String, double[]> normDriftByWidth(int rounds) {
        Map<String, double[]> sums = new TreeMap<>();
        for (IdempotenceResult r : results) {
            double[] sum = sums.computeIfAbsent(width(r.recordBits()), k -> new double[rounds + 1]);
            for (int i = 0; i <= rounds; i++) {
                int state = sameStateAs(r, i);
                sum[i] += state < 0 ? Double.NaN : state == 0 ? r.initialNormSum() : r.rounds().get(state - 1).normSum();
            }
        }
        Map<String, double[]> drift = new TreeMap<>();
        for (Map.Entry<String, double[]> e : sums.entrySet()) {
            double[] sum = e.getValue();
            double[] d = new double[sum.length];
            for (int i = 0; i < d.length; i++) d[i] = sum[0] == 0 ? Double.NaN : 100 * (sum[i] / sum[0] - 1);
            drift.put(e.getKey(), d);
        }
        return drift;
    }

    /** Tensor names; one without a repeat says so, since it has no bar. */
    private List<String> repeatLabels() {
        return results.stream().map(r -> r.cycleStart() >= 0 ? r.tensor() : r.tensor() + " (none in " + r.rounds().size() + ")").toList();
    }

    /** Per outcome, the round where each tensor's fixed point or cycle starts (NaN for the others: no bar). */
    private Map<String, double[]> roundsToRepeat() {
        Map<String, double[]> bars = new LinkedHashMap<>();
        for (IdempotenceResult.Outcome o : List.of(IdempotenceResult.Outcome.FIXED_POINT, IdempotenceResult.Outcome.CYCLE)) {
            if (results.stream().noneMatch(r -> r.outcome() == o)) continue;
            bars.put(o == IdempotenceResult.Outcome.FIXED_POINT ? "fixed point" : "cycle",
                    results.stream().mapToDouble(r -> r.outcome() == o ? r.cycleStart() : Double.NaN).toArray());
        }
        return bars;
    }
}
