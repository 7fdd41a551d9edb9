package dev.needlewb.converter.flax;

import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.v2.Geometry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FlaxConfigTest {
    /** The released Needle 2 config (SPEC section 1); kv_window 256 is what its header carries. */
    private static Map<String, Object> needle2() {
        Map<String, Object> c = new HashMap<>();
        c.put("vocab_size", 8192L);
        c.put("d_model", 512L);
        c.put("num_heads", 8L);
        c.put("num_kv_heads", 4L);
        c.put("num_layers", 27L);
        c.put("max_seq_len", 2048L);
        c.put("engram_orders", List.of(2L, 3L));
        c.put("engram_layers", List.of(2L, 15L));
        c.put("engram_slots", 8192L);
        c.put("kv_window", 256L);
        return c;
    }

    @Test
    void releasedGeometry() throws WorkbenchException {
        FlaxConfig c = FlaxConfig.of(needle2());
        assertThat(c.attnDim()).isEqualTo(512);
        assertThat(c.hadaN()).isEqualTo(512);
        assertThat(c.engramHeadsPerOrder()).isEqualTo(2);
        assertThat(c.toGeometry(KvBudget.effectiveWindow(c))).isEqualTo(Geometry.needle2());
    }

    @Test
    void kvBudgetMatchesUpstreamArithmetic() throws WorkbenchException {
        FlaxConfig released = FlaxConfig.of(needle2());
        // 27*(2*256 + 2*8*4) + 2*(512 + 16*4) = 16704 bytes per position; 12058624 / 16704 = 721 -> 704.
        assertThat(KvBudget.bytesPerPosition(released)).isEqualTo(16704);
        assertThat(KvBudget.budgetWindow(released)).isEqualTo(704);
        // The released header's 256 comes from the config's kv_window, which is below the budget.
        assertThat(KvBudget.effectiveWindow(released)).isEqualTo(256);
        Map<String, Object> noWindow = needle2();
        noWindow.remove("kv_window");
        assertThat(KvBudget.effectiveWindow(FlaxConfig.of(noWindow))).isEqualTo(704);
        // Small models clamp to max_seq_len (mini: 256), tiny budgets to 160.
        Map<String, Object> huge = needle2();
        huge.put("num_layers", 400L);
        huge.remove("kv_window");
        assertThat(KvBudget.effectiveWindow(FlaxConfig.of(huge))).isEqualTo(160);
        // A context below the floor: min(704, 128) = 128, then max(160, 128) = 160, longer than the
        // context (valid: the window never binds); a configured kv_window below that still wins.
        Map<String, Object> shortContext = needle2();
        shortContext.put("max_seq_len", 128L);
        shortContext.remove("kv_window");
        assertThat(KvBudget.effectiveWindow(FlaxConfig.of(shortContext))).isEqualTo(160);
        shortContext.put("kv_window", 100L);
        assertThat(KvBudget.effectiveWindow(FlaxConfig.of(shortContext))).isEqualTo(100);
    }

    @Test
    void engramAndHadamardGeometryInGeneral() throws WorkbenchException {
        Map<String, Object> c = needle2();
        c.put("d_model", 768L);
        c.put("num_heads", 12L);
        c.put("num_kv_heads", 6L);
        c.put("engram_orders", List.of(2L, 3L, 4L));
        FlaxConfig f = FlaxConfig.of(c);
        // heads = max(1, 768 // (3*128)) = 2; sub_dim = 768 // 6 = 128; hada_n = 1024.
        assertThat(f.engramHeadsPerOrder()).isEqualTo(2);
        assertThat(f.engramTables()).isEqualTo(6);
        assertThat(f.engramSubDim()).isEqualTo(128);
        assertThat(f.engramConvDilation()).isEqualTo(4);
        assertThat(f.hadaN()).isEqualTo(1024);
        c.put("attn_dim", 384L);
        assertThat(FlaxConfig.of(c).headDim()).isEqualTo(32);
    }

    @Test
    void optionalPartsAddHeadsAndTheUnstackedMtpBranch() throws WorkbenchException {
        Map<String, Object> c = needle2();
        FlaxConfig f = FlaxConfig.of(c);
        var core = FlaxParamShapes.expected(f, FlaxParamShapes.Parts.CORE);
        var all = FlaxParamShapes.expected(f, FlaxParamShapes.Parts.ALL);
        // 1 embedding + 14 block + 1 final norm + 9 mHC + 2 sites * 4 engram params.
        assertThat(core).hasSize(33);
        // + 3 contrastive + 3 confidence + mtp_combine, a 14-param block and two norms.
        assertThat(all).hasSize(33 + 6 + 17);
        assertThat(all.get("mtp_combine/kernel")).containsExactly(1024, 512);
        assertThat(all.get("mtp_block/self_attn/k_proj/kernel")).containsExactly(512, 256);
        assertThat(all.get("mtp_block/attn_gate")).isEmpty();
        assertThat(all.get("stack/layers/block/self_attn/k_proj/kernel")).containsExactly(27, 512, 256);
        assertThat(all.get("engrams_1/embedding")).containsExactly(4, 8192, 128);
        assertThat(all.get("contrastive_head/proj/kernel")).containsExactly(2048, 128);
        assertThat(List.copyOf(all.keySet())).isSortedAccordingTo(FlaxParamShapes.TREE_ORDER);
    }

    @Test
    void invalidConfigsAreRefused() {
        Map<String, Object> c = needle2();
        c.put("engram_layers", List.of(2L, 27L));
        // every config error is BAD_CONFIG: which rule refused is in the wording only
        assertThat(refused(ErrorKind.BAD_CONFIG, () -> FlaxConfig.of(c))).hasMessage("checkpoint config: engram layer 27 is outside 0..26");
        c.put("engram_layers", List.of(2L, 15L));
        c.put("num_kv_heads", 3L);
        assertThat(refused(ErrorKind.BAD_CONFIG, () -> FlaxConfig.of(c))).hasMessageContaining("num_heads 8 is not a multiple of num_kv_heads 3");
        c.put("num_kv_heads", "4");
        assertThat(refused(ErrorKind.BAD_CONFIG, () -> FlaxConfig.of(c))).hasMessageContaining("num_kv_heads is 4, not an int");
    }

    /**
     * Config sizes near 2^31: each width the parameter shapes multiply into must fit an int, or the
     * config is refused in one line (before: 4 orders x 2^30 engram heads wrapped to 0 tables and
     * divided by zero; 65,536 lanes x 65,536 wide wrapped to an mHC input of 0).
     */
    @Test
    void sizesWhoseProductsPassAnIntAreRefused() throws WorkbenchException {
        Object[][] cases = {
            {"d_model", (long) Integer.MAX_VALUE, "8 x d_model"},
            {"mhc_lanes", 1L << 23, "mhc_lanes x d_model = 4294967296 exceeds 2^31-1"},
            {"mhc_lanes", 1L << 16, "mhc_lanes^2 x num_layers"},
            {"engram_heads", 1L << 30, "engram orders x engram_heads (the engram tables) = 2147483648 exceeds 2^31-1"},
            {"engram_slots", (long) Integer.MAX_VALUE, "engram tables x engram_slots"},
        };
        for (Object[] c : cases) {
            Map<String, Object> config = needle2();
            config.put((String) c[0], c[1]);
            if (c[0].equals("d_model")) config.put("attn_dim", 512L);
            assertThat(refused(ErrorKind.BAD_CONFIG, () -> FlaxConfig.of(config))).as(c[0] + " " + c[1]).hasMessageContaining((String) c[2]);
        }
        // at the edge: 8918^2 x 27 layers = 2,147,329,548 rows of phi_res fit, 8919 lanes do not
        Map<String, Object> edge = needle2();
        edge.put("mhc_lanes", 8918L);
        assertThat(FlaxParamShapes.expected(FlaxConfig.of(edge), FlaxParamShapes.Parts.CORE).get("stack/mhc_phi_res"))
                .containsExactly(27, 8918 * 512, 8918 * 8918);
        edge.put("mhc_lanes", 8919L);
        assertThat(refused(ErrorKind.BAD_CONFIG, () -> FlaxConfig.of(edge))).hasMessage("checkpoint config: mhc_lanes^2 x num_layers = 2147811147 exceeds 2^31-1");
    }
}
