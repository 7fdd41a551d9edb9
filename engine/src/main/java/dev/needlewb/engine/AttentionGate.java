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

    /** Gates one row {@code o[oOff, + heads * v_head_dim)} in place by the row's gate {@code gate[gOff, + gateDim)}. */
    static void apply(EngineShape s, float[] o, int oOff, float[] gate, int gOff, Arithmetic.Exponential exp) {
        if (!s.headwiseGate()) {
            Rows.gate(o, oOff, gate, gOff, exp, o, oOff, s.attnDim());
            return;
        }
        for (int h = 0; h < s.numHeads(); h++) head(s, h, o, oOff + h * s.vHeadDim(), gate, gOff, exp, o, oOff + h * s.vHeadDim());
    }

    /**
     * {@code out[outOff, + v_head_dim)} = head {@code h}'s output {@code x[xOff, ...)} gated by its part of the row's gate
     * {@code gate[gOff, ...)}: the batch prefill gates head by head, as its attention produces them.
     */
    static void head(EngineShape s, int h, float[] x, int xOff, float[] gate, int gOff, Arithmetic.Exponential exp, float[] out, int outOff) {
        int vd = s.vHeadDim();
        if (!s.headwiseGate()) {
            Rows.gate(x, xOff, gate, gOff + h * vd, exp, out, outOff, vd);
            return;
        }
        float g = Norms.sigmoid(gate[gOff + h]);
        for (int i = 0; i < vd; i++) out[outOff + i] = x[xOff + i] * g;
    }
}
