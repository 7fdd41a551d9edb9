package dev.needlewb.converter.cact;

import dev.needlewb.converter.v2.GeometryRules;
import dev.needlewb.converter.v2.V2Header;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.sun.management.ThreadMXBean;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.golden.Golden;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Every size a {@code .cact} declares, set near 2^31 and 2^32 (and 2^63 for the u64 fields): the
 * reader refuses the file in one line or reads it, and either way allocates at most twice what
 * reading the intact file allocates (parse, summary, notes, non-finite scan, hash, tokenizer,
 * every tensor dequantized: about 63 MB for mini, mostly the dequantizer's work buffers), plus
 * 1 MiB. Measured with the thread's allocation counter, so a size that drove an allocation would
 * show even when the allocation succeeded; 2^31 of anything is far past the bound.
 */
class HeaderSizesTest {
    private static final long[] NEAR_2_31 = {0x3FFF_FFFFL, 0x4000_0000L, 0x7FFF_FF80L, 0x7FFF_FFFFL, 0x8000_0000L, 0x8000_0001L,
        0xFFFF_FFFFL};
    private static final long[] NEAR_2_63 = {0x1_0000_0000L, 0x7FFF_FFFF_FFFF_FFFFL, 0x8000_0000_0000_0000L, 0xFFFF_FFFF_FFFF_FFFFL};
    private static final Path NAME = Path.of("mini.cact");
    private static final ThreadMXBean THREAD = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final byte[] original;
    private long budget;

    HeaderSizesTest() throws Exception {
        original = Files.readAllBytes(Golden.mini("mini.cact"));
        // the first read builds what every later one shares (the 2-4 bit codebooks from 400,000
        // normal samples, class data): not the file's doing; the second is what reading mini costs
        budget = Long.MAX_VALUE;
        readAll(original, "mini");
        long before = THREAD.getCurrentThreadAllocatedBytes();
        readAll(original, "mini");
        budget = 2 * (THREAD.getCurrentThreadAllocatedBytes() - before) + (1 << 20);
    }

    /** Parses {@code bytes} and reads everything a command would; returns whether the file was accepted. */
    private boolean readAll(byte[] bytes, String what) {
        long before = THREAD.getCurrentThreadAllocatedBytes();
        boolean accepted = false;
        try {
            CactFile f = CactFile.parse(MemorySegment.ofArray(bytes), NAME);
            accepted = true;
            CactSummary.of(f);
            CactNotes.of(f);
            f.nonFinite();
            f.sha256();
            f.tokenizerVocab();
            for (TensorRecord r : f.tensors()) {
                if (r.dtype() != CactDType.RAW) f.dequantize(r.index());
            }
        } catch (FormatException e) {
            if (e.getMessage().indexOf('\n') >= 0) fail(what + ": multi-line message " + e.getMessage());
        } catch (Throwable t) {
            fail(what + " threw " + t, t);
        }
        long used = THREAD.getCurrentThreadAllocatedBytes() - before;
        if (used > budget) fail(what + " allocated " + used + " bytes, more than " + budget);
        return accepted;
    }

    @Test
    void everyHeaderFieldNear2To31() {
        Set<String> accepted = new TreeSet<>(), expected = new TreeSet<>();
        // every u32 after the tag, rope_theta (a float) aside
        for (int at = 4; at < V2Header.OFF_ROPE_THETA; at += 4) {
            for (long v : NEAR_2_31) {
                byte[] bytes = original.clone();
                ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(at, (int) v);
                if (readAll(bytes, "header byte " + at + " = " + v)) accepted.add(at + "=" + v);
            }
        }
        // no tensor has these sizes: upstream's struct takes any u32 kv_window; max_seq_len and
        // kv_bits up to 2^31 - 1 (the workbench's int)
        for (long v : NEAR_2_31) {
            expected.add(CactFormat.OFF_KV_WINDOW + "=" + v);
            if (v <= Integer.MAX_VALUE) {
                expected.add(V2Header.OFF_MAX_SEQ_LEN + "=" + v);
                expected.add(CactFormat.OFF_KV_BITS + "=" + v);
            }
        }
        assertThat(accepted).isEqualTo(expected);
    }

    @Test
    void maxSeqLenOf2To31Minus1IsReadWithoutAllocatingForIt() throws Exception {
        byte[] bytes = original.clone();
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(V2Header.OFF_MAX_SEQ_LEN, Integer.MAX_VALUE);
        assertThat(readAll(bytes, "max_seq_len 2^31-1")).isTrue();
        assertThat(CactFile.parse(MemorySegment.ofArray(bytes), NAME).geometry().maxSeqLen()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void everyDirectorySizeNear2To31And2To63() throws Exception {
        CactFile mini = CactFile.parse(MemorySegment.ofArray(original), NAME);
        int cases = 0;
        for (TensorRecord r : mini.tensors()) {
            long rec = V2Header.recordOffset(r.index());
            for (int field = 0; field < 4; field++) {
                for (long v : NEAR_2_31) {
                    cases++;
                    putLe(rec + CactFormat.REC_SHAPE + 4L * field, 4, v, r, "shape[" + field + "]");
                }
            }
            for (int off : new int[] {CactFormat.REC_GROUP, CactFormat.REC_BITS}) {
                for (long v : NEAR_2_31) {
                    cases++;
                    putLe(rec + off, 4, v, r, "group/bits");
                }
            }
            for (int off : new int[] {CactFormat.REC_OFFSET, CactFormat.REC_NBYTES}) {
                for (long v : NEAR_2_31) {
                    cases++;
                    putLe(rec + off, 8, v, r, "offset/nbytes");
                }
                for (long v : NEAR_2_63) {
                    cases++;
                    putLe(rec + off, 8, v, r, "offset/nbytes");
                }
            }
        }
        assertThat(cases).isEqualTo(mini.numTensors() * (6 * NEAR_2_31.length + 2 * (NEAR_2_31.length + NEAR_2_63.length)));
    }

    private void putLe(long at, int width, long v, TensorRecord r, String field) {
        byte[] bytes = original.clone();
        for (int i = 0; i < width; i++) bytes[(int) at + i] = (byte) (v >>> (8 * i));
        // no directory value near 2^31 describes mini's blobs: every one must be refused
        if (readAll(bytes, "tensor " + r.index() + " " + field + " = " + Long.toUnsignedString(v))) {
            fail("tensor " + r.index() + " (" + r.name() + ") " + field + " = " + Long.toUnsignedString(v) + " was accepted");
        }
    }

    @Test
    void widthsPastAnIntAreAWorkbenchLimitNamedAtTheirField() {
        Geometry g = Geometry.needle2();
        Geometry wide = new Geometry(g.vocab(), g.dModel(), 1 << 15, 1 << 15, g.numLayers(), 1 << 16, g.maxSeqLen(), g.hadaN(),
                g.mhcLanes(), g.engramSlots(), g.engramSubDim(), g.numEngramTables(), g.engramConvTaps(), g.engramConvDilation(),
                g.engramOrders(), g.engramSites(), g.ropeTheta(), g.kvWindow(), g.kvBits());
        HeaderViolation v = GeometryRules.check(wide);
        assertThat(v.headerOffset()).isEqualTo(V2Header.OFF_NUM_HEADS);
        assertThat(v.problem()).isEqualTo("num_heads x head_dim = 2147483648 exceeds 2^31-1 (the workbench indexes such a matrix with int)");
    }
}
