package dev.needlewb.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The positions of mini.cact that golden/mini/cq_fragile.json lists as float32-fragile: the exact
 * decision, made from the checkpoint's raw weights, must agree with the official export there and
 * certify the code a plain float32 sequential sum gets instead.
 */
class ExactCqFragileTest {
    private static final Pattern ENGRAM_PROJECTION = Pattern.compile("engram(\\d+)\\.(key_proj|value_proj)");

    @Test
    void fragileCodesAreCertifiedAndTheRestOfTheirTensorAgreesWithTheExport() throws IOException {
        JsonNode fragile = GoldenData.json("mini/cq_fragile.json");
        JsonNode tensors = GoldenData.json("mini/cact_header.json").get("tensors");
        Map<Object, Object> params = MiniPickle.dict(MiniPickle.dict(
                MiniPickle.load(Files.readAllBytes(GoldenData.file("mini/mini.ckpt.pkl")))).get("params"));
        ByteBuffer cact = ByteBuffer.wrap(Files.readAllBytes(GoldenData.file("mini/mini.cact"))).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(fragile.get("fragile_positions").size()).isPositive();

        for (JsonNode position : fragile.get("fragile_positions")) {
            int index = position.get("tensor").asInt();
            JsonNode tensor = tensors.get(index);
            JsonNode stats = statsOf(fragile, index);
            Matcher m = ENGRAM_PROJECTION.matcher(position.get("name").asText());
            assertThat(m.matches()).as("a listed tensor this test can map to the checkpoint").isTrue();
            int out = tensor.get("shape").get(0).asInt(), in = tensor.get("shape").get(1).asInt();
            int bits = tensor.get("bits").asInt(), group = tensor.get("group").asInt();
            assertThat(in).isEqualTo(group);
            // Flax kernel [in, out]; the .cact row r is kernel column r.
            float[] kernel = MiniPickle.floatArray(MiniPickle.dict(MiniPickle.dict(params.get("engrams_" + m.group(1)))
                    .get(m.group(2))).get("kernel"), in, out);
            float[] codebook = fileCodebook(cact, bits);

            int codeDiffs = 0, normDiffs = 0, below1e7 = 0, below1e6 = 0;
            long offset = tensor.get("offset").asLong();
            int rowBytes = in * bits / 8;
            for (int r = 0; r < out; r++) {
                float[] w = new float[in];
                for (int c = 0; c < in; c++) w[c] = kernel[c * out + r];
                GroupDecision d = ExactCq.decide(w, codebook);
                int[] codes = d.codes();
                double[] margins = d.boundaryMargin();
                for (int c = 0; c < in; c++) {
                    int bit = c * bits;
                    int word = (cact.get((int) (offset + (long) r * rowBytes + bit / 8)) & 0xFF)
                            | (bit / 8 + 1 < rowBytes ? (cact.get((int) (offset + (long) r * rowBytes + bit / 8 + 1)) & 0xFF) << 8 : 0);
                    int official = (word >>> (bit % 8)) & ((1 << bits) - 1);
                    if (official != codes[c]) codeDiffs++;
                    if (margins[c] < 1e-7) below1e7++;
                    if (margins[c] < 1e-6) below1e6++;
                }
                short officialNorm = cact.getShort((int) (offset + (long) out * rowBytes + 2L * r));
                if (officialNorm != d.float16Norm()) normDiffs++;

                if (r == position.get("row").asInt()) {
                    int col = position.get("col").asInt();
                    int f32seq = position.get("f32seq").asInt();
                    assertThat(codes[col]).as("exact = official = float64").isEqualTo(position.get("official").asInt())
                            .isEqualTo(position.get("f64").asInt());
                    assertThat(f32seq).isNotEqualTo(codes[col]);
                    assertThat(d.certifiesCode(col, f32seq)).as("float32 sequential code certified").isTrue();
                    // Our float32 re-enactment with a forward sequential sum is that same computation.
                    assertThat(UpstreamFloat32.quantize(w, codebook, false).codes()[col]).isEqualTo(f32seq);
                    System.out.printf("fragile %s row %d col %d: margin %.3e, radius %.3e%n", position.get("name").asText(),
                            r, col, margins[col], d.roundingRadius(col));
                }
            }
            // The float64 rotation upstream's diagnostics used agrees with the export everywhere in this
            // tensor, so the exact decision must too; margins far from 1e-7/1e-6 count the same in
            // float64 and exactly.
            assertThat(codeDiffs).isEqualTo(stats.get("f64_codes_differ").asInt()).isZero();
            assertThat(normDiffs).isEqualTo(stats.get("f64_norms_differ").asInt()).isZero();
            assertThat(below1e7).isEqualTo(stats.get("margin_lt_1e-7").asInt());
            assertThat(below1e6).isEqualTo(stats.get("margin_lt_1e-6").asInt());
        }
    }

    private static JsonNode statsOf(JsonNode fragile, int index) {
        for (JsonNode t : fragile.get("tensors")) if (t.get("index").asInt() == index) return t;
        throw new AssertionError("cq_fragile.json has no statistics for tensor " + index);
    }

    /** The codebook stored in the .cact file after the 120-byte header: cb2[4] | cb3[8] | cb4[16]. */
    private static float[] fileCodebook(ByteBuffer cact, int bits) {
        int start = switch (bits) {
            case 2 -> 0;
            case 3 -> 4;
            case 4 -> 12;
            default -> throw new AssertionError("no file codebook for " + bits + " bits");
        };
        float[] cb = new float[1 << bits];
        for (int k = 0; k < cb.length; k++) cb[k] = cact.getFloat(120 + 4 * (start + k));
        return cb;
    }
}
