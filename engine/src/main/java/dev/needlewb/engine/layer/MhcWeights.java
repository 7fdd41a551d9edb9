package dev.needlewb.engine.layer;

/** The mHC scalars of every layer: {@code a_*} [layers], {@code b_pre}, {@code b_post} [layers, lanes], {@code b_res} [layers, lanes, lanes]. */
public record MhcWeights(int lanes, float[] aPre, float[] aPost, float[] aRes, float[] bPre, float[] bPost, float[] bRes) {}
