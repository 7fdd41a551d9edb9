package dev.needlewb.reference;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.v2.Geometry;

/** The multi-token-prediction branch of training checkpoints ({@code mtp_*}); never exported to .cact. */
record MtpWeights(Matrix combine, BlockWeights block, double[] embNorm, double[] finalNorm) {

    /** The branch, or null when the checkpoint has no {@code mtp_*} parameters. */
    static MtpWeights read(FlaxParams p, Geometry g) throws WorkbenchException {
        if (!p.hasTree("mtp_combine")) return null;
        int d = g.dModel();
        return new MtpWeights(
                new Matrix(p.get("mtp_combine/kernel", 2 * d, d), 2 * d, d),
                BlockWeights.read(p, "mtp_block", g, 0, 0),
                p.get("mtp_emb_norm/scale", d),
                p.get("mtp_final_norm/scale", d));
    }
}
