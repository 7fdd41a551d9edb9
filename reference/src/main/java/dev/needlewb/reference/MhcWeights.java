package dev.needlewb.reference;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.v2.Geometry;

/**
 * The mHC lane mixing of one layer. {@code phi} holds phi_pre | phi_post | phi_res side by side
 * ([lanes*d, 2*lanes + lanes^2]) so one product gives all three projections.
 */
public record MhcWeights(Matrix phi, double aPre, double aPost, double aRes, double[] bPre, double[] bPost, double[] bRes) {

    static MhcWeights read(FlaxParams p, Geometry g, int layer) throws WorkbenchException {
        return read(p, g.mhcLanes(), g.numLayers(), g.dModel(), layer);
    }

    /** Layer {@code layer} of the {@code stack/mhc_*} parameters of {@code layers} layers, {@code n} lanes of width {@code d}. */
    public static MhcWeights read(FlaxParams p, int n, int layers, int d, int layer) throws WorkbenchException {
        int rows = n * d;
        double[] pre = p.layer("stack/mhc_phi_pre", layer, layers, rows, n);
        double[] post = p.layer("stack/mhc_phi_post", layer, layers, rows, n);
        double[] res = p.layer("stack/mhc_phi_res", layer, layers, rows, n * n);
        int cols = 2 * n + n * n;
        double[] phi = new double[rows * cols];
        for (int r = 0; r < rows; r++) {
            System.arraycopy(pre, r * n, phi, r * cols, n);
            System.arraycopy(post, r * n, phi, r * cols + n, n);
            System.arraycopy(res, r * n * n, phi, r * cols + 2 * n, n * n);
        }
        return new MhcWeights(new Matrix(phi, rows, cols),
                p.get("stack/mhc_a_pre", layers)[layer],
                p.get("stack/mhc_a_post", layers)[layer],
                p.get("stack/mhc_a_res", layers)[layer],
                p.layer("stack/mhc_b_pre", layer, layers, n),
                p.layer("stack/mhc_b_post", layer, layers, n),
                p.layer("stack/mhc_b_res", layer, layers, n, n));
    }
}
