package dev.needlewb.converter.v3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactSummary;
import dev.needlewb.converter.convert.ConvertRequest;
import dev.needlewb.converter.convert.Converter;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.cq.CqBlob;
import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.converter.flax.FlaxCheckpointReader;
import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.v3.V3Geometry;
import dev.needlewb.converter.synth.SyntheticSentencePiece;
import dev.needlewb.core.tokenizer.PieceType;
import dev.needlewb.core.tokenizer.SpecialTokens;
import dev.needlewb.core.tokenizer.TokenizerVocab;
import dev.needlewb.golden.CqAudit;
import dev.needlewb.golden.Golden;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upstream's v3 checkpoint (golden v3mini/mini3.ckpt.pkl, written by checkpoints.write_checkpoint)
 * to .cact as upstream's export.write_export(bits=4, group 128, kv_window=effective_kv_window)
 * wrote golden mini3.cact: the same bytes; the shipped mixed scheme through --bits-map; bad
 * checkpoints refused by parameter path.
 */
class V3CheckpointConvertTest {
    private static final Path CKPT = Golden.v3mini("mini3.ckpt.pkl");

    private static ConvertRequest request(Path out, String bits, Path tokenizer) {
        return new ConvertRequest(CKPT, out, bits, null, null, tokenizer, null, null, false, null, NonFinitePolicy.REFUSE);
    }

    @Test
    void upstreamsCheckpointConvertsToUpstreamsBytes(@TempDir Path dir) throws Exception {
        // the tokenizer from the SentencePiece model (the blob _tokenizer_blob builds) and from the .cact (copied as build_main does)
        for (Path tokenizer : new Path[] {Golden.v3mini("tok512.model"), Golden.v3mini("mini3.cact")}) {
            Path out = dir.resolve("mini3-" + tokenizer.getFileName() + ".cact");
            Converter.run(request(out, null, tokenizer), (done, total) -> {});
            assertThat(Files.readAllBytes(out)).as(tokenizer.toString()).isEqualTo(Files.readAllBytes(Golden.v3mini("mini3.cact")));
        }
    }

    @Test
    void theShippedSchemeThroughTheBitsMap(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("mixed.cact");
        Converter.run(request(out, "embedding=4,mhc=4,default=2", Golden.v3mini("tok512.model")), (done, total) -> {});
        try (CactFile f = CactFile.open(out)) {
            assertThat(f.tensor("embedding").bits()).isEqualTo(4);
            assertThat(f.tensor("mhc_phi_res").bits()).isEqualTo(4);
            assertThat(f.tensor("layer02.gate_proj").bits()).isEqualTo(2);
            assertThat(f.tensor("engram1.tables").bits()).isEqualTo(2);
            // the head's matrices at HEAD_BITS whatever the map (export.py:326-328)
            assertThat(f.tensor("confidence_head.probes").bits()).isEqualTo(4);
            CactSummary s = CactSummary.of(f);
            assertThat(s.get(CactSummary.Category.CQ4).tensors()).isEqualTo(7);
            assertThat(s.get(CactSummary.Category.CQ2).tensors()).isEqualTo(26);
        }
    }

    /**
     * The pass the Needle 2 export gets (CactExporterGoldenTest): every non-CQ blob equal to
     * upstream's, every CQ code and float16 norm equal to upstream's and to the exact decision,
     * or certified by the oracle as a float32 boundary case; the mixed scheme's 2-bit codes held
     * to the exact decision too (upstream's v3 exporter writes no 2-bit file to compare with).
     */
    @Test
    void everyCqDecisionOfTheExportIsUpstreamsAndTheExactOne(@TempDir Path dir) throws Exception {
        ModelWeights source = V3Checkpoints.weights(CKPT, FlaxCheckpointReader.readStructure(CKPT), false, NonFinitePolicy.REFUSE);
        Path cq4 = dir.resolve("cq4.cact"), mixed = dir.resolve("mixed.cact");
        Converter.run(request(cq4, null, Golden.v3mini("tok512.model")), (done, total) -> {});
        Converter.run(request(mixed, "embedding=4,mhc=4,default=2", Golden.v3mini("tok512.model")), (done, total) -> {});
        try (CactFile upstream = CactFile.open(Golden.v3mini("mini3.cact")); CactFile ours = CactFile.open(cq4); CactFile two = CactFile.open(mixed)) {
            CqAudit.Result r = CqAudit.ofExport(upstream, ours, source).result();
            System.out.printf("mini3 export: %d CQ4 codes in %d groups held to the exact decision, %d groups near a boundary decided by"
                    + " the oracle; %d differences (from upstream or the exact decision), all certified %s%n",
                    r.codes(), r.groups(), r.screened(), r.certified().size(), r.certified());
            assertThat(r.uncertified()).isEmpty();
            long padded = 0;
            for (var t : ours.tensors()) {
                if (t.dtype() == CactDType.CQ) padded += t.shape()[0] * CqBlob.paddedCols(t.shape()[1], t.group());
            }
            assertThat(r.codes()).isEqualTo(padded);

            CqAudit mixedAudit = new CqAudit();
            for (var t : two.tensors()) {
                if (t.dtype() != CactDType.CQ || t.bits() != 2) continue;
                CqBlob blob = two.cqBlob(t.index());
                mixedAudit.addExact(t.name(), (int) blob.rows(), (int) blob.cols(), blob.group(), CqAudit.codes(blob),
                        source.tensors().get(t.name()).asFloats(), two.codebookFor(2, blob.group()));
            }
            CqAudit.Result m = mixedAudit.result();
            System.out.printf("mini3 mixed export: %d CQ2 codes, %d groups decided by the oracle, %d certified differences %s%n",
                    m.codes(), m.screened(), m.certified().size(), m.certified());
            assertThat(m.codes()).isPositive();
            assertThat(m.uncertified()).isEmpty();
        }
    }

    /**
     * The writer follows each generation's _tokenizer_blob for one SentencePiece model holding
     * Needle 3's sixteen markers (ids 4..19) and add_dummy_prefix on but no U+2581 piece (so
     * Encode("a") starts with a byte piece): Needle 3 marks the sixteen and writes add_dummy_prefix
     * 0, Needle 2 marks its ten and writes 1.
     */
    @Test
    void theTokenizerBlobIsWhatEachGenerationsExporterWrites(@TempDir Path dir) throws Exception {
        Path model = dir.resolve("tok16.model");
        Files.write(model, SyntheticSentencePiece.of(512, SpecialTokens.NEEDLE3_CHAT_MARKERS, true));
        Path v3 = dir.resolve("v3.cact"), v2 = dir.resolve("v2.cact");
        Converter.run(request(v3, null, model), (done, total) -> {});
        Converter.run(new ConvertRequest(Golden.mini("mini.ckpt.pkl"), v2, null, null, null, model, null, null, false, null, NonFinitePolicy.REFUSE),
                (done, total) -> {});
        for (Path file : List.of(v3, v2)) {
            try (CactFile f = CactFile.open(file)) {
                TokenizerVocab vocab = TokenizerVocab.parse(f.tokenizerBlob(), file, 0, 0);
                int markers = file == v3 ? 16 : 10;
                for (int id = 4; id < 20; id++) {
                    assertThat(vocab.type(id)).as("%s piece %d", file.getFileName(), id).isEqualTo(id < 4 + markers ? PieceType.USER_DEFINED : PieceType.NORMAL);
                }
                assertThat(vocab.addDummyPrefix()).as(file.getFileName().toString()).isEqualTo(file == v2);
            }
        }
    }

    @Test
    void theHeaderIsWhatPackCactComputesFromTheConfig() throws Exception {
        V3Config c = V3Config.fromSaved(FlaxCheckpointReader.readStructure(CKPT).config());
        assertThat(V3KvBudget.effectiveWindow(c)).isEqualTo(256);
        assertThat(V3Checkpoints.geometry(c, 256)).isEqualTo(V3Geometry.mini());
        // the released config: per layer 252 B, per site 864 B, the 16 local layers and 5 sites cost
        // 8,552,448 B of the window 1024, leaving (12,058,624 - 8,552,448) / (4 x 252) = 3478 -> 3456 for the global ones
        assertThat(V3KvBudget.budgetWindow(V3Config.released())).isEqualTo(3456);
        // global layers past the stack: _pack_cact writes bits 0..63 of the Python int (export.py:411-413, 420), so 64 and
        // 70 set nothing (a 64-bit shift would wrap them onto layers 0 and 6) and 9 sets a bit read_export drops
        V3Config past = V3Config.fromSaved(java.util.Map.of("num_layers", 4L, "sliding_window", 8L, "global_layers", List.of(1L, 9L, 64L, 70L),
                "qk_head_dim", 0L));
        assertThat(V3Checkpoints.geometry(past, 256).globalMask()).isEqualTo(1L << 1 | 1L << 9);
        assertThat(V3Checkpoints.geometry(past, 256).globalLayers()).containsExactly(1);
    }

    @Test
    void aBadCheckpointIsRefusedByParameterPath(@TempDir Path dir) throws Exception {
        FlaxCheckpoint golden = FlaxCheckpointReader.readStructure(CKPT);
        SequencedMap<String, NpyArray> missing = new LinkedHashMap<>(golden.params());
        missing.remove("stack/layers/block/hadamard_mlp/cond_v");
        assertRefused(dir, golden.withParams(missing), "param stack/layers/block/hadamard_mlp/cond_v missing (layer00.cond_v needs it with shape [4, 128, 8])");
        SequencedMap<String, NpyArray> misshapen = new LinkedHashMap<>(golden.params());
        NpyArray taps = misshapen.get("stack/layers/block/self_attn/v_taps");
        misshapen.put("stack/layers/block/self_attn/v_taps", new NpyArray(taps.descr(), new int[] {4, 96, 3}, taps.data()));
        assertRefused(dir, golden.withParams(misshapen), "param stack/layers/block/self_attn/v_taps has shape [4, 96, 3], the config needs [4, 3, 96]");
        SequencedMap<String, NpyArray> extra = new LinkedHashMap<>(golden.params());
        extra.put("ab_scales/x", taps);
        assertRefused(dir, golden.withParams(extra), "param ab_scales/x is not a parameter upstream's export writes (extra params need --allow-extra-params)");
    }

    private static void assertRefused(Path dir, FlaxCheckpoint ckpt, String says) {
        assertThatThrownBy(() -> V3Checkpoints.weights(CKPT, ckpt, false, NonFinitePolicy.REFUSE))
                .isInstanceOfSatisfying(FormatException.class, e -> assertThat(e.getMessage()).isEqualTo(CKPT + ": " + says).doesNotContain("\n"));
    }
}
