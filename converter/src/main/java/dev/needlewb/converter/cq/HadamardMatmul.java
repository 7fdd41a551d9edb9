package dev.needlewb.converter.cq;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code y = a @ H} for one group, H the float32 orthonormal Walsh-Hadamard matrix of order n
 * (Sylvester order, entries {@code float32(+-1/sqrt(n))}), evaluated in one of the
 * {@link NumpyMatmulOrder}s so the result equals numpy/OpenBLAS bit for bit. Each vector lane is
 * one output's own FMA chain, exactly as in the BLAS kernels.
 *
 * <p>Speed comes from H's structure instead of loading it: with L lanes, k = L*m + r and
 * j = L*b + l, {@code H[k][j] = s(m,b) * P[r][l]}, {@code s(m,b) = (-1)^popcount(m & b)} and P
 * the L x L Hadamard pattern (1 KB, stays in L1). Each accumulator is kept multiplied by
 * s(m,b) of the current k-chunk m, so every FMA uses P[r]; crossing into chunk m+1 multiplies it
 * by s(m,b)*s(m+1,b). Negation is exact and round-to-nearest is symmetric, so every rounding is
 * the one BLAS performed (only the sign of an intermediate zero can differ, which no nonzero
 * result depends on and the final {@code + 0} of the BLAS store normalizes). Not thread-safe.
 */
final class HadamardMatmul {
    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED.length() >= 8
            ? FloatVector.SPECIES_PREFERRED : FloatVector.SPECIES_256;
    private static final int L = SPECIES.length();
    /** Accumulators (output blocks of L columns) per pass. */
    private static final int PASS = 4;
    /** Rows of the L x L pattern, scaled by float32(1/sqrt(n)), per supported n. */
    private static final float[] PATTERN_64 = pattern(64);
    private static final float[] PATTERN_128 = pattern(128);
    /** {@code SIGN[m * 16 + b] = (-1)^popcount(m & b)} for chunk/block indices below 16. */
    private static final float[] SIGN = new float[16 * 16];

    static {
        for (int m = 0; m < 16; m++) {
            for (int b = 0; b < 16; b++) SIGN[m * 16 + b] = (Integer.bitCount(m & b) & 1) == 0 ? 1f : -1f;
        }
    }

    private final int n;
    private final int blocks;
    private final float[] p;
    private final float[] scratch;

    HadamardMatmul(int n) {
        this.n = n;
        this.p = switch (n) {
            case 64 -> PATTERN_64;
            case 128 -> PATTERN_128;
            default -> throw new IllegalArgumentException("CQ group " + n + " (supported: 64, 128)");
        };
        this.blocks = n / L;
        this.scratch = new float[n];
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
                    FloatVector pr = FloatVector.fromArray(SPECIES, p, r * L);
                    c0 = ak.fma(pr, c0);
                    c1 = ak.fma(pr, c1);
                    c2 = ak.fma(pr, c2);
                    c3 = ak.fma(pr, c3);
                }
            }
            int last = blocks - 1;
            int at = outOff + b * L;
            c0.mul(sign(last, b)).add(zero).intoArray(out, at);
            c1.mul(sign(last, b + 1)).add(zero).intoArray(out, at + L);
            c2.mul(sign(last, b + 2)).add(zero).intoArray(out, at + 2 * L);
            c3.mul(sign(last, b + 3)).add(zero).intoArray(out, at + 3 * L);
        }
    }

    private void evenOdd(float[] a, int aOff, float[] out, int outOff) {
        FloatVector zero = FloatVector.zero(SPECIES);
        for (int b = 0; b < blocks; b += PASS) {
            FloatVector e0 = zero, e1 = zero, e2 = zero, e3 = zero;
            FloatVector o0 = zero, o1 = zero, o2 = zero, o3 = zero;
            for (int m = 0; m < blocks; m++) {
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
                int base = aOff + m * L;
                for (int r = 0; r < L; r += 2) {
                    FloatVector ak = FloatVector.broadcast(SPECIES, a[base + r]);
                    FloatVector bk = FloatVector.broadcast(SPECIES, a[base + r + 1]);
                    FloatVector pr = FloatVector.fromArray(SPECIES, p, r * L);
                    FloatVector pn = FloatVector.fromArray(SPECIES, p, r * L + L);
                    e0 = ak.fma(pr, e0);
                    o0 = bk.fma(pn, o0);
                    e1 = ak.fma(pr, e1);
                    o1 = bk.fma(pn, o1);
                    e2 = ak.fma(pr, e2);
                    o2 = bk.fma(pn, o2);
                    e3 = ak.fma(pr, e3);
                    o3 = bk.fma(pn, o3);
                }
            }
            int last = blocks - 1;
            int at = outOff + b * L;
            float s0 = sign(last, b), s1 = sign(last, b + 1), s2 = sign(last, b + 2), s3 = sign(last, b + 3);
            e0.mul(s0).add(o0.mul(s0)).add(zero).intoArray(out, at);
            e1.mul(s1).add(o1.mul(s1)).add(zero).intoArray(out, at + L);
            e2.mul(s2).add(o2.mul(s2)).add(zero).intoArray(out, at + 2 * L);
            e3.mul(s3).add(o3.mul(s3)).add(zero).intoArray(out, at + 3 * L);
        }
    }

    /**
     * Blocks of 8 k never straddle a chunk because L >= 8. Two consecutive blocks' temporaries are
     * independent until they are added to the output in order, so they are computed side by side:
     * eight FMA chains instead of four.
     */
    private void gemvBlocks(float[] a, int aOff, float[] out, int outOff) {
        FloatVector zero = FloatVector.zero(SPECIES);
        for (int b = 0; b < blocks; b += PASS) {
            FloatVector y0 = zero, y1 = zero, y2 = zero, y3 = zero;
            for (int k0 = 0; k0 < n; k0 += 16) {
                int k1 = k0 + 8;
                FloatVector t0 = zero, t1 = zero, t2 = zero, t3 = zero;
                FloatVector u0 = zero, u1 = zero, u2 = zero, u3 = zero;
                for (int r = 0; r < 8; r++) {
                    FloatVector ak = FloatVector.broadcast(SPECIES, a[aOff + k0 + r]);
                    FloatVector bk = FloatVector.broadcast(SPECIES, a[aOff + k1 + r]);
                    FloatVector pa = FloatVector.fromArray(SPECIES, p, (k0 % L + r) * L);
                    FloatVector pb = FloatVector.fromArray(SPECIES, p, (k1 % L + r) * L);
                    t0 = ak.fma(pa, t0);
                    u0 = bk.fma(pb, u0);
                    t1 = ak.fma(pa, t1);
                    u1 = bk.fma(pb, u1);
                    t2 = ak.fma(pa, t2);
                    u2 = bk.fma(pb, u2);
                    t3 = ak.fma(pa, t3);
                    u3 = bk.fma(pb, u3);
                }
                int ma = k0 / L, mb = k1 / L;
                y0 = y0.add(t0.mul(sign(ma, b))).add(u0.mul(sign(mb, b)));
                y1 = y1.add(t1.mul(sign(ma, b + 1))).add(u1.mul(sign(mb, b + 1)));
                y2 = y2.add(t2.mul(sign(ma, b + 2))).add(u2.mul(sign(mb, b + 2)));
                y3 = y3.add(t3.mul(sign(ma, b + 3))).add(u3.mul(sign(mb, b + 3)));
            }
            int at = outOff + b * L;
            y0.intoArray(out, at);
            y1.intoArray(out, at + L);
            y2.intoArray(out, at + 2 * L);
            y3.intoArray(out, at + 3 * L);
        }
    }
}
