package dev.needlewb.converter.cact;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.converter.cq.CqCodebooks;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.golden.Golden;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** mini.cact against upstream's own reading of it (golden cact_header.json, cact_tensors.npz). */
class CactFileGoldenTest {
    private static CactFile file;
    private static JsonNode header;

    @BeforeAll
    static void open() throws Exception {
        file = CactFile.open(Golden.mini("mini.cact"));
        header = Golden.json(Golden.mini("cact_header.json"));
    }

    @AfterAll
    static void close() {
        if (file != null) file.close();
    }

    @Test
    void headerMatchesUpstream() {
        JsonNode h = header.get("header");
        Geometry g = Geometry.of(file.geometry());
        assertThat(g).isEqualTo(Geometry.mini());
        assertThat(g.vocab()).isEqualTo(h.get("vocab_size").asInt());
        assertThat(g.dModel()).isEqualTo(h.get("d_model").asInt());
        assertThat(g.headDim()).isEqualTo(h.get("head_dim").asInt());
        assertThat(g.hadaN()).isEqualTo(h.get("hada_n").asInt());
        assertThat(g.engramSubDim()).isEqualTo(h.get("engram_sub_dim").asInt());
        assertThat(g.kvWindow()).isEqualTo(h.get("kv_window").asInt());
        assertThat(g.engramSites()).containsExactly(ints(h.get("engram_layers")));
        assertThat(g.engramOrders()).containsExactly(ints(h.get("engram_orders")));
        assertThat(file.numTensors()).isEqualTo(h.get("num_tensors").asInt());
        float[] cb = file.codebook();
        for (int i = 0; i < CqCodebooks.HEADER_LENGTH; i++) {
            // exact: the JSON holds the float32 values printed as doubles
            assertThat(cb[i]).isEqualTo((float) h.get("codebook").get(i).asDouble());
        }
        assertThat(file.fileBytes()).isEqualTo(header.get("file_bytes").asLong());
        assertThat(file.sha256()).isEqualTo(header.get("file_sha256").asText());
    }

    @Test
    void everyRecordMatchesUpstream() {
        JsonNode ts = header.get("tensors");
        assertThat(file.tensors()).hasSize(ts.size());
        for (JsonNode t : ts) {
            TensorRecord r = file.tensor(t.get("index").asInt());
            assertThat(r.name()).isEqualTo(t.get("name").asText());
            assertThat(r.dtype().name()).isEqualTo(t.get("dtype").asText());
            assertThat(r.dtype().code()).isEqualTo(t.get("dtype_code").asInt());
            List<Long> shape = new ArrayList<>();
            t.get("shape").forEach(d -> shape.add(d.asLong()));
            assertThat(r.shape()).containsExactly(shape.stream().mapToLong(Long::longValue).toArray());
            assertThat(r.offset()).isEqualTo(t.get("offset").asLong());
            assertThat(r.nbytes()).isEqualTo(t.get("nbytes").asLong());
            assertThat(r.group()).isEqualTo(t.get("group").asInt());
            assertThat(r.bits()).isEqualTo(t.get("bits").asInt());
            assertThat(CactFile.sha256(file.blob(r.index()))).as(r.name()).isEqualTo(t.get("blob_sha256").asText());
        }
    }

    @Test
    void dequantizedTensorsEqualUpstreamBitForBit() throws Exception {
        Path npz = Golden.mini("cact_tensors.npz");
        for (TensorRecord r : file.tensors()) {
            NpyArray expected = Golden.array(npz, String.format("t%03d", r.index()));
            if (r.dtype() == CactDType.RAW) {
                assertThat(file.tokenizerBlob().toArray(ValueLayout.JAVA_BYTE)).isEqualTo(expected.data());
                continue;
            }
            assertThat(expected.shape()).as(r.name()).containsExactly(toInts(r.shape()));
            float[] want = expected.asFloats();
            float[] got = file.dequantize(r.index());
            // bit for bit: same float32 operations in the same order as numpy/OpenBLAS
            assertThat(bits(got)).as(r.name()).containsExactly(bits(want));
        }
    }

    @Test
    void rewritingGivesTheSameBytes() throws Exception {
        byte[] written = CactWriter.toBytes(CactModel.from(file));
        assertThat(CactFile.sha256(MemorySegment.ofArray(written))).isEqualTo(header.get("file_sha256").asText());
    }

    private static int[] ints(JsonNode arr) {
        int[] out = new int[arr.size()];
        for (int i = 0; i < out.length; i++) out[i] = arr.get(i).asInt();
        return out;
    }

    private static int[] toInts(long[] shape) {
        int[] out = new int[shape.length];
        for (int i = 0; i < out.length; i++) out[i] = (int) shape[i];
        return out;
    }

    private static int[] bits(float[] v) {
        int[] out = new int[v.length];
        for (int i = 0; i < v.length; i++) out[i] = Float.floatToRawIntBits(v[i]);
        return out;
    }
}
