package dev.needlewb.engine;

import dev.needlewb.engine.layer.Arithmetic;
import dev.needlewb.engine.layer.Norms;
import dev.needlewb.engine.layer.Rows;

/**
 * The output gate of attention: {@code o *= sigmoid(gate)} elementwise over every head's value channels (Needle 2,
 * and Needle 3's default), or one {@code sigmoid(gate[h])} per head (Needle 3's headwise gate, {@code gate_proj [H, d]}).
 */
final class AttentionGate {
    private AttentionGate() {}

    /** Gates one row {@code o[oOff, + heads * v_head_dim)} in place by {@code gate[gOff, + gateDim)}. */
    static void apply(EngineShape s, float[] o, int oOff, float[] gate, int gOff, Arithmetic.Exponential exp) {
        if (!s.headwiseGate()) {
            Rows.gate(o, oOff, gate, gOff, exp, o, oOff, s.attnDim());
            return;
        }
        int vd = s.vHeadDim();
        for (int h = 0; h < s.numHeads(); h++) {
            float g = Norms.sigmoid(gate[gOff + h]);
            for (int i = oOff + h * vd; i < oOff + (h + 1) * vd; i++) o[i] *= g;
        }
    }
}
