package dev.needlewb.converter.cact;

import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.golden.Golden;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CactSummaryTest {
    @Test
    void miniCategoriesMatchUpstream() throws Exception {
        JsonNode header = Golden.json(Golden.mini("cact_header.json"));
        try (CactFile file = CactFile.open(Golden.mini("mini.cact"))) {
            CactSummary s = CactSummary.of(file);
            JsonNode categories = header.get("categories");
            assertThat(categories.size()).isEqualTo(4);
            for (String name : new String[] {"CQ2", "CQ4", "FP16", "RAW"}) {
                JsonNode want = categories.get(name);
                CactSummary.Counts c = s.get(CactSummary.Category.valueOf(name));
                assertThat(c.tensors()).as(name).isEqualTo(want.get("tensors").asInt());
                assertThat(c.parameters()).as(name).isEqualTo(want.get("params").asLong());
                assertThat(c.bytes()).as(name).isEqualTo(want.get("bytes").asLong());
            }
            assertThat(s.tensors()).isEqualTo(111);
            assertThat(s.parameters()).isEqualTo(524_288 + 139_264 + 74_539);
            // exact ratio of integers: (524288*2 + 139264*4) / 663552
            assertThat(s.codeWidth()).isEqualTo((524_288 * 2.0 + 139_264 * 4.0) / 663_552);
            assertThat(s.fileBitsPerParameter()).isEqualTo(8.0 * 389_286 / 738_091);
        }
    }

    @Test
    void writerRejectsAModelOffTheLayout() throws Exception {
        try (CactFile file = CactFile.open(Golden.mini("mini.cact"))) {
            CactModel model = CactModel.from(file);
            List<CactTensor> swapped = new ArrayList<>(model.tensors());
            swapped.set(5, model.tensors().get(6));
            refused(ErrorKind.UNKNOWN_KEY, () -> CactWriter.toBytes(new CactModel(model.geometry(), model.codebook(), swapped)));
            List<CactTensor> shortBlob = new ArrayList<>(model.tensors());
            CactTensor d1 = model.tensors().get(12);
            shortBlob.set(12, new CactTensor(d1.name(), d1.dtype(), d1.shape(), 0, 0, d1.data().asSlice(0, 200)));
            refused(ErrorKind.SHAPE_MISMATCH, () -> CactWriter.toBytes(new CactModel(model.geometry(), model.codebook(), shortBlob)));
        }
    }
}
