/**
 * The float64 reference of upstream Needle 3 ({@code usserwout/needle3}, model code 3.0.1): every
 * operation of {@code architecture.py}'s forward in upstream's order, in double precision, matching
 * the float64 golden outputs ({@code golden/v3mini}) to about 1e-15 relative, with a cached decode
 * path upstream does not have. Entry point: {@link dev.needlewb.reference.v3.V3Model#load}. It reuses
 * the generation-independent pieces of {@link dev.needlewb.reference} (the mHC stack, the engram
 * site, BLAS products, norms, fake quantizers, taps) and adds Needle 3's attention (per-layer
 * windows, QKV conv taps, qk and v head dims, per-head A8 on Q, K and V), its Kronecker MLP and its
 * probe heads. See docs/reference-v3.md.
 */
package dev.needlewb.reference.v3;
