package dev.needlewb.converter.synth;

import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactModel;
import dev.needlewb.converter.cact.CactTensor;
import dev.needlewb.converter.cq.CqBlob;
import dev.needlewb.converter.cq.codebook.Codebooks;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.names.BitsMap;
import dev.needlewb.converter.names.Storage;
import dev.needlewb.converter.v2.ModelTensor;
import dev.needlewb.converter.v2.ProbeHead;
import dev.needlewb.converter.v2.TensorName;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A seeded random but valid Needle 2 {@link CactModel} of any geometry, laid out like an upstream export
 * with the default scheme {@code embedding=4,mhc=4,default=2}, group 128: embedding and
 * mhc_phi_* CQ4, every other matrix CQ2, random codes and FP16 group norms around a trained
 * model's (~0.02 * sqrt(128)), random small FP16 vectors, optional probe heads (contrastive P=4,
 * out=128, zero bias; confidence P=8, out=1) and the given RAW tokenizer blob (none when null,
 * as upstream's {@code build_export} without a tokenizer).
 */
public final class SyntheticCact {
    public static final int GROUP = 128;
    /** Size of the released file's RAW tokenizer blob (SPEC section 5). */
    public static final int RELEASED_TOKENIZER_BYTES = 115_215;
    private static final BitsMap BITS = BitsMap.released();

    private SyntheticCact() {}

    /**
     * The model of the released Needle 2 geometry with a tokenizer blob of the released size, so the
     * file has the published size; {@code heads} as in {@link #build}.
     */
    public static CactModel released(long seed, List<ProbeHead> heads) {
        Geometry geometry = Geometry.needle2();
        return build(geometry, seed, heads, SyntheticTokenizerBlob.of(geometry.vocab(), RELEASED_TOKENIZER_BYTES));
    }

    /** Builds the model; {@code heads} in any order (written canonically). */
    public static CactModel build(Geometry geometry, long seed, List<ProbeHead> heads, byte[] tokenizerBlob) {
        List<ProbeHead> canonical = heads.stream().distinct().sorted().toList();
        List<TensorName> layout = ModelTensor.expand(geometry, canonical, tokenizerBlob != null);
        SplittableRandom rnd = new SplittableRandom(seed);
        List<CactTensor> tensors = new ArrayList<>(layout.size());
        long probes = 0;
        long out = 0;
        for (TensorName t : layout) {
            String name = t.name();
            ProbeHead head = t.head();
            long[] shape = t.tensor().shape(geometry, canonical.size(), null);
            tensors.add(switch (t.tensor()) {
                case HEADS_MANIFEST -> fp16Values(name, canonical.stream().mapToDouble(ProbeHead::code).toArray());
                case HEAD_PROBES -> {
                    probes = head == ProbeHead.CONTRASTIVE ? 4 : 8;
                    out = head == ProbeHead.CONTRASTIVE ? 128 : 1;
                    yield fp16(name, new long[] {probes, geometry.dModel()}, rnd, 0.02);
                }
                case HEAD_PROJ -> fp16(name, new long[] {out, probes * geometry.dModel()}, rnd, 0.02);
                case HEAD_BIAS -> fp16(name, new long[] {out}, rnd, head == ProbeHead.CONTRASTIVE ? 0 : 0.02);
                case TOKENIZER -> CactTensor.of(name, CactDType.RAW, new long[0], 0, 0, tokenizerBlob);
                default -> t.tensor().storage() == Storage.CQ
                        ? cq(name, shape, BITS.recordBitsFor(name), rnd)
                        : fp16(name, shape, rnd, 0.02);
            });
        }
        return new CactModel(geometry, Codebooks.headerCodebook(GROUP), tensors);
    }

    static CactTensor cq(String name, long[] shape, int bits, SplittableRandom rnd) {
        byte[] data = new byte[Math.toIntExact(CqBlob.byteSize(shape[0], shape[1], bits, GROUP))];
        rnd.nextBytes(data);
        CqBlob blob = new CqBlob(shape[0], shape[1], GROUP, bits, MemorySegment.ofArray(data));
        int codeBytes = (int) blob.normsOffset();
        if (bits == dev.needlewb.converter.cq.CqPacking.TERNARY_RECORD_BITS) {
            // crumbs 3, 0, 1 are the trits; 2 is none (export.py _unpack_ternary_crumbs): make it 3
            for (int i = 0; i < codeBytes; i++) {
                int b = data[i] & 0xFF;
                for (int shift = 0; shift < 8; shift += 2) if ((b >> shift & 3) == 2) b |= 1 << shift;
                data[i] = (byte) b;
            }
        }
        ByteBuffer norms = ByteBuffer.wrap(data, codeBytes, data.length - codeBytes).order(ByteOrder.LITTLE_ENDIAN);
        while (norms.hasRemaining()) norms.putShort(Float.floatToFloat16((float) (0.226 * (0.7 + 0.6 * rnd.nextDouble()))));
        return new CactTensor(name, CactDType.CQ, shape, GROUP, bits, blob.data());
    }

    static CactTensor fp16(String name, long[] shape, SplittableRandom rnd, double scale) {
        long n = 1;
        for (long d : shape) n *= d;
        double[] values = new double[Math.toIntExact(n)];
        for (int i = 0; i < values.length; i++) values[i] = scale * (2 * rnd.nextDouble() - 1);
        CactTensor t = fp16Values(name, values);
        return new CactTensor(name, CactDType.FP16, shape, 0, 0, t.data());
    }

    static CactTensor fp16Values(String name, double[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 2).order(ByteOrder.LITTLE_ENDIAN);
        for (double v : values) b.putShort(Float.floatToFloat16((float) v));
        return new CactTensor(name, CactDType.FP16, new long[] {values.length}, 0, 0, MemorySegment.ofArray(b.array()));
    }
}
