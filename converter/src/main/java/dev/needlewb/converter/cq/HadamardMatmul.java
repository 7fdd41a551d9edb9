package dev.needlewb.converter.cq;

import dev.needlewb.core.simd.VectorWidth;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code y = a @ H} for one group, H the float32 orthonormal Walsh-Hadamard matrix of order n
 * (Sylvester order, entries {@code float32(+-1/sqrt(n))}), evaluated in one of the
 * {@link NumpyMatmulOrder}s so the result equals numpy/OpenBLAS bit for bit. Each vector lane is
 * one of the FMA chains of the BLAS kernels; where H makes two outputs' chains equal up to sign
 * (see {@link #evenOdd}, {@link #gemvBlocks}) the chain runs once.
 *
 * <p>Speed comes from H's structure instead of loading it: with L lanes, k = L*m + r and
 * j = L*b + l, {@code H[k][j] = s(m,b) * P[r][l]}, {@code s(m,b) = (-1)^popcount(m & b)} and P
 * the L x L Hadamard pattern (1 KB, stays in L1). Each accumulator is kept multiplied by
 * s(m,b) of the current k-chunk m, so every FMA uses P[r]; crossing into chunk m+1 multiplies it
 * by s(m,b)*s(m+1,b). Negation is exact and round-to-nearest is symmetric, so every rounding is
 * the one BLAS performed (only the sign of an intermediate zero can differ, which no nonzero
 * result depends on and the final {@code + 0} of the BLAS store normalizes).
 *
 * <p>L is 16 logical lanes at every vector width: a block of L columns is {@code L / W} physical
 * vectors of W lanes, computed one after the other. Each lane is its own chain, so the split changes no
 * rounding and the result is the same bits at 128, 256 and 512 bits. Not thread-safe.
 */
final class HadamardMatmul {
    private static final VectorSpecies<Float> SPECIES = VectorWidth.FLOATS;
    /** Physical lanes: 4, 8 or 16. */
    private static final int W = SPECIES.length();
    /** Logical lanes: columns per output block and rows per k-chunk of the pattern. */
    private static final int L = 16;
    /** Accumulators (output blocks of L columns) per pass. */
    private static final int PASS = 4;
    /** Rows of the L x L pattern, scaled by float32(1/sqrt(n)), per supported n. */
    private static final float[] PATTERN_64 = pattern(64);
    private static final float[] PATTERN_128 = pattern(128);
    /** {@code SIGN[m * 16 + b] = (-1)^popcount(m & b)} for chunk/block indices below 16. */
    private static final float[] SIGN = new float[16 * 16];
    /** {@code [x0, x0, x1, x1, ...]} of the low and of the high half of a physical vector's lanes, and the odd lanes. */
    private static final VectorShuffle<Float> SPREAD_LOW = spread(0);
    private static final VectorShuffle<Float> SPREAD_HIGH = spread(W / 2);
    private static final VectorMask<Float> ODD_LANES = VectorMask.fromLong(SPECIES, 0xAAAAAAAAAAAAAAAAL);

    static {
        for (int m = 0; m < 16; m++) {
            for (int b = 0; b < 16; b++) SIGN[m * 16 + b] = (Integer.bitCount(m & b) & 1) == 0 ? 1f : -1f;
        }
    }

    private final int n;
    private final int blocks;
    private final float[] p;
    private final float[] scratch;
    /** The even chains of {@link #evenOdd}, then from {@code oddChains} the odd chains (at least PASS blocks of L each). */
    private final float[] halves;
    private final int oddChains;
    /** One chain per block of 8 k of {@link #gemvBlocks}, L lanes each. */
    private final float[] blockChains;

    HadamardMatmul(int n) {
        this.n = n;
        this.p = switch (n) {
            case 64 -> PATTERN_64;
            case 128 -> PATTERN_128;
            default -> throw new IllegalArgumentException("CQ group " + n + " (supported: 64, 128)");
        };
        this.blocks = n / L;
        this.scratch = new float[n];
        this.oddChains = Math.max(n / 2, PASS * L);
        this.halves = new float[2 * oddChains];
        this.blockChains = new float[n / 8 * L];
    }

    private static VectorShuffle<Float> spread(int from) {
        return VectorShuffle.fromOp(SPECIES, t -> from + t / 2);
    }

    private static float[] pattern(int n) {
        float scale = (float) (1.0 / Math.sqrt(n));
        float[] m = new float[L * L];
        for (int r = 0; r < L; r++) {
            for (int l = 0; l < L; l++) m[r * L + l] = (Integer.bitCount(r & l) & 1) == 0 ? scale : -scale;
        }
        return m;
    }

    /** Writes the n outputs of {@code a[aOff .. aOff+n) @ H} to {@code out[outOff ..)}. */
    void multiply(float[] a, int aOff, NumpyMatmulOrder order, float[] out, int outOff) {
        switch (order) {
            case GEMV_BLOCKS_OF_8 -> gemvBlocks(a, aOff, out, outOff);
            case EVEN_ODD -> evenOdd(a, aOff, out, outOff);
            case SEQUENTIAL -> sequential(a, aOff, out, outOff);
            case EVEN_ODD_EDGES -> {
                sequential(a, aOff, out, outOff);
                evenOdd(a, aOff, scratch, 0);
                int edge = NumpyMatmulOrder.EDGE_COLUMNS;
                System.arraycopy(scratch, 0, out, outOff, edge);
                System.arraycopy(scratch, n - edge, out, outOff + n - edge, edge);
            }
        }
    }

    private static float flip(int m, int b) {
        return SIGN[(m - 1) * 16 + b] * SIGN[m * 16 + b];
    }

    private static float sign(int m, int b) {
        return SIGN[m * 16 + b];
    }

    // The BLAS kernels store acc * alpha + C with C zeroed (beta = 0): adding +0 turns -0 into +0.
    private void sequential(float[] a, int aOff, float[] out, int outOff) {
        FloatVector zero = FloatVector.zero(SPECIES);
        for (int b = 0; b < blocks; b += PASS) {
            for (int part = 0; part < L; part += W) {
                FloatVector c0 = zero, c1 = zero, c2 = zero, c3 = zero;
                for (int m = 0; m < blocks; m++) {
                    if (m > 0) {
                        c0 = c0.mul(flip(m, b));
                        c1 = c1.mul(flip(m, b + 1));
                        c2 = c2.mul(flip(m, b + 2));
                        c3 = c3.mul(flip(m, b + 3));
                    }
                    int base = aOff + m * L;
                    for (int r = 0; r < L; r++) {
                        FloatVector ak = FloatVector.broadcast(SPECIES, a[base + r]);
                        FloatVector pr = FloatVector.fromArray(SPECIES, p, r * L + part);
                        c0 = ak.fma(pr, c0);
                        c1 = ak.fma(pr, c1);
                        c2 = ak.fma(pr, c2);
                        c3 = ak.fma(pr, c3);
                    }
                }
                int last = blocks - 1;
                int at = outOff + b * L + part;
                c0.mul(sign(last, b)).add(zero).intoArray(out, at);
                c1.mul(sign(last, b + 1)).add(zero).intoArray(out, at + L);
                c2.mul(sign(last, b + 2)).add(zero).intoArray(out, at + 2 * L);
                c3.mul(sign(last, b + 3)).add(zero).intoArray(out, at + 3 * L);
            }
        }
    }

    /**
     * sgemm 8x4 kernel: FMA even k and odd k into two accumulators, then add them, computed on
     * half the columns. For even k, column j and its neighbour j ^ 1 have the same entries, so
     * their even chains are the same chain; for odd k they have opposite entries, so their odd
     * chains are negatives of each other (negation is exact and rounding symmetric). Both chains
     * of column 2i visit H_{n/2}[kappa][i] for k = 2 kappa and 2 kappa + 1, so one pass over
     * half-size blocks gives e and o of every column pair, and {@code y[2i] = e + o},
     * {@code y[2i + 1] = e - o}: half the FMAs of the plain product. When n / 2 is fewer than
     * PASS blocks (n = 64) the pass also runs chains for blocks that do not exist,
     * which are never stored.
     */
    private void evenOdd(float[] a, int aOff, float[] out, int outOff) {
        FloatVector zero = FloatVector.zero(SPECIES);
        int halfBlocks = blocks / 2;
        for (int b = 0; b < halfBlocks; b += PASS) {
            for (int part = 0; part < L; part += W) {
                FloatVector e0 = zero, e1 = zero, e2 = zero, e3 = zero;
                FloatVector o0 = zero, o1 = zero, o2 = zero, o3 = zero;
                for (int m = 0; m < halfBlocks; m++) {
                    if (m > 0) {
                        float f0 = flip(m, b), f1 = flip(m, b + 1), f2 = flip(m, b + 2), f3 = flip(m, b + 3);
                        e0 = e0.mul(f0);
                        o0 = o0.mul(f0);
                        e1 = e1.mul(f1);
                        o1 = o1.mul(f1);
                        e2 = e2.mul(f2);
                        o2 = o2.mul(f2);
                        e3 = e3.mul(f3);
                        o3 = o3.mul(f3);
                    }
                    int base = aOff + 2 * m * L;
                    for (int r = 0; r < L; r += 2) {
                        FloatVector ak = FloatVector.broadcast(SPECIES, a[base + 2 * r]);
                        FloatVector bk = FloatVector.broadcast(SPECIES, a[base + 2 * r + 1]);
                        FloatVector ck = FloatVector.broadcast(SPECIES, a[base + 2 * r + 2]);
                        FloatVector dk = FloatVector.broadcast(SPECIES, a[base + 2 * r + 3]);
                        FloatVector pr = FloatVector.fromArray(SPECIES, p, r * L + part);
                        FloatVector pn = FloatVector.fromArray(SPECIES, p, r * L + L + part);
                        e0 = ak.fma(pr, e0);
                        o0 = bk.fma(pr, o0);
                        e1 = ak.fma(pr, e1);
                        o1 = bk.fma(pr, o1);
                        e2 = ak.fma(pr, e2);
                        o2 = bk.fma(pr, o2);
                        e3 = ak.fma(pr, e3);
                        o3 = bk.fma(pr, o3);
                        e0 = ck.fma(pn, e0);
                        o0 = dk.fma(pn, o0);
                        e1 = ck.fma(pn, e1);
                        o1 = dk.fma(pn, o1);
                        e2 = ck.fma(pn, e2);
                        o2 = dk.fma(pn, o2);
                        e3 = ck.fma(pn, e3);
                        o3 = dk.fma(pn, o3);
                    }
                }
                int last = halfBlocks - 1;
                int even = b * L + part;
                int odd = oddChains + even;
                e0.mul(sign(last, b)).intoArray(halves, even);
                o0.mul(sign(last, b)).intoArray(halves, odd);
                e1.mul(sign(last, b + 1)).intoArray(halves, even + L);
                o1.mul(sign(last, b + 1)).intoArray(halves, odd + L);
                e2.mul(sign(last, b + 2)).intoArray(halves, even + 2 * L);
                o2.mul(sign(last, b + 2)).intoArray(halves, odd + 2 * L);
                e3.mul(sign(last, b + 3)).intoArray(halves, even + 3 * L);
                o3.mul(sign(last, b + 3)).intoArray(halves, odd + 3 * L);
            }
        }
        // y[2i] = e[i] + o[i] and y[2i + 1] = e[i] - o[i], interleaved lane by lane.
        for (int i = 0; i < n / 2; i += W) {
            FloatVector e = FloatVector.fromArray(SPECIES, halves, i);
            FloatVector o = FloatVector.fromArray(SPECIES, halves, oddChains + i);
            FloatVector sum = e.add(o).add(zero);
            FloatVector diff = e.sub(o).add(zero);
            sum.rearrange(SPREAD_LOW).blend(diff.rearrange(SPREAD_LOW), ODD_LANES).intoArray(out, outOff + 2 * i);
            sum.rearrange(SPREAD_HIGH).blend(diff.rearrange(SPREAD_HIGH), ODD_LANES).intoArray(out, outOff + 2 * i + W);
        }
    }

    /**
     * Blocks of 8 k never straddle a chunk because L >= 8. Within a block the temporary of column
     * j is {@code s(m, b)} times one chain that depends only on the lane (the block's 8 k share
     * their chunk m), so each block runs one FMA chain (four side by side), and every output block
     * then adds the chains in k order with its signs.
     */
    private void gemvBlocks(float[] a, int aOff, float[] out, int outOff) {
        FloatVector zero = FloatVector.zero(SPECIES);
        for (int part = 0; part < L; part += W) {
            for (int k0 = 0; k0 < n; k0 += 32) {
                FloatVector t0 = zero, t1 = zero, t2 = zero, t3 = zero;
                for (int r = 0; r < 8; r++) {
                    t0 = FloatVector.broadcast(SPECIES, a[aOff + k0 + r]).fma(FloatVector.fromArray(SPECIES, p, (k0 % L + r) * L + part), t0);
                    t1 = FloatVector.broadcast(SPECIES, a[aOff + k0 + 8 + r]).fma(FloatVector.fromArray(SPECIES, p, ((k0 + 8) % L + r) * L + part), t1);
                    t2 = FloatVector.broadcast(SPECIES, a[aOff + k0 + 16 + r]).fma(FloatVector.fromArray(SPECIES, p, ((k0 + 16) % L + r) * L + part), t2);
                    t3 = FloatVector.broadcast(SPECIES, a[aOff + k0 + 24 + r]).fma(FloatVector.fromArray(SPECIES, p, ((k0 + 24) % L + r) * L + part), t3);
                }
                int at = k0 / 8 * L + part;
                t0.intoArray(blockChains, at);
                t1.intoArray(blockChains, at + L);
                t2.intoArray(blockChains, at + 2 * L);
                t3.intoArray(blockChains, at + 3 * L);
            }
            for (int b = 0; b < blocks; b += PASS) {
                FloatVector y0 = zero, y1 = zero, y2 = zero, y3 = zero;
                for (int q = 0; q < n / 8; q++) {
                    FloatVector t = FloatVector.fromArray(SPECIES, blockChains, q * L + part);
                    int m = q * 8 / L;
                    y0 = y0.add(t.mul(sign(m, b)));
                    y1 = y1.add(t.mul(sign(m, b + 1)));
                    y2 = y2.add(t.mul(sign(m, b + 2)));
                    y3 = y3.add(t.mul(sign(m, b + 3)));
                }
                int at = outOff + b * L + part;
                y0.intoArray(out, at);
                y1.intoArray(out, at + L);
                y2.intoArray(out, at + 2 * L);
                y3.intoArray(out, at + 3 * L);
            }
        }
    }
}
