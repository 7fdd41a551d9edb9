package dev.needlewb.engine;

/**
 * Receives the engine's named intermediates, one position at a time, with the reference's names
 * (without its leading T axis): {@code embed} [d]; {@code layerNN.lanes_in} [lanes, d];
 * {@code layerNN.hpre} [lanes]; {@code layerNN.u} [d]; {@code layerNN.engram_alpha} [1] (sites
 * only); {@code layerNN.attn.q} [heads, head_dim], {@code .attn.k} / {@code .attn.v}
 * [kv_heads, head_dim] (q and k after norm and RoPE, before any KV rounding); {@code layerNN.attn.out}
 * [d] (after out_proj); {@code layerNN.block_out} [d]; {@code layerNN.hpost} [lanes];
 * {@code layerNN.sinkhorn} [lanes, lanes]; {@code layerNN.lanes_out} [lanes, d]; {@code final.norm}
 * [d]; {@code logits} [vocab]. A session without a sink records nothing and pays one null check
 * per tap site.
 */
public interface TapSink {
    /** Whether {@code name} should be recorded (asked before any copy is made). */
    boolean wants(String name);

    /** A copy of the values at {@code position}, row-major in {@code shape}. */
    void record(String name, int position, float[] values, int... shape);
}
