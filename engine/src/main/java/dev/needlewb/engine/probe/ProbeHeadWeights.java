package dev.needlewb.engine.probe;

import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.engine.kernel.PackedCqMatrix;

/**
 * One Needle 3 probe head as the engine runs it, from the file as stored: the probes of each cell row
 * ({@code probes[r]}, rows {@code r*k .. r*k+k-1} of the packed {@code [(L+1)*k, d]} matrix), the packed
 * queries {@code [q, d]} and projection {@code [out, q*d]} (each only ever multiplies vectors, so they stay
 * packed views), and the FP16 gain {@code [(L+1)*k]}, row bias {@code [q, (L+1)*k]} and bias {@code [out]}
 * widened to float32 (the embedding head's stored bias is zeros).
 */
public record ProbeHeadWeights(V3ProbeHead kind, int probesPerRow, PackedCqMatrix[] probes, float[] gain, PackedCqMatrix query,
                               float[] rowBias, PackedCqMatrix proj, float[] bias) {

    /** {@code (L+1) * k}: the pooled vectors the queries attend over. */
    public int pooledCount() {
        return probes.length * probesPerRow;
    }

    public int queries() {
        return query.rows();
    }

    public int outputs() {
        return proj.rows();
    }
}
