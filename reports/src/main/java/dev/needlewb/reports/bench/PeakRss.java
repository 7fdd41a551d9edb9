package dev.needlewb.reports.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * The process's peak resident set (VmHWM in /proc/self/status), or why it is unknown; {@code note}
 * says where it comes from and since when it counts.
 */
public record PeakRss(long kib, String note) {
    public static final long UNAVAILABLE = -1;
    private static final Path CLEAR_REFS = Path.of("/proc/self/clear_refs");

    public boolean available() {
        return kib != UNAVAILABLE;
    }

    /**
     * Starts a new peak: sets VmHWM to the current resident set (Linux 4.0 and later: "5" written to
     * /proc/self/clear_refs), so a later {@link #read} covers only what ran after. Returns null when it
     * did, else why not.
     */
    public static String restart() {
        return restart(CLEAR_REFS);
    }

    static String restart(Path clearRefs) {
        try {
            Files.writeString(clearRefs, "5");
            return null;
        } catch (IOException | SecurityException | UnsupportedOperationException e) {
            return clearRefs + " not writable (" + e.getClass().getSimpleName() + ")";
        }
    }

    /** The peak since {@link #restart()} when {@code restartFailure} is null, else since the process started. */
    public static PeakRss read(String restartFailure) {
        return read(ProcStatus.SELF, restartFailure);
    }

    static PeakRss read(Path status, String restartFailure) {
        if (!Files.isReadable(status)) return new PeakRss(UNAVAILABLE, status + " unreadable on this system");
        OptionalLong hwm = ProcStatus.kib(status, "VmHWM");
        if (hwm.isEmpty()) return new PeakRss(UNAVAILABLE, status + " has no VmHWM line");
        return new PeakRss(hwm.getAsLong(), restartFailure == null ? "VmHWM, restarted before the first run"
                : "VmHWM since the process started, which includes any work before the bench: " + restartFailure);
    }
}
