package dev.needlewb.engine;

import dev.needlewb.engine.kernel.PackedCqMatrix;
import dev.needlewb.engine.layer.Mlp;

/**
 * One block's weights: CQ views for the projections, widened float32 copies of the small FP16 vectors, the
 * QKV conv taps {@code [taps, q|k|v]} (null without a conv) and the block's MLP.
 */
record LayerWeights(
        float[] normIn,
        PackedCqMatrix q,
        PackedCqMatrix k,
        PackedCqMatrix v,
        float[] qkvTaps,
        float[] qNorm,
        float[] kNorm,
        PackedCqMatrix gate,
        PackedCqMatrix out,
        float[] postNorm,
        float attnGate,
        float[] preHada,
        Mlp mlp,
        PackedCqMatrix phiPre,
        PackedCqMatrix phiPost,
        PackedCqMatrix phiRes) {}
