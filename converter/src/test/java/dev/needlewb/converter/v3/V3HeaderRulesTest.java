package dev.needlewb.converter.v3;

import static dev.needlewb.converter.v3.V3HeaderField.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactFormat;
import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.converter.names.BitsMap;
import dev.needlewb.converter.synth.SyntheticTokenizerBlob;
import dev.needlewb.converter.synth.SyntheticV3Cact;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.v3.V3Geometry;
import dev.needlewb.golden.Golden;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every rule of the v3 exporter's code ({@link V3GeometryRules}), broken one at a time in
 * upstream's own mini3.cact: refused as one {@link FormatException} at the byte of the field
 * concerned, citing upstream's field name. What upstream writes but is unusual is accepted with
 * a note; every CQ width a record may carry is read.
 */
class V3HeaderRulesTest {
    private static final Path MINI3 = Golden.v3mini("mini3.cact");
    private static byte[] original;

    @BeforeAll
    static void read() throws Exception {
        original = Files.readAllBytes(MINI3);
    }

    /** The field, the u32 written there, and a word the refusal names. */
    static List<Arguments> brokenRules() {
        return List.of(
                Arguments.of(VOCAB, 0, "vocab"),
                Arguments.of(OUT_VOCAB, 513, "out_vocab 513 exceeds vocab 512 (export.py:397-398)"),
                Arguments.of(D_MODEL, 0, "d_model"),
                Arguments.of(NUM_LAYERS, 65, "num_layers 65 exceeds the 64 layers"),
                Arguments.of(NUM_KV_HEADS, 3, "not a multiple of num_kv_heads 3"),
                Arguments.of(QK_HEAD_DIM, 31, "qk_head_dim 31 must be even"),
                Arguments.of(V_HEAD_DIM, 0, "v_head_dim"),
                Arguments.of(MAX_SEQ_LEN, 0, "max_seq_len"),
                Arguments.of(MHC_LANES, 0, "mhc_lanes"),
                Arguments.of(HADA_N, 256, "hada_n 256 must be 128"),
                Arguments.of(NUM_ENGRAM_ORDERS, 5, "at most 4 engram orders"),
                Arguments.of(NUM_ENGRAM_SITES, 17, "at most 16 engram sites"),
                Arguments.of(NUM_ENGRAM_TABLES, 3, "num_engram_tables 3 must be a positive multiple"),
                Arguments.of(ENGRAM_SUB_DIM, 32, "engram_sub_dim 32 must be d_model / tables"),
                Arguments.of(ENGRAM_CONV_TAPS, 3, "engram_conv_taps 3 must be 4"),
                Arguments.of(ENGRAM_CONV_DILATION, 2, "engram_conv_dilation 2 must be the largest engram order 3"),
                Arguments.of(ENGRAM_SLOTS, 0, "engram_slots"),
                Arguments.of(KV_BITS, 0, "kv_bits"),
                Arguments.of(QKV_CONV_TAPS, -1, "qkv_conv_taps 4294967295 exceeds 2^31-1"),
                Arguments.of(ROPE_THETA, Float.floatToIntBits(0f), "rope_theta 0.0 must be positive"),
                Arguments.of(ROPE_THETA, Float.floatToIntBits(Float.NaN), "rope_theta NaN must be positive"),
                Arguments.of(CODEBOOK_LEN, 27, "codebook_len 27 must be 28"));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("brokenRules")
    void aBrokenRuleIsRefusedAtItsField(V3HeaderField field, int value, String says) {
        byte[] bytes = withInt(field.offset(), value);
        assertThatThrownBy(() -> CactFile.parse(MemorySegment.ofArray(bytes), MINI3))
                .isInstanceOfSatisfying(FormatException.class, e -> {
                    assertThat(e.offset()).isEqualTo(field.offset());
                    assertThat(e.getMessage()).contains(says).startsWith(MINI3 + ": at byte " + field.offset() + ": ").doesNotContain("\n");
                });
    }

    @Test
    void siteAndOrderSlotsAreCheckedOneByOne() {
        // engram_layers (1, 3): a site at layer 4 of 4 layers; an unused slot not zero
        assertRefusedAt(withInt(ENGRAM_SITES.offset(1), 4), ENGRAM_SITES.offset(1), "engram site 4 is not a layer");
        assertRefusedAt(withInt(ENGRAM_SITES.offset(15), 1), ENGRAM_SITES.offset(15), "unused engram_sites[15] holds 1");
        assertRefusedAt(withInt(ENGRAM_ORDERS.offset(2), 4), ENGRAM_ORDERS.offset(2), "unused engram_orders[2] holds 4");
        assertRefusedAt(withInt(ENGRAM_ORDERS.offset(0), 0), ENGRAM_ORDERS.offset(0), "engram order 0");
        // no orders at all: the count says 0, so the first stored order is an unused slot that is not zero
        assertRefusedAt(withInt(NUM_ENGRAM_ORDERS.offset(), 0), ENGRAM_ORDERS.offset(0), "unused engram_orders[0] holds 2");
        byte[] none = withInt(NUM_ENGRAM_ORDERS.offset(), 0);
        ByteBuffer.wrap(none).order(ByteOrder.LITTLE_ENDIAN).putInt(ENGRAM_ORDERS.offset(0), 0).putInt(ENGRAM_ORDERS.offset(1), 0);
        assertRefusedAt(none, NUM_ENGRAM_ORDERS.offset(), "num_engram_orders 0 must be 1..4");
    }

    @Test
    void aDirectoryOfTheWrongLayoutIsRefusedAtItsTensor() throws Exception {
        CactFile clean = CactFile.parse(MemorySegment.ofArray(original), MINI3);
        // no conv taps: layer 0's q_taps position now holds what the header says is q_norm
        FormatException noTaps = parse(withInt(QKV_CONV_TAPS.offset(), 0));
        assertThat(noTaps.getMessage()).doesNotContain("\n");
        assertThat(noTaps.tensorIndex()).isNotEqualTo(FormatException.NO_TENSOR);
        // the manifest names the router (7 tensors), the file holds the confidence head's 6
        TensorRecord manifest = clean.tensor("heads.manifest");
        byte[] router = original.clone();
        ByteBuffer.wrap(router).order(ByteOrder.LITTLE_ENDIAN).putShort((int) manifest.offset(), Float.floatToFloat16(3f));
        FormatException e = parse(router);
        assertThat(e.tensorName()).isEqualTo("heads.manifest");
        assertThat(e.getMessage()).contains("write 8 tensors, but num_tensors leaves 7");
        // a blob one alignment step late
        long rec = CactFormat.recordOffset(V3Header.HEADER_BYTES, 5) + CactFormat.REC_OFFSET;
        byte[] late = original.clone();
        ByteBuffer.wrap(late).order(ByteOrder.LITTLE_ENDIAN).putLong((int) rec, clean.tensor(5).offset() + 64);
        assertThat(parse(late).tensorName()).isEqualTo("layer00.q_taps");
        // two records swapped: k_proj where q_proj belongs has the wrong shape
        byte[] swapped = original.clone();
        int q = (int) CactFormat.recordOffset(V3Header.HEADER_BYTES, 2);
        int k = (int) CactFormat.recordOffset(V3Header.HEADER_BYTES, 3);
        System.arraycopy(original, k, swapped, q, CactFormat.RECORD_BYTES);
        System.arraycopy(original, q, swapped, k, CactFormat.RECORD_BYTES);
        assertThat(parse(swapped).tensorName()).isEqualTo("layer00.q_proj");
    }

    @Test
    void aPermutationThatRepeatsAnIndexIsRefusedAtItsFloat() throws Exception {
        CactFile clean = CactFile.parse(MemorySegment.ofArray(original), MINI3);
        TensorRecord p2 = clean.tensor("hada_p2");
        byte[] bytes = original.clone();
        ByteBuffer le = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        le.putFloat((int) p2.offset() + 4 * 7, le.getFloat((int) p2.offset()));
        FormatException e = parse(bytes);
        assertThat(e.tensorName()).isEqualTo("hada_p2");
        assertThat(e.offset()).isEqualTo(p2.offset() + 4 * 7);
        le.putFloat((int) p2.offset() + 4 * 7, 7.5f);
        assertThat(parse(bytes).getMessage()).contains("is not an integer of 0..127");
    }

    @Test
    void theWriterRefusesAPermutationTheReaderWouldRefuse() throws Exception {
        CactFile clean = CactFile.parse(MemorySegment.ofArray(original), MINI3);
        var model = dev.needlewb.converter.cact.CactModel.from(clean);
        List<dev.needlewb.converter.cact.CactTensor> tensors = new java.util.ArrayList<>(model.tensors());
        int at = clean.tensor("hada_p1").index();
        dev.needlewb.converter.cact.CactTensor p1 = tensors.get(at);
        byte[] data = p1.data().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN).putFloat(12, 1e9f);
        tensors.set(at, dev.needlewb.converter.cact.CactTensor.of("hada_p1", p1.dtype(), p1.shape(), 0, 0, data));
        var edited = new dev.needlewb.converter.cact.CactModel(model.geometry(), model.codebook(), tensors);
        assertThatThrownBy(() -> CactWriter.toBytes(edited)).hasMessage("cannot write .cact: tensor hada_p1: value 1.0E9 at position 3"
                + " is not an integer of 0..127: hada_p1/hada_p2 must be permutations (export.py:290-297)");
    }

    @Test
    void whatUpstreamWritesButIsUnusualIsAcceptedWithANote() throws Exception {
        // a global layer past the stack (export.py encodes it, read_export drops it), kv_bits 4, no window
        byte[] bytes = withInt(GLOBAL_MASK_HI.offset(), 1);
        ByteBuffer le = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        le.putInt(KV_BITS.offset(), 4).putInt(KV_WINDOW.offset(), 0);
        CactFile f = CactFile.parse(MemorySegment.ofArray(bytes), MINI3);
        V3Geometry g = V3Geometry.of(f.geometry());
        assertThat(g.globalLayers()).containsExactly(2);
        assertThat(f.generation().notes(f)).hasSize(3).anyMatch(n -> n.startsWith("global_mask sets bits at or above num_layers 4"))
                .anyMatch(n -> n.startsWith("kv_bits 4")).anyMatch(n -> n.startsWith("kv_window 0"));
        // an unedited model of this header rewrites byte for byte
        assertThat(CactWriter.toBytes(dev.needlewb.converter.cact.CactModel.from(f))).isEqualTo(bytes);
    }

    @Test
    void everyCqWidthARecordMayCarryIsRead() throws Exception {
        byte[] tokenizer = SyntheticTokenizerBlob.of(512, 6000);
        for (String scheme : List.of("2", "3", "4", "1.58", "embedding=4,mhc=4,default=2")) {
            var model = SyntheticV3Cact.build(V3Geometry.mini(), 5, BitsMap.parse(scheme),
                    List.of(new V3HeadShape(V3ProbeHead.CONFIDENCE, 4, 4, 1)), tokenizer);
            CactFile f = CactFile.parse(MemorySegment.ofArray(CactWriter.toBytes(model)), null);
            assertThat(f.tensor("layer01.v_proj").bits()).as(scheme).isEqualTo(BitsMap.parse(scheme).recordBitsFor("layer01.v_proj"));
            for (TensorRecord r : f.tensors()) {
                if (r.dtype() != dev.needlewb.converter.cact.CactDType.RAW) assertThat(f.dequantize(r.index())).hasSize((int) r.elementCount());
            }
        }
    }

    private static byte[] withInt(int offset, int value) {
        byte[] bytes = original.clone();
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(offset, value);
        return bytes;
    }

    private static void assertRefusedAt(byte[] bytes, int offset, String says) {
        FormatException e = parse(bytes);
        assertThat(e.offset()).isEqualTo(offset);
        assertThat(e.getMessage()).contains(says);
    }

    private static FormatException parse(byte[] bytes) {
        try {
            CactFile.parse(MemorySegment.ofArray(bytes), MINI3);
        } catch (FormatException e) {
            return e;
        }
        throw new AssertionError("accepted");
    }
}
