package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.reports.report.Report;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportFilesTest {

    @Test
    void aReportIsWrittenWholeOrNotAtAll(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("new");
        Report report = new Report("x", List.of(), new String[] {"needle-wb", "x"});
        // x.html cannot be written (a folder is in its place): x.json and x.md, written first, go again.
        Files.createDirectories(out.resolve("x.html").resolve("blocker"));
        assertThatThrownBy(() -> ReportFiles.write(out, "x", report, "# x\n", "<html></html>")).isInstanceOf(WorkbenchException.class);
        assertThat(out.resolve("x.json")).doesNotExist();
        assertThat(out.resolve("x.md")).doesNotExist();

        Path fresh = dir.resolve("fresh");
        assertThat(ReportFiles.write(fresh, "x", report, "# x\n", null)).containsExactly(fresh.resolve("x.json"), fresh.resolve("x.md"));
    }
}
