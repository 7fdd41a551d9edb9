package dev.needlewb.reference.v3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.reference.QuantWatch;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** heads.npz: {@code forward_confidence} (the raw logit) over the padding-masked hidden cells, raw and deq. */
class V3HeadsGoldenTest {
    /**
     * q0 at the forward tolerance. In quant mode the stack's A8/KV rounding and the CQ-4 fake quant
     * of the head's probes, queries and projection (float32-valued codebook and Walsh entries, as
     * upstream builds them) must make the same decisions as upstream: none sits within 1e-9 of a
     * boundary in these items, so the value is held to the same tolerance.
     */
    @ParameterizedTest
    @CsvSource({"s001,raw,q0", "s007,raw,q0", "s040,raw,q0", "s001,deq,q0", "s007,deq,q0", "s040,deq,q0",
        "s001,raw,q1", "s007,raw,q1", "s040,raw,q1", "s001,deq,q1", "s007,deq,q1", "s040,deq,q1",
        "s001,raw,q1kv0", "s007,raw,q1kv0", "s040,raw,q1kv0", "s001,deq,q1kv0", "s007,deq,q1kv0", "s040,deq,q1kv0"})
    void confidenceMatches(String seq, String p, String variant) throws WorkbenchException {
        QuantWatch watch = new QuantWatch();
        double got = V3Golden.model(p).confidence(V3Golden.tokens(seq), V3ForwardGoldenTest.deploy(variant).withWatch(watch));
        String item = "confidence." + seq + "." + p + "." + variant;
        double expected = V3Golden.array("heads.npz", item).asDoubles()[0];
        assertThat(watch.ties()).as("%s decisions within 1e-9 of a boundary", item).isEmpty();
        assertThat(Math.abs(got - expected) / Math.abs(expected)).as(item).isLessThan(V3ForwardGoldenTest.TOLERANCE);
    }
}
