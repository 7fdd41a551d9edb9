package dev.needlewb.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.converter.synth.SyntheticCact;
import dev.needlewb.converter.synth.SyntheticTokenizerBlob;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.core.simd.VectorWidth;
import dev.needlewb.engine.kernel.NumericMode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The engine's outputs are the same bits at every vector width: every surefire execution (the
 * machine's width, MaxVectorSize 16 and 32, 512 bits forced) must reproduce these SHA-256 digests of
 * the raw float32 logits of every step on the golden mini model. The digests were taken from the
 * engine as it was before the kernels became width-agnostic (16-lane species only, run on an AVX2
 * machine through the Vector API's fallback, whose semantics are the compiled ones), so they also pin
 * that the port changed no bit; the batch prefill's two changed once since, when it took the native
 * engram gate (unit vectors rounded, then an index-order dot product), and the int8 ones when 2-bit
 * int8 products took the block kernel's contract (exact integer group sums, one float chain per row;
 * the exact-mode digests did not move), and again when 4-bit matrices of 128 rows or more (the logit
 * projection) took it too. Window 16 with 3 sinks runs the cache's ring, its pinned slots and
 * the int8 cache's slot runs of every length.
 */
@Tag("width")
@Tag("kernel")
class WidthInvariantOutputsTest {

    @ParameterizedTest(name = "{0} threads {1} {2}")
    @CsvSource({
        "EXACT, 1, native, a9d89a09d7eaf722594932366e40b0f140373e4b4ec39d90a8861878ebd9aa36",
        "EXACT, 2, native, a9d89a09d7eaf722594932366e40b0f140373e4b4ec39d90a8861878ebd9aa36",
        "INT8, 1, native, 5b6b09eb3fad7994c97ef85e6d4c8ff609e07615ce569687b15dfe8049bae830",
        "INT8, 2, native, 5b6b09eb3fad7994c97ef85e6d4c8ff609e07615ce569687b15dfe8049bae830",
        "EXACT, 2, batch, 953573c1d5dfff98dcbe7da08e8f950201921e1f033a329e409d0ed4d07e3be9",
        "INT8, 2, batch, 5376e0de6a1d73140a480e5a1f78bdcc2bb93e9d257980fa3f2d6d36dc8be178",
    })
    void logitsDigestIsTheSameAtEveryWidth(NumericMode mode, int threads, String prefill, String digest) throws Exception {
        int[] tokens = GoldenLogitsTest.tokens("s040");
        EngineOptions options = new EngineOptions(mode, threads, 16, 3, tokens.length + 8);
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        try (Engine e = Engine.open(GoldenLogitsTest.cact(), options)) {
            Session s = prompt(sha, e, tokens, prefill);
            int next = 7;
            for (int i = 0; i < 8; i++) {
                float[] logits = s.step(next);
                add(sha, logits);
                next = argmax(logits);
            }
        }
        assertThat(HexFormat.of().formatHex(sha.digest())).as(VectorWidth.describe()).isEqualTo(digest);
    }

    /**
     * A geometry off the 16-lane grid: d_model 100, heads of 24 (the last 8 dimensions of every head past
     * the 16-lane body, and in the int8 cache a head of one partial block of 24), q width 72 against 100,
     * hada_n 128, engram tables 6 x 16. These digests were taken when the tails were added, at 256 bits;
     * every execution must reproduce them, so the tails' orders (docs/numerics.md) do not depend on the width.
     */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "EXACT, native, f1b4edc802e41b662a39290f2ce4a44ed9c9826cee77970699401a29667004f1",
        "INT8, native, b69be4a791c8d6d2102937d6bf55357ee0169d1310d6b5fbae13e41dcc59cda8",
        "EXACT, batch, 16d6584812afb2978252d48f7d4c0f0b45a46006faf8d7cacb4ec593be61f758",
    })
    void headDim24LogitsDigestIsTheSameAtEveryWidth(NumericMode mode, String prefill, String digest, @TempDir Path dir) throws Exception {
        Geometry g = new Geometry(300, 100, 3, 1, 2, 24, 64, 128, 2, 31, 16, 6, 4, 3, new int[] {2, 3}, new int[] {1}, 10000f, 0, 8);
        Path file = dir.resolve("hd24.cact");
        CactWriter.write(SyntheticCact.build(g, 5, List.of(), SyntheticTokenizerBlob.of(g.vocab(), 4096)), file);
        int[] tokens = new int[30];
        for (int i = 0; i < tokens.length; i++) tokens[i] = i == 0 ? 2 : 14 + (i * 37) % 280;
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        try (Engine e = Engine.open(file, new EngineOptions(mode, 1, 20, 2, 64))) {
            Session s = prompt(sha, e, tokens, prefill);
            for (int i = 0; i < 6; i++) add(sha, s.step(20 + i));
        }
        assertThat(HexFormat.of().formatHex(sha.digest())).as(VectorWidth.describe()).isEqualTo(digest);
    }

    /** Runs {@code tokens} from position 0, natively or in one batch prefill, adding every position's logits; returns the session. */
    private static Session prompt(MessageDigest sha, Engine e, int[] tokens, String prefill) throws Exception {
        Session s = e.newSession();
        if (prefill.equals("batch")) {
            try (BatchPrefill batch = BatchPrefill.open(e)) {
                add(sha, batch.prefillAllLogits(s, tokens));
            }
        } else {
            for (int t : tokens) add(sha, s.step(t));
        }
        return s;
    }

    private static void add(MessageDigest sha, float[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) b.putInt(Float.floatToRawIntBits(v));
        sha.update(b.array());
    }

    private static int argmax(float[] v) {
        int best = 0;
        for (int i = 1; i < v.length; i++) if (v[i] > v[best]) best = i;
        return best;
    }
}
