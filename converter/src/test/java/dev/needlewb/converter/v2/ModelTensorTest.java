package dev.needlewb.converter.v2;

import static dev.needlewb.core.Refusals.malformed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.converter.convert.StateDict;
import dev.needlewb.converter.convert.WeightSources;
import dev.needlewb.converter.names.NameMap;
import dev.needlewb.converter.names.Transform;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.torch.GoldenTorchStateDict;
import dev.needlewb.golden.Golden;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The table expanded for the golden mini geometry against upstream's own files, which it must name exactly. */
class ModelTensorTest {
    private static final List<ProbeHead> BOTH = List.of(ProbeHead.CONTRASTIVE, ProbeHead.CONFIDENCE);

    @Test
    void expandingForTheGoldenGeometryGivesTheCactDirectoryInOrderWithItsShapes() throws Exception {
        JsonNode header = Golden.json(Golden.mini("cact_header.json")).get("tensors");
        List<TensorName> names = ModelTensor.expand(Geometry.mini(), BOTH, true);
        assertThat(names).extracting(TensorName::name)
                .containsExactlyElementsOf(() -> header.valueStream().map(t -> t.get("name").asText()).iterator());
        try (CactFile f = CactFile.open(Golden.mini("mini.cact"))) {
            for (TensorName t : names) {
                HeadShape head = t.head() == null ? null : new HeadShape(t.head(),
                        (int) f.tensor(ModelTensor.HEAD_PROBES.at(t.head()).name()).dim(0),
                        (int) f.tensor(ModelTensor.HEAD_PROJ.at(t.head()).name()).dim(0));
                TensorRecord r = f.tensor(t.name());
                assertThat(t.tensor().shape(Geometry.of(f.geometry()), BOTH.size(), head)).as(t.name()).isEqualTo(r.shape());
            }
        }
    }

    @Test
    void torchKeysAreTheGoldenStateDictsAndFlaxPathsTheGoldenTreesLeaves() {
        List<TensorName> names = ModelTensor.expand(Geometry.mini(), BOTH, true);
        assertThat(keys(names, TensorName::torchKey)).isEqualTo(new TreeSet<>(GoldenTorchStateDict.mini().keySet()));
        // deq_params.npz is upstream's Flax tree rebuilt from mini.cact; log_temp is checkpoint-only, never in a .cact
        Set<String> leaves = new TreeSet<>(Golden.npz(Golden.mini("deq_params.npz")).keySet());
        leaves.remove("contrastive_head/log_temp");
        assertThat(keys(names, TensorName::flaxPath)).isEqualTo(leaves);
        // a stacked leaf is named by every layer, each taking its own slice
        List<Integer> slices = names.stream().filter(t -> t.tensor() == ModelTensor.Q_PROJ).map(TensorName::layer).toList();
        assertThat(slices).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(ModelTensor.HEAD_BIAS.at(ProbeHead.CONTRASTIVE).flaxPath()).as("ContrastiveHead's Dense has no bias").isNull();
        assertThat(ModelTensor.HEAD_BIAS.at(ProbeHead.CONTRASTIVE).transform()).isEqualTo(Transform.ZERO_FILL);
        assertThat(ModelTensor.HEAD_BIAS.at(ProbeHead.CONFIDENCE).flaxPath()).isEqualTo("confidence_head/proj/bias");
    }

    @Test
    void optionalTensorsFollowTheGeometryTheHeadsAndTheTokenizer() {
        Geometry g = Geometry.needle2();
        List<TensorName> bare = ModelTensor.expand(g, List.of(), false);
        assertThat(bare.getLast().name()).isEqualTo("final_norm");
        assertThat(bare).filteredOn(t -> t.tensor().scope() == ModelTensor.Scope.PER_SITE).extracting(TensorName::name)
                .containsExactly("engram0.tables", "engram0.key_proj", "engram0.value_proj", "engram0.taps",
                        "engram1.tables", "engram1.key_proj", "engram1.value_proj", "engram1.taps");
        List<TensorName> one = ModelTensor.expand(g, List.of(ProbeHead.CONFIDENCE), true);
        assertThat(one.subList(bare.size(), one.size())).extracting(TensorName::name)
                .containsExactly("heads.manifest", "confidence_head.probes", "confidence_head.proj", "confidence_head.bias", "tokenizer");
        assertThat(ModelTensor.D3.at(26).name()).isEqualTo("layer26.d3");
        assertThat(ModelTensor.D3.at(3).torchKey()).isEqualTo("layers.3.mlp.d3");
        for (int heads = 0; heads <= 2; heads++) {
            for (boolean tokenizer : new boolean[] {false, true}) {
                assertThat(ModelTensor.count(g, heads, tokenizer)).isEqualTo(ModelTensor.expand(g, BOTH.subList(0, heads), tokenizer).size());
            }
        }
        // upstream export.py: "per layer [norm_in, q_proj, k_proj, v_proj, q_norm, k_norm, gate_proj, out_proj,
        // post_norm, attn_gate, pre_hada, d1, d2, d3]"
        assertThat(bare.stream().filter(t -> t.layer() == 0).map(TensorName::name).toList()).containsExactly(
                "layer00.norm_in", "layer00.q_proj", "layer00.k_proj", "layer00.v_proj", "layer00.q_norm", "layer00.k_norm",
                "layer00.gate_proj", "layer00.out_proj", "layer00.post_norm", "layer00.attn_gate", "layer00.pre_hada",
                "layer00.d1", "layer00.d2", "layer00.d3");
    }

    @Test
    void aRowAskedForTheWrongPlaceAndANameOutsideTheTableAreRefused() throws Exception {
        assertThatThrownBy(() -> ModelTensor.Q_PROJ.single()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Q_PROJ repeats PER_LAYER");
        assertThatThrownBy(() -> ModelTensor.EMBEDDING.at(0)).hasMessage("EMBEDDING is not per layer or engram site");
        assertThatThrownBy(() -> ModelTensor.NORM_IN.at(ProbeHead.CONFIDENCE)).hasMessage("NORM_IN is not per probe head");
        NameMap names;
        try (CactFile f = CactFile.open(Golden.mini("mini.cact"))) {
            names = WeightSources.namesOf(f);
        }
        Map<String, NpyArray> dict = new LinkedHashMap<>(GoldenTorchStateDict.mini());
        WeightSources.fromStateDict(StateDict.of(Path.of("mini.pt"), dict), names);
        dict.put("layers.6.attn.q_proj.weight", dict.get("layers.5.attn.q_proj.weight"));
        assertThat(malformed(ErrorKind.UNKNOWN_KEY, () -> WeightSources.fromStateDict(StateDict.of(Path.of("mini.pt"), dict), names)).tensorName())
                .isEqualTo("layers.6.attn.q_proj.weight");
    }

    private static Set<String> keys(List<TensorName> names, java.util.function.Function<TensorName, String> key) {
        List<String> all = new ArrayList<>();
        for (TensorName t : names) all.add(key.apply(t));
        return all.stream().filter(Objects::nonNull).collect(Collectors.toCollection(TreeSet::new));
    }
}
