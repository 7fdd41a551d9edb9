package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.v2.Geometry;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A .cact whose max_seq_len is 2^31 - 1 (upstream's struct writes any u32; no tensor has that
 * size): the commands that read files run on it without allocating for the positions it allows.
 * The engine's caches are sized elsewhere (generate, bench, parity).
 */
class HeaderSizesCliTest {
    @Test
    void maxSeqLenOf2To31Minus1(@TempDir Path dir) throws Exception {
        Path model = MiniVariants.withGeometry(dir.resolve("long.cact"), g -> new Geometry(g.vocab(), g.dModel(), g.numHeads(),
                g.numKvHeads(), g.numLayers(), g.headDim(), Integer.MAX_VALUE, g.hadaN(), g.mhcLanes(), g.engramSlots(),
                g.engramSubDim(), g.numEngramTables(), g.engramConvTaps(), g.engramConvDilation(), g.engramOrders(), g.engramSites(),
                g.ropeTheta(), g.kvWindow(), g.kvBits()));
        CliRun inspect = CliRun.of("inspect", model.toString());
        assertThat(inspect.exit()).as(inspect.err()).isZero();
        assertThat(inspect.out()).contains("- max_seq_len: 2147483647");
        CliRun convert = CliRun.of("convert", model.toString(), "--to", dir.resolve("long.safetensors").toString());
        assertThat(convert.exit()).as(convert.err()).isZero();
        CliRun reference = CliRun.of("reference", model.toString(), "--tokens", "2,5,9", "--out", dir.resolve("r.npz").toString());
        assertThat(reference.exit()).as(reference.err()).isZero();
        CliRun cached = CliRun.of("reference", model.toString(), "--tokens", "2,5,9", "--cached", "--out", dir.resolve("c.npz").toString());
        assertThat(cached.exit()).as(cached.err()).isZero();
    }
}
