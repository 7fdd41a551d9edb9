package dev.needlewb.reports.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.golden.Golden;
import dev.needlewb.reports.report.InputFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The inspect report's summary lines are computed from its own tensor table. */
class InspectReportTest {

    private static long number(String cell) {
        return cell.equals("-") ? 0 : Long.parseLong(cell.replace(",", "").replace(" (file)", "").strip());
    }

    /** The cells of the Markdown table rows that start with "| " under a heading. */
    private static List<String[]> rows(String md, String heading) {
        List<String[]> rows = new ArrayList<>();
        boolean in = false;
        for (String line : md.lines().toList()) {
            if (line.startsWith("## ")) in = line.equals("## " + heading);
            else if (in && line.startsWith("| ") && !line.startsWith("| ---") && !line.contains("---|")) {
                String[] cells = line.substring(2, line.length() - 2).split(" \\| ");
                if (!cells[0].equals("category") && !cells[0].equals("index")) rows.add(cells);
            }
        }
        return rows;
    }

    @Test
    void summaryAgreesWithTheTensorTable() throws Exception {
        Path mini = Golden.mini("mini.cact");
        try (CactFile file = CactFile.open(mini)) {
            String md = new InspectReport(file, InputFile.of("model", mini)).markdown();
            List<String[]> tensors = rows(md, "Tensors");
            assertThat(tensors).hasSize(file.tensors().size());
            long params = 0, payloadBytes = 0, quantized = 0;
            double codeBits = 0;
            for (String[] t : tensors) {
                long n = number(t[6]);
                params += n;
                if (!t[2].equals("RAW")) payloadBytes += number(t[7]);
                if (t[2].equals("CQ")) {
                    codeBits += (t[3].equals("t") ? 1.58 : Integer.parseInt(t[3])) * n;
                    quantized += n;
                }
            }
            List<String[]> summary = rows(md, "Summary");
            String[] total = summary.getLast();
            assertThat(total[0]).isEqualTo("total");
            assertThat(number(total[1])).isEqualTo(tensors.size());
            assertThat(number(total[2])).isEqualTo(params);
            assertThat(summary.subList(0, summary.size() - 1).stream().mapToLong(r -> number(r[1])).sum()).isEqualTo(tensors.size());
            assertThat(summary.subList(0, summary.size() - 1).stream().mapToLong(r -> number(r[2])).sum()).isEqualTo(params);
            assertThat(number(total[3])).isEqualTo(file.fileBytes());
            assertThat(md).contains(String.format(Locale.ROOT, "- weighted code width of quantized parameters: %.6f bit", codeBits / quantized))
                    .contains(String.format(Locale.ROOT, "- numeric payload: %.6f bits per parameter", 8.0 * payloadBytes / params))
                    .contains(String.format(Locale.ROOT, "- whole file: %.6f bits per parameter", 8.0 * file.fileBytes() / params));
            long cq = file.tensors().stream().filter(r -> r.dtype().name().equals("CQ")).mapToLong(TensorRecord::elementCount).sum();
            assertThat(quantized).isEqualTo(cq).isPositive();
        }
    }
}
