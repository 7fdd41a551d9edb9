package dev.needlewb.converter.names;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.converter.convert.WeightSources;
import dev.needlewb.converter.flax.FlaxCheckpointReader;
import dev.needlewb.converter.flax.FlaxConfig;
import dev.needlewb.converter.flax.FlaxParamShapes;
import dev.needlewb.converter.v2.V2Names;
import dev.needlewb.golden.Golden;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NameMapTest {

    @Test
    void everyFlaxLeafHasRowsWithItsShapeAndTorchKeysAreUnique() throws Exception {
        FlaxConfig config = FlaxCheckpointReader.read(Golden.mini("mini.ckpt.pkl")).flaxConfig();
        NameMap names = V2Names.of(config, FlaxParamShapes.Parts.ALL, 256);
        Set<String> keys = new HashSet<>();
        for (NameRow r : names.rows()) {
            if (r.torchKey() != null) assertThat(keys.add(r.torchKey())).as(r.torchKey()).isTrue();
        }
        for (var e : FlaxParamShapes.expected(config, FlaxParamShapes.Parts.ALL).entrySet()) {
            List<NameRow> rows = names.rows().stream().filter(r -> e.getKey().equals(r.flaxPath())).toList();
            assertThat(rows).as(e.getKey()).isNotEmpty();
            for (NameRow r : rows) assertThat(r.flaxShape()).as(r.name()).isEqualTo(e.getValue());
            // a stacked leaf is split into one row per layer; any other leaf has exactly one row
            assertThat(rows).hasSize(rows.getFirst().layer() >= 0 ? config.numLayers() : 1);
        }
        assertThat(names.byTorchKey("mtp.mtp_block.self_attn.q_proj.kernel").flaxPath()).isEqualTo("mtp_block/self_attn/q_proj/kernel");
        assertThat(names.byTorchKey("contrastive_head.log_temp").storage()).isEqualTo(Storage.CHECKPOINT_ONLY);
        assertThat(names.byTorchKey("layers.5.attn_gate").shape()).containsExactly(1);
    }

    @Test
    void cactOrderAndShapesAreTheFilesDirectory() throws Exception {
        try (CactFile f = CactFile.open(Golden.mini("mini.cact"))) {
            NameMap names = WeightSources.namesOf(f);
            List<NameRow> rows = names.cactRows();
            assertThat(rows).hasSize(f.numTensors());
            for (TensorRecord r : f.tensors()) {
                NameRow row = rows.get(r.index());
                assertThat(row.name()).isEqualTo(r.name());
                assertThat(Arrays.stream(row.shape()).asLongStream().toArray()).as(r.name()).isEqualTo(r.shape());
            }
        }
    }
}
