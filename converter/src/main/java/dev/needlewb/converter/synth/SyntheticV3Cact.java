package dev.needlewb.converter.synth;

import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactModel;
import dev.needlewb.converter.cact.CactTensor;
import dev.needlewb.converter.cq.codebook.Codebooks;
import dev.needlewb.converter.names.BitsMap;
import dev.needlewb.converter.names.Storage;
import dev.needlewb.converter.v3.HadaPermutations;
import dev.needlewb.converter.v3.V3HeadShape;
import dev.needlewb.converter.v3.V3Names;
import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.converter.v3.V3Tensor;
import dev.needlewb.core.v3.V3Geometry;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A seeded random but valid Needle 3 {@link CactModel} of any geometry, laid out as upstream's v3
 * exporter lays it out, group 128, its model matrices at the widths of a bits map (the shipped
 * file's scheme is {@code embedding=4,mhc=4,default=2}; upstream's exporter itself writes 4),
 * the probe heads' matrices at upstream's HEAD_BITS 4 whatever the map ({@code _head_tensors},
 * export.py:317-331), upstream's permutations, random codes, norms and small FP16 values, and
 * the given RAW tokenizer (none when null).
 */
public final class SyntheticV3Cact {
    public static final int GROUP = SyntheticCact.GROUP;
    /**
     * The RAW tokenizer size that makes a file of the released geometry, the shipped bits scheme
     * and the confidence head 35,335,380 bytes, the published size: derived from it (the blobs
     * before the tokenizer end at byte 35,226,240), not published itself.
     */
    public static final int RELEASED_TOKENIZER_BYTES = 109_140;

    private SyntheticV3Cact() {}

    /** The released geometry with the shipped file's bits scheme, its confidence head (k 4, q 4) and a tokenizer of the derived size. */
    public static CactModel released(long seed) {
        V3Geometry g = V3Geometry.released();
        return build(g, seed, BitsMap.released(), List.of(new V3HeadShape(V3ProbeHead.CONFIDENCE, 4, 4, 1)),
                SyntheticTokenizerBlob.of(g.vocab(), RELEASED_TOKENIZER_BYTES));
    }

    /** Builds the model; {@code heads} in canonical order. */
    public static CactModel build(V3Geometry g, long seed, BitsMap bits, List<V3HeadShape> heads, byte[] tokenizerBlob) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<CactTensor> tensors = new ArrayList<>();
        for (V3Tensor.Name t : V3Tensor.expand(g, heads, tokenizerBlob != null)) {
            String name = t.name();
            long[] shape = t.shape(g, heads.size());
            tensors.add(switch (t.tensor()) {
                case HADA_P1 -> permutation(name, HadaPermutations.Gather.P1.draw(g.hadaN(), false));
                case HADA_P2 -> permutation(name, HadaPermutations.Gather.P2.draw(g.hadaN(), false));
                case HEADS_MANIFEST -> SyntheticCact.fp16Values(name, heads.stream().mapToDouble(h -> h.head().code()).toArray());
                case HEAD_BIAS -> SyntheticCact.fp16(name, shape, rnd, t.head().head().flaxBias() ? 0.02 : 0);
                case TOKENIZER -> CactTensor.of(name, CactDType.RAW, new long[0], 0, 0, tokenizerBlob);
                default -> t.tensor().storage() == Storage.CQ
                        ? SyntheticCact.cq(name, shape, t.head() != null ? V3Names.HEAD_BITS : bits.recordBitsFor(name), rnd)
                        : SyntheticCact.fp16(name, shape, rnd, 0.02);
            });
        }
        return new CactModel(g, Codebooks.headerCodebook(GROUP), tensors);
    }

    private static CactTensor permutation(String name, int[] p) {
        ByteBuffer b = ByteBuffer.allocate(4 * p.length).order(ByteOrder.LITTLE_ENDIAN);
        for (int v : p) b.putFloat(v);
        return new CactTensor(name, CactDType.FP32, new long[] {p.length}, 0, 0, MemorySegment.ofArray(b.array()));
    }
}
