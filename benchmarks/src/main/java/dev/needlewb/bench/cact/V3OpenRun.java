package dev.needlewb.bench.cact;

import dev.needlewb.bench.PhaseClock;
import dev.needlewb.converter.cact.CactFile;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A timed harness for reading and validating a Needle 3 file of the released geometry written with
 * the shipped bits scheme (35,335,380 bytes, 581 tensors), in this fresh JVM: the first open is
 * what a command pays ({@code CactFile.open}: read into memory, validate header, codebook,
 * directory and permutations, scan every value for NaN and infinity), the next ones the same
 * work warm. Writing the file is not timed. Run:
 * {@code java --add-modules=jdk.incubator.vector --enable-native-access=ALL-UNNAMED -cp
 * benchmarks/target/benchmarks.jar dev.needlewb.bench.cact.V3OpenRun [FILE.cact]} (a file given is
 * kept for the next run, so the first open reads it from the page cache of the previous write).
 */
public final class V3OpenRun {
    private static final int WARM_OPENS = 5;

    private V3OpenRun() {}

    public static void main(String[] args) throws Exception {
        PhaseClock.printLoad("at start");
        Path file = args.length > 0 ? Path.of(args[0]) : null;
        boolean keep = file != null;
        if (file == null || !Files.exists(file)) {
            Path written = ReleasedGeometryFile.writeNeedle3();
            if (file == null) {
                file = written;
            } else {
                Files.move(written, file);
                Files.deleteIfExists(written.getParent());
            }
        }
        PhaseClock t = new PhaseClock();
        t.phase("synthetic file " + Files.size(file) + " bytes (not part of the run)");
        try (CactFile f = CactFile.open(file)) {
            t.phase("first open (" + f.numTensors() + " tensors): read, validate, scan");
        }
        for (int i = 0; i < WARM_OPENS; i++) {
            try (CactFile f = CactFile.open(file)) {
                t.phase("open " + (i + 2));
            }
        }
        if (!keep) ReleasedGeometryFile.delete(file);
        PhaseClock.printLoad("at the end");
    }
}
