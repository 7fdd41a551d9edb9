package dev.needlewb.reports.sweep;

import dev.needlewb.converter.synth.DrawnModel;
import java.nio.file.Path;
import java.util.List;

/**
 * One geometry of a sweep: what was drawn ({@code index} of its generation's draws; {@code shape} describes it), the file {@code convert}
 * wrote from its checkpoint, and the parity run at each width (none when the conversion failed).
 */
public record GeometryOutcome(int index, DrawnModel drawn, String shape, Path model, CommandOutcome convert, List<WidthOutcome> widths) {
    public GeometryOutcome {
        widths = List.copyOf(widths);
    }

    public boolean passed() {
        return convert.exit() == 0 && widths.stream().allMatch(WidthOutcome::passed);
    }

    /** Whether some command of this geometry ended in an internal error (exit 3) or died. */
    public boolean crashed() {
        return convert.exit() == 3 || convert.exit() == CommandOutcome.CRASHED
                || widths.stream().anyMatch(w -> w.parity().exit() == 3 || w.parity().exit() == CommandOutcome.CRASHED);
    }

    /** The first failure, {@code convert exit 2: ...} or {@code 512 bits: int8 out of tolerance ...}, or null. */
    public String failure() {
        if (convert.exit() != 0) return "convert " + convert.describe();
        for (WidthOutcome w : widths) {
            String f = w.failure();
            if (f != null) return w.bits() + " bits: " + f;
        }
        return null;
    }

    /** The first width whose run failed, or 0. */
    public int failingBits() {
        return widths.stream().filter(w -> !w.passed()).mapToInt(WidthOutcome::bits).findFirst().orElse(0);
    }
}
