package dev.needlewb.converter.cq;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code y = a @ H} for one group, H the float32 orthonormal Walsh-Hadamard matrix of order n
 * (Sylvester order, entries {@code float32(+-1/sqrt(n))}), evaluated in one of the
 * {@link NumpyMatmulOrder}s so the result equals numpy/OpenBLAS bit for bit. Vectorized across
 * output columns (each lane is one output's own FMA chain, exactly as in the BLAS kernels);
 * four independent vector accumulators per pass hide the FMA latency. Not thread-safe.
 */
final class HadamardMatmul {
    private static final VectorSpecies<Float> SPECIES = pickSpecies();
    private static final int PASS = 4;
    private static final float[] H64 = hadamard(64);
    private static final float[] H128 = hadamard(128);

    private final int n;
    private final float[] h;
    private final float[] scratch;

    HadamardMatmul(int n) {
        this.n = n;
        this.h = switch (n) {
            case 64 -> H64;
            case 128 -> H128;
            default -> throw new IllegalArgumentException("CQ group " + n + " (supported: 64, 128)");
        };
        this.scratch = new float[n];
    }

    private static VectorSpecies<Float> pickSpecies() {
        VectorSpecies<Float> preferred = FloatVector.SPECIES_PREFERRED;
        int lanes = preferred.length();
        return lanes == 4 || lanes == 8 || lanes == 16 ? preferred : FloatVector.SPECIES_128;
    }

    /** Row-major float32 H of order n: {@code (-1)^popcount(k & j) * float32(1/sqrt(n))}. */
    static float[] hadamard(int n) {
        float scale = (float) (1.0 / Math.sqrt(n));
        float[] m = new float[n * n];
        for (int k = 0; k < n; k++) {
            for (int j = 0; j < n; j++) m[k * n + j] = (Integer.bitCount(k & j) & 1) == 0 ? scale : -scale;
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

    // The BLAS kernels store acc * alpha + C with C zeroed (beta = 0): adding +0 turns -0 into +0.
    private void sequential(float[] a, int aOff, float[] out, int outOff) {
        int lanes = SPECIES.length();
        FloatVector zero = FloatVector.zero(SPECIES);
        for (int j = 0; j < n; j += PASS * lanes) {
            FloatVector c0 = zero, c1 = zero, c2 = zero, c3 = zero;
            for (int k = 0; k < n; k++) {
                FloatVector ak = FloatVector.broadcast(SPECIES, a[aOff + k]);
                int row = k * n + j;
                c0 = ak.fma(FloatVector.fromArray(SPECIES, h, row), c0);
                c1 = ak.fma(FloatVector.fromArray(SPECIES, h, row + lanes), c1);
                c2 = ak.fma(FloatVector.fromArray(SPECIES, h, row + 2 * lanes), c2);
                c3 = ak.fma(FloatVector.fromArray(SPECIES, h, row + 3 * lanes), c3);
            }
            c0.add(zero).intoArray(out, outOff + j);
            c1.add(zero).intoArray(out, outOff + j + lanes);
            c2.add(zero).intoArray(out, outOff + j + 2 * lanes);
            c3.add(zero).intoArray(out, outOff + j + 3 * lanes);
        }
    }

    private void evenOdd(float[] a, int aOff, float[] out, int outOff) {
        int lanes = SPECIES.length();
        FloatVector zero = FloatVector.zero(SPECIES);
        for (int j = 0; j < n; j += PASS * lanes) {
            FloatVector e0 = zero, e1 = zero, e2 = zero, e3 = zero;
            FloatVector o0 = zero, o1 = zero, o2 = zero, o3 = zero;
            for (int k = 0; k < n; k += 2) {
                FloatVector ak = FloatVector.broadcast(SPECIES, a[aOff + k]);
                FloatVector bk = FloatVector.broadcast(SPECIES, a[aOff + k + 1]);
                int row = k * n + j;
                int next = row + n;
                e0 = ak.fma(FloatVector.fromArray(SPECIES, h, row), e0);
                o0 = bk.fma(FloatVector.fromArray(SPECIES, h, next), o0);
                e1 = ak.fma(FloatVector.fromArray(SPECIES, h, row + lanes), e1);
                o1 = bk.fma(FloatVector.fromArray(SPECIES, h, next + lanes), o1);
                e2 = ak.fma(FloatVector.fromArray(SPECIES, h, row + 2 * lanes), e2);
                o2 = bk.fma(FloatVector.fromArray(SPECIES, h, next + 2 * lanes), o2);
                e3 = ak.fma(FloatVector.fromArray(SPECIES, h, row + 3 * lanes), e3);
                o3 = bk.fma(FloatVector.fromArray(SPECIES, h, next + 3 * lanes), o3);
            }
            e0.add(o0).add(zero).intoArray(out, outOff + j);
            e1.add(o1).add(zero).intoArray(out, outOff + j + lanes);
            e2.add(o2).add(zero).intoArray(out, outOff + j + 2 * lanes);
            e3.add(o3).add(zero).intoArray(out, outOff + j + 3 * lanes);
        }
    }

    private void gemvBlocks(float[] a, int aOff, float[] out, int outOff) {
        int lanes = SPECIES.length();
        FloatVector zero = FloatVector.zero(SPECIES);
        for (int j = 0; j < n; j += PASS * lanes) {
            FloatVector y0 = zero, y1 = zero, y2 = zero, y3 = zero;
            for (int kb = 0; kb < n; kb += 8) {
                FloatVector t0 = zero, t1 = zero, t2 = zero, t3 = zero;
                for (int k = kb; k < kb + 8; k++) {
                    FloatVector ak = FloatVector.broadcast(SPECIES, a[aOff + k]);
                    int row = k * n + j;
                    t0 = ak.fma(FloatVector.fromArray(SPECIES, h, row), t0);
                    t1 = ak.fma(FloatVector.fromArray(SPECIES, h, row + lanes), t1);
                    t2 = ak.fma(FloatVector.fromArray(SPECIES, h, row + 2 * lanes), t2);
                    t3 = ak.fma(FloatVector.fromArray(SPECIES, h, row + 3 * lanes), t3);
                }
                y0 = y0.add(t0);
                y1 = y1.add(t1);
                y2 = y2.add(t2);
                y3 = y3.add(t3);
            }
            y0.intoArray(out, outOff + j);
            y1.intoArray(out, outOff + j + lanes);
            y2.intoArray(out, outOff + j + 2 * lanes);
            y3.intoArray(out, outOff + j + 3 * lanes);
        }
    }
}
