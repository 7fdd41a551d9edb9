package dev.needlewb.converter.names;

import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import org.junit.jupiter.api.Test;

/** Upstream's parse_bits_map / _bits_for / canonical_tensor_name rules on .cact names. */
class BitsMapTest {

    @Test
    void releasedSchemeGivesCq4ToEmbeddingAndMhcOnly() throws WorkbenchException {
        BitsMap m = BitsMap.parse("embedding=4,mhc=4,default=2");
        assertThat(m.recordBitsFor("embedding")).isEqualTo(4);
        assertThat(m.recordBitsFor("mhc_phi_pre")).isEqualTo(4);
        assertThat(m.recordBitsFor("mhc_phi_res")).isEqualTo(4);
        assertThat(m.recordBitsFor("layer03.q_proj")).isEqualTo(2);
        assertThat(m.recordBitsFor("engram0.tables")).isEqualTo(2);
        assertThat(m.recordBitsFor("engram1.key_proj")).isEqualTo(2);
    }

    @Test
    void keysAreCanonicalisedAndTheLongestPrefixWins() throws WorkbenchException {
        BitsMap m = BitsMap.parse("attn=3, stack/layers/block/self_attn/q_proj/kernel=4, engrams_0/embedding=4, default=2");
        assertThat(m.recordBitsFor("layer07.q_proj")).isEqualTo(4);
        assertThat(m.recordBitsFor("layer07.k_proj")).isEqualTo(3);
        assertThat(m.recordBitsFor("engram0.tables")).isEqualTo(4);
        assertThat(m.recordBitsFor("engram1.tables")).isEqualTo(2);
        assertThat(m.recordBitsFor("embedding")).isEqualTo(2);
    }

    @Test
    void oneWidthAppliesEverywhereAndTernaryIsRecordBitsFive() throws WorkbenchException {
        assertThat(BitsMap.parse("3").recordBitsFor("layer00.out_proj")).isEqualTo(3);
        assertThat(BitsMap.parse("default=1.58").recordBitsFor("embedding")).isEqualTo(5);
    }

    @Test
    void badSpecsAreRefused() {
        // all are BAD_OPTION: which rule of the spec refused is in the wording only
        assertThat(refused(ErrorKind.BAD_OPTION, () -> BitsMap.parse("embedding=4"))).hasMessageContaining("needs a default");
        assertThat(refused(ErrorKind.BAD_OPTION, () -> BitsMap.parse("default=5"))).hasMessageContaining("unsupported width 5");
        assertThat(refused(ErrorKind.BAD_OPTION, () -> BitsMap.parse("default=two"))).hasMessageContaining("'two' is not a width");
        assertThat(refused(ErrorKind.BAD_OPTION, () -> BitsMap.parse("embedding,default=2"))).hasMessageContaining("not key=bits");
    }
}
