package dev.needlewb.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.engine.kernel.NumericMode;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Session's promise: once the JIT has compiled the step, a step allocates nothing (taps off, one
 * thread, so all the work is on the measured thread). This also catches a vector kernel that C2 does
 * not compile to SIMD: the Vector API's Java fallback boxes every vector it makes. Before C2 has the
 * step, the interpreter and C1 allocate, so the test runs windows of steps until one allocates nothing
 * and fails if none does within the time budget. It is not part of `mvn verify` (tag "allocation", excluded in
 * the parent pom): at 256 bits C2 sometimes keeps the step allocating past the budget, so the claim does not
 * hold reliably yet. Run it with {@code -Dgroups=allocation -Dwb.excluded.groups=none}.
 */
@Tag("allocation")
class SessionAllocationTest {
    private static final int WINDOW = 64;
    private static final long BUDGET_NANOS = 300_000_000_000L;

    @ParameterizedTest
    @EnumSource(NumericMode.class)
    void aCompiledStepAllocatesNothing(NumericMode mode) throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        int[] prompt = GoldenLogitsTest.tokens("s040");
        long last = -1;
        try (Engine e = Engine.open(GoldenLogitsTest.cact(), new EngineOptions(mode, 1, 16, 3, WINDOW + prompt.length))) {
            for (long start = System.nanoTime(); System.nanoTime() - start < BUDGET_NANOS; ) {
                Session s = e.newSession();
                for (int t : prompt) s.step(t);
                long before = threads.getCurrentThreadAllocatedBytes();
                int next = 7;
                for (int i = 0; i < WINDOW; i++) next = argmaxPlusOne(s.step(next));
                last = threads.getCurrentThreadAllocatedBytes() - before;
                if (last == 0) return;
            }
        }
        assertThat(last).as("bytes allocated by %d compiled steps (%s)", WINDOW, mode).isZero();
    }

    private static int argmaxPlusOne(float[] logits) {
        int best = 0;
        for (int i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
        return (best + 1) % logits.length;
    }
}
