package dev.needlewb.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.converter.cq.CqCodebooks;
import dev.needlewb.converter.cq.codebook.Codebooks;
import dev.needlewb.reports.report.InputFile;
import dev.needlewb.reports.report.Report;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "codebook", mixinStandardHelpOptions = true,
        description = {"Print the CQ codebook of a width and group: the float64 Lloyd-Max centres and the float32 entries.",
                "With --check, compare a .cact's header codebook with it bit for bit (exit 0 equal, 1 different, 2 error)."})
final class CodebookCommand implements Callable<Integer> {
    /** Exit code when the checked file's codebook differs. */
    static final int EXIT_DIFFERENT = 1;

    @Option(names = "--bits", paramLabel = "B", required = true, description = "CQ width: 2, 3, 4 or t (ternary, also 1.58).")
    String bits;

    @Option(names = "--group", paramLabel = "G", defaultValue = "128", description = "CQ group (default ${DEFAULT-VALUE}).")
    int group;

    @Option(names = "--check", paramLabel = "FILE.cact", description = "Compare this file's header codebook with the computed one.")
    Path check;

    @Option(names = "--json", description = "Print a JSON report instead of text.")
    boolean json;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** One entry the file holds differently from the computed codebook. */
    private record Difference(int index, float file, float expected) {}

    @Override
    public Integer call() throws WorkbenchException, IOException {
        int recordBits = recordBits(bits);
        if (group < 1 || Integer.bitCount(group) != 1) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--group " + group + ": must be a power of two");
        double[] centres = Codebooks.unitCentres(recordBits);
        float[] codebook = Codebooks.of(recordBits, group);
        List<Difference> differences = null;
        InputFile checked = null;
        int fileGroup = 0;
        if (check != null) {
            if (recordBits == Codebooks.TERNARY_RECORD_BITS) {
                throw new WorkbenchException(ErrorKind.BAD_OPTION, "--check: a .cact header stores the 2-, 3- and 4-bit codebooks, not the ternary one");
            }
            checked = InputFile.of("model", check);
            try (CactFile cact = CactFile.open(check, NonFinitePolicy.ALLOW)) { // its header codebook only
                fileGroup = cact.cqGroup();
                float[] stored = CqCodebooks.fromHeader(cact.codebook(), recordBits);
                differences = new ArrayList<>();
                for (int k = 0; k < codebook.length; k++) {
                    if (Float.floatToRawIntBits(stored[k]) != Float.floatToRawIntBits(codebook[k])) {
                        differences.add(new Difference(k, stored[k], codebook[k]));
                    }
                }
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.print(json(recordBits, centres, codebook, checked, fileGroup, differences));
        } else {
            out.print(text(recordBits, centres, codebook, fileGroup, differences));
        }
        out.flush();
        return differences == null || differences.isEmpty() ? 0 : EXIT_DIFFERENT;
    }

    private static int recordBits(String b) throws WorkbenchException {
        return switch (b.strip().toLowerCase(Locale.ROOT)) {
            case "2" -> 2;
            case "3" -> 3;
            case "4" -> 4;
            case "t", "1.58", "ternary" -> Codebooks.TERNARY_RECORD_BITS;
            default -> throw new WorkbenchException(ErrorKind.BAD_OPTION, "--bits " + b + ": must be 2, 3, 4 or t");
        };
    }

    private static String hex(float v) {
        return String.format("0x%08x", Float.floatToRawIntBits(v));
    }

    private static String label(int recordBits) {
        return recordBits == Codebooks.TERNARY_RECORD_BITS ? "ternary" : recordBits + "-bit";
    }

    private String text(int recordBits, double[] centres, float[] codebook, int fileGroup, List<Difference> differences) {
        StringBuilder s = new StringBuilder();
        s.append("CQ ").append(label(recordBits)).append(" codebook, group ").append(group).append(": ").append(codebook.length)
                .append(" entries = float32(centre / sqrt(").append(group).append("))\n");
        s.append(String.format(Locale.ROOT, "%5s  %-24s  %-16s  %s%n", "index", "centre (float64)", "entry (float32)", "bits"));
        for (int k = 0; k < codebook.length; k++) {
            s.append(String.format(Locale.ROOT, "%5d  %-24s  %-16s  %s%n", k, Double.toString(centres[k]),
                    Float.toString(codebook[k]), hex(codebook[k])));
        }
        if (differences != null) {
            if (fileGroup != 0 && fileGroup != group) {
                s.append("note: ").append(check).append(" stores CQ tensors with group ").append(fileGroup).append('\n');
            }
            if (differences.isEmpty()) {
                s.append(check).append(": header ").append(label(recordBits)).append(" codebook equals it bit for bit\n");
            } else {
                s.append(check).append(": header ").append(label(recordBits)).append(" codebook differs in ")
                        .append(differences.size()).append(" of ").append(codebook.length).append(" entries\n");
                for (Difference d : differences) {
                    s.append("  entry ").append(d.index()).append(": file ").append(d.file()).append(" (").append(hex(d.file()))
                            .append("), expected ").append(d.expected()).append(" (").append(hex(d.expected())).append(")\n");
                }
            }
        }
        return s.toString();
    }

    private String json(int recordBits, double[] centres, float[] codebook, InputFile checked, int fileGroup,
            List<Difference> differences) {
        Report report = new Report("codebook", checked == null ? List.of() : List.of(checked), CommandLines.of(spec));
        ObjectNode body = report.body();
        body.put("record_bits", recordBits);
        body.put("group", group);
        ArrayNode entries = body.putArray("entries");
        for (int k = 0; k < codebook.length; k++) {
            ObjectNode e = entries.addObject();
            e.put("index", k);
            e.put("centre", centres[k]);
            e.put("value", Float.toString(codebook[k]));
            e.put("bits", hex(codebook[k]));
        }
        if (differences != null) {
            ObjectNode c = body.putObject("check");
            c.put("file", checked.path().toString());
            c.put("file_group", fileGroup);
            c.put("equal", differences.isEmpty());
            ArrayNode diff = c.putArray("differences");
            for (Difference d : differences) {
                diff.addObject().put("index", d.index()).put("file_bits", hex(d.file())).put("expected_bits", hex(d.expected()));
            }
        }
        return report.json();
    }
}
