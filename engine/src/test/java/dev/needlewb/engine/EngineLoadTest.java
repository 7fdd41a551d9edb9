package dev.needlewb.engine;

import static dev.needlewb.core.Refusals.malformed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.cact.CactFormat;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.engine.kernel.NumericMode;
import dev.needlewb.golden.Golden;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("width")
class EngineLoadTest {

    private static long heapAndDirectInUse() {
        for (int i = 0; i < 3; i++) System.gc();
        long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (b.getName().equals("direct")) used += b.getMemoryUsed();
        }
        return used;
    }

    @Test
    void loadingCopiesNoCqMatrix() throws Exception {
        Path cact = GoldenLogitsTest.cact();
        long fileBytes = Files.size(cact);
        long before = heapAndDirectInUse();
        try (Engine e = Engine.open(cact, EngineOptions.production().withThreads(1))) {
            long grown = heapAndDirectInUse() - before;
            long kvBudget = 6L * 256 * 2 * (64 + 2 * 4); // mini's int8 KV cache, see windowAndKvWidthComeFromTheHeader
            // The budget at load: the file size plus the KV budget. The views, widened FP16 vectors
            // and CQ group norms widened to float32 stay within it (the off-heap copy of the file is neither); a
            // dense float32 copy of the CQ matrices alone would be ~16x their packed bytes (~6 MB here).
            assertThat(grown).as("heap + direct growth after load").isLessThan(fileBytes + kvBudget);
            // The first int8 product of each 2-bit matrix regroups its codes for the block kernel: one
            // copy of packed codes (less than the file), so a step stays within twice the file plus
            // the session's KV cache, against ~16x the packed bytes for a dense copy.
            e.newSession().step(3);
            long stepped = heapAndDirectInUse() - before;
            assertThat(stepped).as("heap + direct growth after one int8 step").isGreaterThan(grown).isLessThan(2 * fileBytes + 2 * kvBudget);
            java.lang.ref.Reference.reachabilityFence(e);
        }
    }

    /**
     * A header's max_seq_len of 2^31 - 1 costs nothing until a session reaches those positions: the engine caps a
     * windowless session at what one array per layer holds, the caches start at 256 slots, and the steps run.
     */
    @Test
    void aContextOf2To31PositionsAllocatesForThePositionsUsed(@TempDir Path dir) throws Exception {
        byte[] bytes = Files.readAllBytes(GoldenLogitsTest.cact());
        java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(44, Integer.MAX_VALUE); // max_seq_len (u32 at 44)
        Path longContext = dir.resolve("long.cact");
        Files.write(longContext, bytes);
        int[] tokens = GoldenLogitsTest.tokens("s040");
        for (NumericMode mode : NumericMode.values()) {
            float[] want;
            try (Engine e = Engine.open(GoldenLogitsTest.cact(), new EngineOptions(mode, 1, 0, 0, EngineOptions.FROM_HEADER))) {
                want = e.newSession().prefill(tokens);
            }
            try (Engine e = Engine.open(longContext, new EngineOptions(mode, 1, 0, 0, EngineOptions.FROM_HEADER))) {
                assertThat(e.geometry().maxSeqLen()).isEqualTo(Integer.MAX_VALUE);
                assertThat(e.maxPositions()).isEqualTo(dev.needlewb.engine.cache.KvCache.positionLimit(64, 0, 0));
                Session s = e.newSession();
                long perSlot = mode == NumericMode.EXACT ? 2L * 64 * 4 : 2L * (64 + 2 * 4);
                assertThat(s.cache().bytes()).isEqualTo(6 * 256 * perSlot);
                // The same logits as with the header's own 256 positions: the context changes no arithmetic.
                assertThat(s.prefill(tokens)).containsExactly(want);
            }
        }
    }

    @Test
    void windowAndKvWidthComeFromTheHeader(@TempDir Path dir) throws Exception {
        try (Engine e = Engine.open(GoldenLogitsTest.cact(), EngineOptions.production().withThreads(1))) {
            // mini's kv_window 256 equals its max_seq_len: a window that never binds is none
            assertThat(e.window()).isZero();
            assertThat(e.windowText()).isEqualTo("none (kv_window 256 >= max_seq_len 256)");
            assertThat(e.maxPositions()).isEqualTo(256);
            Session s = e.newSession();
            // mini: 6 layers x 256 slots x (K and V) x (64 int8 + 2 float scales).
            assertThat(s.cache().bytes()).isEqualTo(6L * 256 * 2 * (64 + 2 * 4));
        }
        byte[] bytes = Files.readAllBytes(GoldenLogitsTest.cact());
        bytes[12] = 16; // kv_window (u32 at 12, was 256) 16 < max_seq_len: it binds
        bytes[13] = 0;
        Path windowed = dir.resolve("w16.cact");
        Files.write(windowed, bytes);
        try (Engine e = Engine.open(windowed, EngineOptions.production().withThreads(1))) {
            assertThat(e.window()).isEqualTo(16);
            assertThat(e.windowText()).isEqualTo("16 (header kv_window)");
            assertThat(e.newSession().cache().bytes()).isEqualTo(6L * 16 * 2 * (64 + 2 * 4));
        }
        try (Engine e = Engine.open(windowed, EngineOptions.production().withThreads(1).withWindow(0, 0))) {
            assertThat(e.windowText()).isEqualTo("none (set for this run)");
        }
    }

    @Test
    void threadCountDoesNotChangeTheLogits() throws Exception {
        int[] tokens = java.util.Arrays.copyOf(GoldenLogitsTest.tokens("s040"), 12);
        for (NumericMode mode : NumericMode.values()) {
            EngineOptions one = EngineOptions.exact(64).withMode(mode);
            float[] a, b;
            try (Engine e = Engine.open(GoldenLogitsTest.cact(), one)) {
                a = e.newSession().prefill(tokens);
            }
            try (Engine e = Engine.open(GoldenLogitsTest.cact(), one.withThreads(2))) {
                b = e.newSession().prefill(tokens);
            }
            // Rows are split on multiples of four, every row runs the same kernel: bit-identical.
            assertThat(b).as(mode.name()).containsExactly(a);
        }
    }

    @Test
    void tapsRecordTheReferenceNamesAndTheLaneMeansMatchGoldenHiddenStates() throws Exception {
        int[] tokens = GoldenLogitsTest.tokens("s040");
        double[] hidden = Golden.array(Golden.mini("hidden.npz"), "hidden_states.s040.deq").asDoubles();
        Map<String, List<float[]>> taps = new LinkedHashMap<>();
        TapSink sink = new TapSink() {
            @Override
            public boolean wants(String name) {
                return true;
            }

            @Override
            public void record(String name, int position, float[] values, int... shape) {
                taps.computeIfAbsent(name, k -> new ArrayList<>()).add(values);
                int n = 1;
                for (int s : shape) n *= s;
                assertThat(values).hasSize(n);
            }
        };
        float[] last;
        try (Engine e = Engine.open(GoldenLogitsTest.cact(), EngineOptions.exact(64))) {
            Session s = e.newSession(sink);
            last = s.prefill(tokens);
        }
        assertThat(taps.keySet()).contains("embed", "layer00.lanes_in", "layer00.hpre", "layer00.u", "layer01.engram_alpha",
                "layer04.engram_alpha", "layer05.attn.q", "layer05.attn.k", "layer05.attn.v", "layer05.attn.out",
                "layer05.block_out", "layer05.hpost", "layer05.sinkhorn", "layer05.lanes_out", "final.norm", "logits");
        assertThat(taps.keySet().stream().filter(n -> n.endsWith("engram_alpha"))).containsExactly("layer01.engram_alpha", "layer04.engram_alpha");
        assertThat(taps.get("logits").getLast()).containsExactly(last);
        for (int l = 0; l < 6; l++) {
            List<float[]> lanes = taps.get(String.format("layer%02d.lanes_out", l));
            for (int t = 0; t < tokens.length; t++) {
                double maxAbs = 0, worst = 0;
                for (int c = 0; c < 128; c++) maxAbs = Math.max(maxAbs, Math.abs(hidden[(l * 40 + t) * 128 + c]));
                for (int c = 0; c < 128; c++) {
                    double mean = 0;
                    for (int lane = 0; lane < 4; lane++) mean += lanes.get(t)[lane * 128 + c];
                    worst = Math.max(worst, Math.abs(mean / 4 - hidden[(l * 40 + t) * 128 + c]));
                }
                // float32 state against the float64 reference: same 2e-6 relative budget as the logits.
                assertThat(worst / maxAbs).as("layer %d pos %d", l, t).isLessThan(2e-6);
            }
        }
    }

    @Test
    void int8ModeRefusesAHeaderWithNarrowerKv(@TempDir Path dir) throws Exception {
        byte[] bytes = Files.readAllBytes(GoldenLogitsTest.cact());
        bytes[16] = 4;
        Path kv4 = dir.resolve("kv4.cact");
        Files.write(kv4, bytes);
        assertThat(malformed(ErrorKind.UNSUPPORTED, () -> Engine.open(kv4, EngineOptions.production())).offset()).isEqualTo(CactFormat.OFF_KV_BITS);
        try (CactFile f = CactFile.open(kv4); Engine e = Engine.load(f, EngineOptions.exact(8))) {
            assertThat(e.newSession().step(2)).hasSize(512);
        }
    }
}
