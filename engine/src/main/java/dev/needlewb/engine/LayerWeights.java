package dev.needlewb.engine;

import dev.needlewb.engine.kernel.PackedCqMatrix;

/** One block's weights: CQ views for the projections, widened float32 copies of the small FP16 vectors. */
record LayerWeights(
        float[] normIn,
        PackedCqMatrix q,
        PackedCqMatrix k,
        PackedCqMatrix v,
        float[] qNorm,
        float[] kNorm,
        PackedCqMatrix gate,
        PackedCqMatrix out,
        float[] postNorm,
        float attnGate,
        float[] preHada,
        float[] d1,
        float[] d2,
        float[] d3,
        PackedCqMatrix phiPre,
        PackedCqMatrix phiPost,
        PackedCqMatrix phiRes) {}
