package dev.needlewb.converter.cq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.io.NpyArray;
import dev.needlewb.golden.Golden;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Packing, unpacking and dequantization against upstream export._cq_pack / _cq_unpack (golden cq_roundtrip.npz). */
@Tag("width")
class CqPackingGoldenTest {
    private static final Path NPZ = Golden.common("cq_roundtrip.npz");
    private static final Path CODEBOOKS = Golden.common("codebooks.npz");

    @Test
    void packUnpackAndDequantizeMatchUpstream() throws Exception {
        for (String m : new String[] {"m1", "m2", "m3"}) {
            int[] wShape = Golden.array(NPZ, m + ".w").shape();
            for (String b : new String[] {"b2", "b3", "b4", "bt"}) {
                String key = m + "." + b;
                int recordBits = b.equals("bt") ? CqPacking.TERNARY_RECORD_BITS : b.charAt(1) - '0';
                NpyArray idx = Golden.array(NPZ, key + ".idx");
                byte[] packed = CqPacking.pack(idx.data(), recordBits);
                assertThat(packed).as(key).isEqualTo(Golden.array(NPZ, key + ".packed").data());

                int inPad = idx.shape()[1];
                byte[] unpacked = new byte[idx.data().length];
                byte[] row = new byte[inPad];
                int rowBytes = packed.length / idx.shape()[0];
                for (int r = 0; r < idx.shape()[0]; r++) {
                    assertThat(CqPacking.unpackRow(MemorySegment.ofArray(packed), (long) r * rowBytes, inPad, recordBits, row)).isEqualTo(-1);
                    System.arraycopy(row, 0, unpacked, r * inPad, inPad);
                }
                assertThat(unpacked).as(key).isEqualTo(idx.data());

                byte[] norms = Golden.array(NPZ, key + ".norms").data();
                byte[] blob = ByteBuffer.allocate(packed.length + norms.length).order(ByteOrder.LITTLE_ENDIAN).put(packed).put(norms).array();
                float[] cb = b.equals("bt") ? CqCodebooks.ternary(128) : Golden.array(CODEBOOKS, "cb." + b + ".g128").asFloats();
                float[] deq = CqDequantizer.dequantize(new CqBlob(wShape[0], wShape[1], 128, recordBits, MemorySegment.ofArray(blob)), cb);
                // bit for bit: same float32 operations in numpy's order (m1 has 2 groups per row, m2 2, m3 1)
                assertThat(deq).as(key).usingElementComparator(CqPackingGoldenTest::sameBits)
                        .containsExactly(Golden.array(NPZ, key + ".deq").asFloats());
            }
        }
    }

    @Test
    void ternaryCodebookIsUpstreams() {
        for (int g : new int[] {64, 128}) {
            assertThat(CqCodebooks.ternary(g)).containsExactly(Golden.array(CODEBOOKS, "cb.ternary.g" + g).asFloats());
        }
    }

    @Test
    void ternaryCrumbTwoIsReported() {
        byte[] out = new byte[8];
        // byte 0b00_10_00_11: crumbs 3, 0, 2, 0 -> position 2 is invalid
        int bad = CqPacking.unpackRow(MemorySegment.ofArray(new byte[] {0b0010_0011, 0}), 0, 8, CqPacking.TERNARY_RECORD_BITS, out);
        assertThat(bad).isEqualTo(2);
    }

    private static int sameBits(Float a, Float b) {
        return Integer.compare(Float.floatToRawIntBits(a), Float.floatToRawIntBits(b));
    }
}
