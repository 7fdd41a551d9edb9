package dev.needlewb.converter.cq;

/**
 * The float32 summation order upstream's dequantizer used. {@code export._cq_unpack} computes
 * {@code (codebook[idx] * norm) @ H} with numpy on an {@code [rows, G, n]} array, G groups per
 * row: numpy loops over rows and hands each {@code [G, n] @ [n, n]} product to OpenBLAS, which
 * for G = 1 runs sgemv and otherwise sgemm. With the Haswell/Zen kernels (those that produced the
 * golden data) and one thread, every output is one of the orders below; which one depends on G,
 * the group's position inside the kernel's column chunk, and (for 12-wide chunks) the output
 * column. Found by reading the kernels and confirmed bit for bit against numpy for G = 1..20 and
 * n = 64, 128 (G > 20 can take OpenBLAS's threaded path, whose split depends on the machine).
 */
public enum NumpyMatmulOrder {
    /** sgemv: per block of 8 k, FMA into a zeroed temporary, then add it to the output. */
    GEMV_BLOCKS_OF_8,
    /** sgemm 8x4 kernel: FMA even k and odd k into two accumulators, then add them. */
    EVEN_ODD,
    /** sgemm narrow kernels: one FMA accumulator over k = 0..n-1. */
    SEQUENTIAL,
    /** sgemm 16x6 skewed kernel, first half of a 12-wide chunk: EVEN_ODD for the first and last 8 columns, SEQUENTIAL between. */
    EVEN_ODD_EDGES;

    /** Columns at each end computed EVEN_ODD by {@link #EVEN_ODD_EDGES}. */
    public static final int EDGE_COLUMNS = 8;

    /** The order of each of the {@code groupsPerRow} groups of one row. */
    public static NumpyMatmulOrder[] forRow(int groupsPerRow) {
        NumpyMatmulOrder[] orders = new NumpyMatmulOrder[groupsPerRow];
        if (groupsPerRow == 1) {
            orders[0] = GEMV_BLOCKS_OF_8;
            return orders;
        }
        // OpenBLAS level-3 driver splits the G columns into chunks of 12, 8 or 4 (3, 2, 4 times
        // UNROLL_N = 4) while enough remain; a remainder under 4 goes to the narrow kernels.
        int g = 0;
        while (g < groupsPerRow) {
            int left = groupsPerRow - g;
            int chunk = left >= 12 ? 12 : left >= 8 ? 8 : left > 4 ? 4 : left;
            for (int i = 0; i < chunk; i++) {
                orders[g + i] = switch (chunk) {
                    case 12 -> i < 6 ? EVEN_ODD_EDGES : SEQUENTIAL;
                    case 8, 4 -> EVEN_ODD;
                    default -> SEQUENTIAL;
                };
            }
            g += chunk;
        }
        return orders;
    }
}
