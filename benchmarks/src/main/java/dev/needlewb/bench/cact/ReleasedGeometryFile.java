package dev.needlewb.bench.cact;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.converter.v2.ProbeHead;
import dev.needlewb.converter.synth.SyntheticCact;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** A synthetic .cact of the released Needle 2 geometry (13.7 MB) in a temporary folder. */
public final class ReleasedGeometryFile {
    /** Quantized parameters of the released geometry: 37,748,736 CQ2 + 5,521,408 CQ4. */
    public static final int CQ_PARAMETERS = 43_270_144;

    private ReleasedGeometryFile() {}

    public static Path write() throws IOException, WorkbenchException {
        Path dir = Files.createTempDirectory("cact-bench");
        Path file = dir.resolve("needle2-synthetic.cact");
        CactWriter.write(SyntheticCact.released(1, List.of(ProbeHead.CONTRASTIVE, ProbeHead.CONFIDENCE)), file);
        return file;
    }

    public static void delete(Path file) throws IOException {
        Files.deleteIfExists(file);
        Files.deleteIfExists(file.getParent());
    }
}
