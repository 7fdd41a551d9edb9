package dev.needlewb.reports.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The process's peak resident set (VmHWM in /proc/self/status), or why it is unknown. */
public record PeakRss(long kib, String note) {
    public static final long UNAVAILABLE = -1;

    public boolean available() {
        return kib != UNAVAILABLE;
    }

    public static PeakRss read() {
        return read(Path.of("/proc/self/status"));
    }

    static PeakRss read(Path status) {
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("VmHWM:")) {
                    String value = line.substring("VmHWM:".length()).trim();
                    if (value.endsWith("kB")) return new PeakRss(Long.parseLong(value.substring(0, value.length() - 2).trim()), "VmHWM from " + status);
                }
            }
            return new PeakRss(UNAVAILABLE, status + " has no VmHWM line");
        } catch (IOException | SecurityException | NumberFormatException e) {
            return new PeakRss(UNAVAILABLE, status + " unreadable on this system (" + e.getClass().getSimpleName() + ")");
        }
    }
}
