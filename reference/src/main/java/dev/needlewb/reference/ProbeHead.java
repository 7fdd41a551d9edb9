package dev.needlewb.reference;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;

/** A probe head: attention-pooling probes [count, d], a projection [count*d, out], an optional bias. */
record ProbeHead(double[] probes, int count, Matrix proj, double[] bias) {

    /** The head under {@code prefix}, or null when the checkpoint has none. */
    static ProbeHead read(FlaxParams p, String prefix, int d, boolean withBias) throws WorkbenchException {
        if (!p.hasTree(prefix)) return null;
        int[] probeShape = p.shape(prefix + "/probes");
        int[] projShape = p.shape(prefix + "/proj/kernel");
        if (probeShape.length != 2 || probeShape[1] != d || projShape.length != 2 || projShape[0] != probeShape[0] * d) {
            throw new WorkbenchException(ErrorKind.SHAPE_MISMATCH, "parameter " + prefix + ": probes " + java.util.Arrays.toString(probeShape)
                    + " and proj/kernel " + java.util.Arrays.toString(projShape) + " do not fit d_model " + d);
        }
        int count = probeShape[0];
        int out = projShape[1];
        return new ProbeHead(p.get(prefix + "/probes", count, d), count,
                new Matrix(p.get(prefix + "/proj/kernel", count * d, out), count * d, out),
                withBias ? p.get(prefix + "/proj/bias", out) : null);
    }

    int outDim() {
        return proj.out();
    }
}
