package dev.needlewb.converter.v2;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.converter.cact.CactLayout;
import dev.needlewb.converter.names.Storage;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.golden.Golden;
import java.util.List;
import org.junit.jupiter.api.Test;

class V2LayoutTest {
    @Test
    void miniLayoutNamesAreUpstreams() {
        JsonNode ts = Golden.json(Golden.mini("cact_header.json")).get("tensors");
        CactLayout layout = V2Layout.of(Geometry.mini(), List.of(ProbeHead.CONTRASTIVE, ProbeHead.CONFIDENCE), true);
        assertThat(layout.size()).isEqualTo(ts.size());
        for (int i = 0; i < ts.size(); i++) assertThat(layout.slot(i).name()).isEqualTo(ts.get(i).get("name").asText());
    }

    @Test
    void recordCountDecidesTheProbeHeadsAndTheTokenizer() {
        Geometry g = Geometry.needle2();
        long core = V2Layout.coreCount(g);
        assertThat(core).isEqualTo(1 + 14 * 27 + 9 + 4 * 2 + 1);
        assertThat(V2Layout.extras(g, core + 1)).isEqualTo(new V2Layout.Extras(0, true));
        assertThat(V2Layout.extras(g, core + 1 + 4)).isEqualTo(new V2Layout.Extras(1, true));
        assertThat(V2Layout.extras(g, 405)).isEqualTo(new V2Layout.Extras(2, true));
        // build_export(tokenizer=None): the same counts one lower
        assertThat(V2Layout.extras(g, core)).isEqualTo(new V2Layout.Extras(0, false));
        assertThat(V2Layout.extras(g, core + 4)).isEqualTo(new V2Layout.Extras(1, false));
        assertThat(V2Layout.extras(g, 404)).isEqualTo(new V2Layout.Extras(2, false));
        assertThat(V2Layout.extras(g, 406)).isNull();
        assertThat(V2Layout.extras(g, core - 1)).isNull();
        assertThat(V2Layout.extras(g, 405 + 3)).as("at most two kinds of head").isNull();
        assertThat(V2Layout.of(g, List.of(), false).slots()).noneMatch(s -> s.storage() == Storage.RAW);
    }

    @Test
    void releasedGeometryShapes() {
        CactLayout layout = V2Layout.of(Geometry.needle2(), List.of(), true);
        assertThat(layout.slot(layout.indexOf("layer26.k_proj")).shape()).containsExactly(256, 512);
        assertThat(layout.slot(layout.indexOf("layer00.out_proj")).shape()).containsExactly(512, 512);
        assertThat(layout.slot(layout.indexOf("mhc_phi_res")).shape()).containsExactly(27 * 16, 2048);
        assertThat(layout.slot(layout.indexOf("engram1.tables")).shape()).containsExactly(4 * 8192, 128);
        assertThat(layout.slot(layout.indexOf("engram1.taps")).shape()).containsExactly(4, 512);
        assertThat(layout.slot(layout.size() - 1).name()).isEqualTo(ModelTensor.TOKENIZER.single().name());
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
        // Upstream's effective_kv_window exceeds max_seq_len when the budget's floor of 160 does,
        // and build_export takes any kv_window: every u32 is valid.
        assertThat(GeometryRules.check(g.withKv(4096, 8))).isNull();
        assertThat(GeometryRules.check(g.withKv(-1, 8))).isNull();
        assertThat(g.withKv(4096, 8).slidingWindow()).isZero();
        assertThat(g.withKv(-1, 8).slidingWindowText()).isEqualTo("none (kv_window 4294967295 >= max_seq_len 2048)");
        assertThat(g.withKv(2048, 8).slidingWindowText()).isEqualTo("none (kv_window 2048 >= max_seq_len 2048)");
        assertThat(g.withKv(2047, 8).slidingWindow()).isEqualTo(2047);
        assertThat(g.withKv(0, 8).slidingWindowText()).isEqualTo("none (kv_window 0)");
        // kv_bits: int(config.kv_bits or 8) is never 0; any other width is upstream's
        assertThat(GeometryRules.check(g.withKv(256, 6))).isNull();
        assertThat(GeometryRules.check(g.withKv(256, 0)).problem()).contains("kv_bits 0 must be between 1 and 2^31-1");
        // Stack adds both injections of a repeated site: valid (the engines refuse it, see V2Notes)
        Geometry repeated = new Geometry(8192, 512, 8, 4, 27, 64, 2048, 512, 4, 8192, 128, 4, 4, 3,
                new int[] {2, 3}, new int[] {2, 2}, 100000f, 256, 8);
        assertThat(GeometryRules.check(repeated)).isNull();
        assertThat(V2Notes.geometry(repeated)).anyMatch(n -> n.contains("repeat layer 2"));
        // Without engram sites the engram fields are never read: upstream writes what the config holds
        Geometry noSites = new Geometry(8192, 512, 8, 4, 27, 64, 2048, 512, 4, 0, 256, 2, 4, 0,
                new int[] {0, 0}, new int[0], 100000f, 256, 8);
        assertThat(GeometryRules.check(noSites)).isNull();
        Geometry zeroOrder = new Geometry(8192, 512, 8, 4, 27, 64, 2048, 512, 4, 8192, 256, 2, 4, 3,
                new int[] {0, 3}, new int[] {2}, 100000f, 256, 8);
        assertThat(GeometryRules.check(zeroOrder).problem()).contains("engram order 0 must be between 1 and 2^31-1");
        Geometry zeroTheta = new Geometry(8192, 512, 8, 4, 27, 64, 2048, 512, 4, 8192, 128, 4, 4, 3,
                new int[] {2, 3}, new int[] {2, 15}, 0f, 256, 8);
        assertThat(GeometryRules.check(zeroTheta).problem()).contains("rope_theta 0.0 must be positive");
        Geometry badSubDim = new Geometry(8192, 512, 8, 4, 27, 64, 2048, 512, 4, 8192, 64, 4, 4, 3,
                new int[] {2, 3}, new int[] {2, 15}, 100000f, 256, 8);
        assertThat(GeometryRules.check(badSubDim).problem()).contains("engram_sub_dim 64 must be d_model / tables = 512 / 4 = 128");
    }
}
