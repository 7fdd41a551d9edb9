package dev.needlewb.converter.v3;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactModel;
import dev.needlewb.converter.cact.CactSummary;
import dev.needlewb.converter.cact.CactSummary.Category;
import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.converter.cq.CqCodebooks;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.v3.V3Geometry;
import dev.needlewb.golden.Golden;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Upstream's own Needle 3 export (golden v3mini/mini3.cact) against upstream's reading of it (cact_header.json). */
class V3CactGoldenTest {
    private static CactFile file;
    private static JsonNode header;

    @BeforeAll
    static void open() throws Exception {
        file = CactFile.open(Golden.v3mini("mini3.cact"));
        header = Golden.json(Golden.v3mini("cact_header.json"));
    }

    @AfterAll
    static void close() {
        if (file != null) file.close();
    }

    @Test
    void everyHeaderFieldIsReadByItsName() {
        assertThat(file.geometry().generation()).isEqualTo(Generation.NEEDLE3);
        V3Geometry g = V3Geometry.of(file.geometry());
        assertThat(g).isEqualTo(V3Geometry.mini());
        JsonNode fields = header.get("header_fields");
        assertThat(V3HeaderField.HEADER_BYTES).isEqualTo(header.get("header_bytes").asInt()).isEqualTo(196);
        // each field of the struct, by upstream's name, at the offset its order gives
        Map<V3HeaderField, Long> stored = new java.util.EnumMap<>(V3HeaderField.class);
        stored.put(V3HeaderField.TAG, (long) Generation.NEEDLE3.tag());
        stored.put(V3HeaderField.NUM_TENSORS, (long) file.numTensors());
        stored.put(V3HeaderField.CODEBOOK_LEN, (long) CqCodebooks.HEADER_LENGTH);
        stored.put(V3HeaderField.KV_WINDOW, (long) g.kvWindow());
        stored.put(V3HeaderField.KV_BITS, (long) g.kvBits());
        stored.put(V3HeaderField.VOCAB, (long) g.vocab());
        stored.put(V3HeaderField.OUT_VOCAB, (long) g.outVocabField());
        stored.put(V3HeaderField.D_MODEL, (long) g.dModel());
        stored.put(V3HeaderField.NUM_HEADS, (long) g.numHeads());
        stored.put(V3HeaderField.NUM_KV_HEADS, (long) g.numKvHeads());
        stored.put(V3HeaderField.NUM_LAYERS, (long) g.numLayers());
        stored.put(V3HeaderField.QK_HEAD_DIM, (long) g.qkHeadDim());
        stored.put(V3HeaderField.V_HEAD_DIM, (long) g.vHeadDim());
        stored.put(V3HeaderField.MAX_SEQ_LEN, (long) g.maxSeqLen());
        stored.put(V3HeaderField.HADA_N, (long) g.hadaN());
        stored.put(V3HeaderField.MHC_LANES, (long) g.mhcLanes());
        stored.put(V3HeaderField.SLIDING_WINDOW, (long) g.slidingWindow());
        stored.put(V3HeaderField.GLOBAL_MASK_LO, g.globalMask() & 0xFFFFFFFFL);
        stored.put(V3HeaderField.GLOBAL_MASK_HI, g.globalMask() >>> 32);
        stored.put(V3HeaderField.QKV_CONV_TAPS, (long) g.qkvConvTaps());
        stored.put(V3HeaderField.ENGRAM_SLOTS, (long) g.engramSlots());
        stored.put(V3HeaderField.ENGRAM_SUB_DIM, (long) g.engramSubDim());
        stored.put(V3HeaderField.NUM_ENGRAM_TABLES, (long) g.numEngramTables());
        stored.put(V3HeaderField.ENGRAM_CONV_TAPS, (long) g.engramConvTaps());
        stored.put(V3HeaderField.ENGRAM_CONV_DILATION, (long) g.engramConvDilation());
        stored.put(V3HeaderField.ENGRAM_SEED_HEADS, (long) g.engramSeedHeads());
        stored.put(V3HeaderField.NUM_ENGRAM_ORDERS, (long) g.engramOrders().length);
        stored.put(V3HeaderField.NUM_ENGRAM_SITES, (long) g.numEngramSites());
        for (V3HeaderField f : V3HeaderField.values()) {
            if (f == V3HeaderField.ROPE_THETA) {
                assertThat(g.ropeTheta()).isEqualTo((float) fields.get("rope_theta").asDouble());
            } else if (f.slots() > 1) {
                int[] used = f == V3HeaderField.ENGRAM_ORDERS ? g.engramOrders() : g.engramSites();
                for (int i = 0; i < f.slots(); i++) {
                    assertThat(i < used.length ? used[i] : 0).as(f.upstreamName() + "[" + i + "]")
                            .isEqualTo(fields.get(f.upstreamName() + "[" + i + "]").asInt());
                }
            } else {
                assertThat(stored.get(f)).as(f.upstreamName()).isEqualTo(fields.get(f.upstreamName()).asLong());
            }
        }
        assertThat(V3HeaderField.ROPE_THETA.offset()).isEqualTo(192);
    }

    @Test
    void decodedFieldsAreThoseReadExportReturns() {
        JsonNode read = header.get("header_read_export");
        Map<String, Object> fields = V3Header.INSTANCE.fields(file.geometry());
        List<String> compared = new ArrayList<>();
        read.fieldNames().forEachRemaining(name -> {
            if (!fields.containsKey(name)) return;
            Object v = fields.get(name);
            String expected = read.get(name).toString();
            String actual = v instanceof int[] a ? java.util.Arrays.toString(a).replace(" ", "")
                    : v instanceof Float f ? Double.toString(f) : v.toString();
            assertThat(actual).as(name).isEqualTo(expected);
            compared.add(name);
        });
        // every key read_export returns but num_tensors (the file's count) and the codebook (below), by the same name
        assertThat(compared).hasSize(read.size() - 2);
        float[] cb = file.codebook();
        for (int i = 0; i < cb.length; i++) assertThat(cb[i]).isEqualTo((float) read.get("codebook").get(i).asDouble());
    }

    @Test
    void everyRecordMatchesUpstream() {
        JsonNode ts = header.get("tensors");
        assertThat(file.numTensors()).isEqualTo(ts.size()).isEqualTo(137);
        for (int i = 0; i < ts.size(); i++) {
            JsonNode t = ts.get(i);
            TensorRecord r = file.tensor(i);
            assertThat(r.name()).isEqualTo(t.get("name").asText());
            assertThat(r.dtype().name()).isEqualTo(t.get("dtype").asText());
            List<Long> shape = new ArrayList<>();
            t.get("shape").forEach(n -> shape.add(n.asLong()));
            assertThat(r.shape()).as(r.name()).containsExactly(shape.stream().mapToLong(Long::longValue).toArray());
            assertThat(r.offset()).as(r.name()).isEqualTo(t.get("offset").asLong());
            assertThat(r.nbytes()).as(r.name()).isEqualTo(t.get("nbytes").asLong());
            assertThat(r.group()).isEqualTo(t.get("group").asInt());
            assertThat(r.bits()).isEqualTo(t.get("bits").asInt());
            assertThat(CactFile.sha256(file.blob(i))).as(r.name()).isEqualTo(t.get("blob_sha256").asText());
        }
        assertThat(file.fileBytes()).isEqualTo(header.get("file_bytes").asLong());
        assertThat(file.sha256()).isEqualTo(header.get("file_sha256").asText());
    }

    @Test
    void categoriesCountTheFp32PermutationsAsUpstreamDoes() {
        CactSummary s = CactSummary.of(file);
        JsonNode c = header.get("categories");
        for (String name : List.of("CQ4", "FP16", "FP32", "RAW")) {
            CactSummary.Counts counts = s.get(Category.valueOf(name));
            assertThat(counts.tensors()).as(name).isEqualTo(c.get(name).get("tensors").asInt());
            assertThat(counts.parameters()).as(name).isEqualTo(c.get(name).get("params").asLong());
            assertThat(counts.bytes()).as(name).isEqualTo(c.get(name).get("bytes").asLong());
        }
        assertThat(s.parameters()).isEqualTo(header.get("params_total").asLong());
    }

    @Test
    void theFp32PermutationsAreUpstreamsDraws() throws Exception {
        assertThat(file.dequantize(file.tensor("hada_p1").index()))
                .containsExactly(toFloats(HadaPermutations.Gather.P1.draw(128, false)));
        assertThat(file.dequantize(file.tensor("hada_p2").index()))
                .containsExactly(toFloats(HadaPermutations.Gather.P2.draw(128, false)));
        assertThat(file.generation().notes(file)).isEmpty();
    }

    @Test
    void anUneditedFileRewritesByteForByte() throws Exception {
        byte[] original = Files.readAllBytes(Golden.v3mini("mini3.cact"));
        assertThat(CactWriter.toBytes(CactModel.from(file))).isEqualTo(original);
    }

    @Test
    void theTokenizerHasNoMorePiecesThanTheVocab() throws Exception {
        assertThat(file.tokenizerVocab().size()).isEqualTo(512);
    }

    private static float[] toFloats(int[] p) {
        float[] f = new float[p.length];
        for (int i = 0; i < p.length; i++) f[i] = p[i];
        return f;
    }
}
