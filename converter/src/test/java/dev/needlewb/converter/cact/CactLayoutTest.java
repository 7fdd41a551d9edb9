package dev.needlewb.converter.cact;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.converter.model.Geometry;
import dev.needlewb.golden.Golden;
import java.util.List;
import org.junit.jupiter.api.Test;

class CactLayoutTest {
    @Test
    void miniLayoutNamesAreUpstreams() {
        JsonNode ts = Golden.json(Golden.mini("cact_header.json")).get("tensors");
        CactLayout layout = CactLayout.of(Geometry.mini(), List.of(ProbeHead.CONTRASTIVE, ProbeHead.CONFIDENCE));
        assertThat(layout.size()).isEqualTo(ts.size());
        for (int i = 0; i < ts.size(); i++) assertThat(layout.slot(i).name()).isEqualTo(ts.get(i).get("name").asText());
    }

    @Test
    void recordCountDecidesTheProbeHeads() {
        Geometry g = Geometry.needle2();
        assertThat(CactLayout.coreCount(g)).isEqualTo(1 + 14 * 27 + 9 + 4 * 2 + 1);
        assertThat(CactLayout.headCount(g, CactLayout.coreCount(g) + 1)).isZero();
        assertThat(CactLayout.headCount(g, CactLayout.coreCount(g) + 1 + 4)).isEqualTo(1);
        assertThat(CactLayout.headCount(g, 405)).isEqualTo(2);
        assertThat(CactLayout.headCount(g, 406)).isEqualTo(-1);
        assertThat(CactLayout.headCount(g, 405 + 3)).as("at most two kinds of head").isEqualTo(-1);
    }

    @Test
    void releasedGeometryShapes() {
        CactLayout layout = CactLayout.of(Geometry.needle2(), List.of());
        assertThat(layout.slot(layout.indexOf("layer26.k_proj")).shape()).containsExactly(256, 512);
        assertThat(layout.slot(layout.indexOf("layer00.out_proj")).shape()).containsExactly(512, 512);
        assertThat(layout.slot(layout.indexOf("mhc_phi_res")).shape()).containsExactly(27 * 16, 2048);
        assertThat(layout.slot(layout.indexOf("engram1.tables")).shape()).containsExactly(4 * 8192, 128);
        assertThat(layout.slot(layout.indexOf("engram1.taps")).shape()).containsExactly(4, 512);
        assertThat(layout.slot(layout.size() - 1).kind()).isEqualTo(CactLayout.Kind.TOKENIZER);
    }

    @Test
    void geometryRulesNameTheField() {
        assertThat(GeometryRules.check(Geometry.needle2())).isNull();
        assertThat(GeometryRules.check(Geometry.mini())).isNull();
        Geometry g = Geometry.needle2();
        Geometry oddHeads = new Geometry(8192, 512, 8, 3, 27, 64, 2048, 512, 4, 8192, 128, 4, 4, 3,
                new int[] {2, 3}, new int[] {2, 15}, 100000f, 256, 8);
        assertThat(GeometryRules.check(oddHeads).problem()).contains("num_heads 8 is not a multiple of num_kv_heads 3");
        Geometry siteOutside = new Geometry(8192, 512, 8, 4, 27, 64, 2048, 512, 4, 8192, 128, 4, 4, 3,
                new int[] {2, 3}, new int[] {2, 27}, 100000f, 256, 8);
        assertThat(GeometryRules.check(siteOutside).problem()).contains("engram site 27 is not a layer");
        assertThat(GeometryRules.check(g.withKv(4096, 8)).problem()).contains("kv_window 4096");
        Geometry badSubDim = new Geometry(8192, 512, 8, 4, 27, 64, 2048, 512, 4, 8192, 64, 4, 4, 3,
                new int[] {2, 3}, new int[] {2, 15}, 100000f, 256, 8);
        assertThat(GeometryRules.check(badSubDim).problem()).contains("engram_sub_dim 64 must be d_model / tables = 512 / 4 = 128");
    }
}
