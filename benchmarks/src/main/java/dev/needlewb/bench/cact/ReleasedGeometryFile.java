package dev.needlewb.bench.cact;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.cact.CactModel;
import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.converter.v2.ProbeHead;
import dev.needlewb.converter.synth.SyntheticCact;
import dev.needlewb.converter.synth.SyntheticTokenizerBlob;
import dev.needlewb.converter.synth.SyntheticV3Cact;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Synthetic .cact files of the sizes that matter, in a temporary folder. */
public final class ReleasedGeometryFile {
    /** Quantized parameters of the released geometry: 37,748,736 CQ2 + 5,521,408 CQ4. */
    public static final int CQ_PARAMETERS = 43_270_144;
    /**
     * A Needle-2-layout geometry whose file has the shipped Needle 3's size (about 35 MB): d_model
     * 768, 27 layers, 12 query and 2 kv heads of 64, 18,432 engram slots in 6 tables, 4 sites.
     */
    public static final Geometry NEEDLE3_SIZE = new Geometry(8192, 768, 12, 2, 27, 64, 8192, 1024, 4, 18432, 128, 6, 4, 3,
            new int[] {2, 3}, new int[] {3, 7, 11, 15}, 100000f, 256, 8);

    private ReleasedGeometryFile() {}

    /** The released Needle 2 geometry with both probe heads (13.7 MB). */
    public static Path write() throws IOException, WorkbenchException {
        return write(SyntheticCact.released(1, List.of(ProbeHead.CONTRASTIVE, ProbeHead.CONFIDENCE)));
    }

    /** {@link #NEEDLE3_SIZE} with the confidence head and a tokenizer of the released blob's size. */
    public static Path writeNeedle3Size() throws IOException, WorkbenchException {
        return write(SyntheticCact.build(NEEDLE3_SIZE, 1, List.of(ProbeHead.CONFIDENCE),
                SyntheticTokenizerBlob.of(NEEDLE3_SIZE.vocab(), SyntheticCact.RELEASED_TOKENIZER_BYTES)));
    }

    /** The released Needle 3 geometry in its own format, the shipped bits scheme, the published size (35,335,380 bytes). */
    public static Path writeNeedle3() throws IOException, WorkbenchException {
        return write(SyntheticV3Cact.released(1));
    }

    private static Path write(CactModel model) throws IOException, WorkbenchException {
        Path dir = Files.createTempDirectory("cact-bench");
        Path file = dir.resolve("synthetic.cact");
        CactWriter.write(model, file);
        return file;
    }

    public static void delete(Path file) throws IOException {
        Files.deleteIfExists(file);
        Files.deleteIfExists(file.getParent());
    }
}
