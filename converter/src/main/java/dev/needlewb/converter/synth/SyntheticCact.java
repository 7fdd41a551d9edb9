package dev.needlewb.converter.synth;

import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactLayout;
import dev.needlewb.converter.cact.CactModel;
import dev.needlewb.converter.cact.CactTensor;
import dev.needlewb.converter.cact.ProbeHead;
import dev.needlewb.converter.cq.CqBlob;
import dev.needlewb.converter.model.Geometry;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A seeded random but valid {@link CactModel} of any geometry, laid out like an upstream export
 * with the default scheme {@code embedding=4,mhc=4,default=2}, group 128: embedding and
 * mhc_phi_* CQ4, every other matrix CQ2, random codes and FP16 group norms around a trained
 * model's (~0.02 * sqrt(128)), random small FP16 vectors, optional probe heads (contrastive P=4,
 * out=128, zero bias; confidence P=8, out=1) and the given RAW tokenizer blob.
 */
public final class SyntheticCact {
    public static final int GROUP = 128;
    /** Upstream's header codebook for group 128 (Lloyd-Max cb2 | cb3 | cb4 / sqrt(128), float32). */
    static final float[] CODEBOOK_G128 = {
        -0.1331721395254135f, -0.03990209102630615f, 0.04003528133034706f, 0.13346044719219208f,
        -0.18926136195659637f, -0.11788499355316162f, -0.06614968925714493f, -0.02101346105337143f,
        0.022101031616330147f, 0.06678506731987f, 0.11826207488775253f, 0.18982602655887604f,
        -0.23953154683113098f, -0.18070605397224426f, -0.14095793664455414f, -0.10901255160570145f,
        -0.08151296526193619f, -0.056527651846408844f, -0.03293915092945099f, -0.010116109624505043f,
        0.012710800394415855f, 0.03570791706442833f, 0.059458255767822266f, 0.08497702330350876f,
        0.112741619348526f, 0.1446969211101532f, 0.184239000082016f, 0.2422737032175064f,
    };

    private SyntheticCact() {}

    /** Builds the model; {@code heads} in any order (written canonically). */
    public static CactModel build(Geometry geometry, long seed, List<ProbeHead> heads, byte[] tokenizerBlob) {
        List<ProbeHead> canonical = heads.stream().distinct().sorted().toList();
        CactLayout layout = CactLayout.of(geometry, canonical);
        SplittableRandom rnd = new SplittableRandom(seed);
        List<CactTensor> tensors = new ArrayList<>(layout.size());
        long probes = 0;
        long out = 0;
        for (CactLayout.Slot slot : layout.slots()) {
            String name = slot.name();
            ProbeHead head = headOf(name, canonical);
            tensors.add(switch (slot.kind()) {
                case MATRIX -> cq(name, slot.shape(), name.equals("embedding") || name.startsWith("mhc") ? 4 : 2, rnd);
                case VECTOR -> fp16(name, slot.shape(), rnd, 0.02);
                case MANIFEST -> fp16Values(name, canonical.stream().mapToDouble(ProbeHead::code).toArray());
                case HEAD_PROBES -> {
                    probes = head == ProbeHead.CONTRASTIVE ? 4 : 8;
                    out = head == ProbeHead.CONTRASTIVE ? 128 : 1;
                    yield fp16(name, new long[] {probes, geometry.dModel()}, rnd, 0.02);
                }
                case HEAD_PROJ -> fp16(name, new long[] {out, probes * geometry.dModel()}, rnd, 0.02);
                case HEAD_BIAS -> fp16(name, new long[] {out}, rnd, head == ProbeHead.CONTRASTIVE ? 0 : 0.02);
                case TOKENIZER -> CactTensor.of(name, CactDType.RAW, new long[0], 0, 0, tokenizerBlob);
            });
        }
        return new CactModel(geometry, CODEBOOK_G128, tensors);
    }

    private static ProbeHead headOf(String name, List<ProbeHead> heads) {
        for (ProbeHead h : heads) {
            if (name.startsWith(h.key() + ".")) return h;
        }
        return null;
    }

    private static CactTensor cq(String name, long[] shape, int bits, SplittableRandom rnd) {
        long rows = shape[0];
        CqBlob layout = new CqBlob(rows, shape[1], GROUP, bits,
                java.lang.foreign.MemorySegment.ofArray(new byte[Math.toIntExact(CqBlob.byteSize(rows, shape[1], bits, GROUP))]));
        byte[] data = (byte[]) layout.data().heapBase().orElseThrow();
        int codeBytes = (int) layout.normsOffset();
        rnd.nextBytes(data);
        ByteBuffer norms = ByteBuffer.wrap(data, codeBytes, data.length - codeBytes).order(ByteOrder.LITTLE_ENDIAN);
        while (norms.hasRemaining()) norms.putShort(Float.floatToFloat16((float) (0.226 * (0.7 + 0.6 * rnd.nextDouble()))));
        return new CactTensor(name, CactDType.CQ, shape, GROUP, bits, layout.data());
    }

    private static CactTensor fp16(String name, long[] shape, SplittableRandom rnd, double scale) {
        long n = 1;
        for (long d : shape) n *= d;
        double[] values = new double[Math.toIntExact(n)];
        for (int i = 0; i < values.length; i++) values[i] = scale * (2 * rnd.nextDouble() - 1);
        CactTensor t = fp16Values(name, values);
        return new CactTensor(name, CactDType.FP16, shape, 0, 0, t.data());
    }

    private static CactTensor fp16Values(String name, double[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 2).order(ByteOrder.LITTLE_ENDIAN);
        for (double v : values) b.putShort(Float.floatToFloat16((float) v));
        return new CactTensor(name, CactDType.FP16, new long[] {values.length}, 0, 0, java.lang.foreign.MemorySegment.ofArray(b.array()));
    }
}
