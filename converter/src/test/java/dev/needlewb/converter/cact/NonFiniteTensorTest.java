package dev.needlewb.converter.cact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.core.FormatException;
import dev.needlewb.golden.Golden;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every float the mini .cact stores, by kind: each FP16 tensor's values and each CQ matrix's
 * group norms in turn get a NaN, +inf or -inf (in rotation) at their first, middle or last
 * element; opening refuses the file naming that tensor and that float's byte offset, and
 * {@link CactFile#nonFinite} finds exactly it. The same for every FP32 tensor of a copy storing
 * them FP32. The bit patterns tried cover the exponent-all-ones class: quiet and signalling NaN,
 * negative NaN, both infinities.
 */
class NonFiniteTensorTest {
    /** NaN (quiet), +inf, -inf, a signalling NaN with payload 1, a negative quiet NaN: float16 bits. */
    private static final short[] HALF = {(short) 0x7E00, (short) 0x7C00, (short) 0xFC00, (short) 0x7C01, (short) 0xFE00};
    /** The same five as float32 bits. */
    private static final int[] SINGLE = {0x7FC00000, 0x7F800000, 0xFF800000, 0x7F800001, 0xFFC00000};

    /** Mini, and mini with every FP16 tensor stored FP32 (accepted by the reader, never written upstream). */
    private static List<byte[]> files() throws Exception {
        byte[] original = Files.readAllBytes(Golden.mini("mini.cact"));
        CactFile f = CactFile.parse(MemorySegment.ofArray(original), null);
        List<CactTensor> wide = new ArrayList<>();
        for (CactTensor t : CactModel.from(f).tensors()) {
            if (t.dtype() != CactDType.FP16) {
                wide.add(t);
                continue;
            }
            ByteBuffer b = ByteBuffer.allocate((int) t.data().byteSize() * 2).order(ByteOrder.LITTLE_ENDIAN);
            for (long i = 0; i < t.data().byteSize() / 2; i++) {
                b.putFloat(Float.float16ToFloat(t.data().get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 2 * i)));
            }
            wide.add(CactTensor.of(t.name(), CactDType.FP32, t.shape(), 0, 0, b.array()));
        }
        return List.of(original, CactWriter.toBytes(new CactModel(f.geometry(), f.codebook(), wide)));
    }

    @Test
    void everyStoredFloatKindIsFoundAndRefusedAtItsOffset(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("poisoned.cact");
        int fp16 = 0, fp32 = 0, norms = 0;
        for (byte[] original : files()) {
            List<TensorRecord> records = CactFile.parse(MemorySegment.ofArray(original), null).tensors();
            for (TensorRecord r : records) {
                // heads.manifest holds codes the reader checks as 1 or 2 (a NaN code is refused as such)
                if (r.dtype() == CactDType.RAW || r.name().equals("heads.manifest")) continue;
                CactFile clean = CactFile.parse(MemorySegment.ofArray(original), null);
                assertThat(clean.nonFinite()).isEmpty();
                long partOffset = r.dtype() == CactDType.CQ ? clean.cqBlob(r.index()).normsOffset() : 0;
                NonFiniteTensor.Part part = r.dtype() == CactDType.CQ ? NonFiniteTensor.Part.CQ_NORMS : NonFiniteTensor.Part.VALUES;
                int width = r.dtype() == CactDType.FP32 ? 4 : 2;
                long floats = (r.nbytes() - partOffset) / width;
                long element = new long[] {0, floats / 2, floats - 1}[r.index() % 3];
                long at = r.offset() + partOffset + width * element;
                byte[] poisoned = original.clone();
                ByteBuffer b = ByteBuffer.wrap(poisoned).order(ByteOrder.LITTLE_ENDIAN);
                float value;
                if (width == 4) {
                    b.putInt((int) at, SINGLE[r.index() % SINGLE.length]);
                    value = Float.intBitsToFloat(SINGLE[r.index() % SINGLE.length]);
                    fp32++;
                } else {
                    b.putShort((int) at, HALF[r.index() % HALF.length]);
                    value = Float.float16ToFloat(HALF[r.index() % HALF.length]);
                    if (part == NonFiniteTensor.Part.CQ_NORMS) norms++;
                    else fp16++;
                }
                Files.write(file, poisoned);

                assertThatThrownBy(() -> CactFile.open(file)).isInstanceOf(FormatException.class)
                        .satisfies(e -> {
                            FormatException f = (FormatException) e;
                            assertThat(f.tensorIndex()).isEqualTo(r.index());
                            assertThat(f.tensorName()).isEqualTo(r.name());
                            assertThat(f.offset()).isEqualTo(at);
                            assertThat(f.getMessage()).contains("1 " + part.label() + " is not finite (first: " + value + " at ")
                                    .endsWith(NonFinitePolicy.OVERRIDE_HINT);
                        });
                try (CactFile f = CactFile.open(file, NonFinitePolicy.ALLOW)) {
                    assertThat(f.nonFinite()).singleElement().satisfies(t -> {
                        assertThat(t.index()).isEqualTo(r.index());
                        assertThat(t.part()).isEqualTo(part);
                        assertThat(t.count().count()).isEqualTo(1);
                        assertThat(t.count().firstElement()).isEqualTo(element);
                        assertThat(t.firstOffset()).isEqualTo(at);
                    });
                    // what a reader of the values sees: the dequantized tensor holds the non-finite float
                    float[] values = f.dequantize(r.index());
                    assertThat(IntStream.range(0, values.length).anyMatch(i -> !Float.isFinite(values[i]))).as(r.name()).isTrue();
                }
            }
        }
        assertThat(fp16).isEqualTo(fp32).isPositive();
        assertThat(norms).isPositive();
    }

    @Test
    void everyNonFiniteFloatOfATensorIsCounted() throws Exception {
        byte[] original = Files.readAllBytes(Golden.mini("mini.cact"));
        try (CactFile golden = CactFile.open(Golden.mini("mini.cact"))) {
            TensorRecord r = golden.tensor("final_norm");
            ByteBuffer b = ByteBuffer.wrap(original).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 5; i < r.elementCount(); i += 7) b.putShort((int) (r.offset() + 2 * i), (short) 0x7C00);
            CactFile f = CactFile.parse(MemorySegment.ofArray(original), null);
            NonFiniteTensor t = f.nonFinite().getFirst();
            assertThat(t.name()).isEqualTo("final_norm");
            assertThat(t.count().count()).isEqualTo((r.elementCount() - 5 + 6) / 7);
            assertThat(t.count().firstElement()).isEqualTo(5);
            assertThat(t.count().firstValue()).isEqualTo(Float.POSITIVE_INFINITY);
        }
    }
}
