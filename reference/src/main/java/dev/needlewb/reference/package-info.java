/**
 * The float64 reference of the upstream Needle model (SPEC sections 2 and 3): every operation of
 * upstream {@code architecture.py} and {@code decode.py} in upstream's order, in double precision,
 * so that it matches the float64 golden outputs to about 1e-15 relative. Entry point:
 * {@link dev.needlewb.reference.ReferenceModel#fromFlaxParams}.
 *
 * <p>One code path serves both the full-sequence forward and the cached decoder: the full sequence
 * is a single "append" of all tokens to an empty KV cache under the full-sequence mask (which also
 * gates the engram n-grams and conv taps), the decoder appends to a persistent cache under the
 * causal/window/sink mask with causal-only engram validity, as upstream's two paths do.
 *
 * <p>Dense products go to OpenBLAS dgemm; everything else is plain loops (Vector API for the two
 * attention inner loops). The fake quantizers ({@code quant=True}: A8 activations, CQ KV) and the
 * production int8 KV emulation report decisions within 1e-9 of a rounding boundary to a
 * {@link dev.needlewb.reference.QuantWatch}.
 */
package dev.needlewb.reference;
