package dev.needlewb.reports.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/** The process's peak resident set (VmHWM in /proc/self/status), or why it is unknown. */
public record PeakRss(long kib, String note) {
    public static final long UNAVAILABLE = -1;

    public boolean available() {
        return kib != UNAVAILABLE;
    }

    public static PeakRss read() {
        return read(ProcStatus.SELF);
    }

    static PeakRss read(Path status) {
        if (!Files.isReadable(status)) return new PeakRss(UNAVAILABLE, status + " unreadable on this system");
        OptionalLong hwm = ProcStatus.kib(status, "VmHWM");
        return hwm.isPresent() ? new PeakRss(hwm.getAsLong(), "VmHWM from " + status) : new PeakRss(UNAVAILABLE, status + " has no VmHWM line");
    }
}
