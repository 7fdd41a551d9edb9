package dev.needlewb.reports.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/** Memory fields (in KiB) of a Linux {@code /proc/<pid>/status}: VmRSS (resident now), VmHWM (peak resident). */
public final class ProcStatus {
    public static final Path SELF = Path.of("/proc/self/status");

    private ProcStatus() {}

    /** The field's value in KiB, or empty when the file or field is missing or unreadable. */
    public static OptionalLong kib(Path status, String field) {
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith(field + ":")) {
                    String value = line.substring(field.length() + 1).trim();
                    if (!value.endsWith("kB")) return OptionalLong.empty();
                    return OptionalLong.of(Long.parseLong(value.substring(0, value.length() - 2).trim()));
                }
            }
            return OptionalLong.empty();
        } catch (IOException | SecurityException | NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** The current resident set of this process in KiB, or {@link PeakRss#UNAVAILABLE}. */
    public static long residentKib() {
        return kib(SELF, "VmRSS").orElse(PeakRss.UNAVAILABLE);
    }
}
