package dev.needlewb.engine.kernel;

/**
 * In-place orthonormal Walsh-Hadamard transform in float32 (Sylvester order, so the matrix is
 * symmetric and its own inverse): {@code x <- (H / sqrt(n)) x} over a power-of-two block.
 */
public final class Hadamard {
    private Hadamard() {}

    /** Transforms {@code x[off, off + n)} in place; {@code n} must be a power of two. */
    public static void transform(float[] x, int off, int n) {
        for (int half = 1; half < n; half <<= 1) {
            for (int block = off; block < off + n; block += half << 1) {
                for (int i = block; i < block + half; i++) {
                    float a = x[i];
                    float b = x[i + half];
                    x[i] = a + b;
                    x[i + half] = a - b;
                }
            }
        }
        float scale = (float) (1.0 / Math.sqrt(n));
        for (int i = off; i < off + n; i++) x[i] *= scale;
    }

    public static boolean isPowerOfTwo(int n) {
        return n > 0 && (n & (n - 1)) == 0;
    }
}
