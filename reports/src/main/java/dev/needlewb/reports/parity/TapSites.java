package dev.needlewb.reports.parity;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Splits tap names into layer and site ({@code layer03.attn.q} is site {@code attn.q} of layer 3) and names the operation that produces each site. */
final class TapSites {
    private static final Pattern LAYERED = Pattern.compile("layer(\\d+)\\.(.+)");

    private static final Map<String, String> OPERATIONS = Map.ofEntries(
            Map.entry("embed", "embedding row decode times the embedding scale"),
            Map.entry("lanes_in", "mHC lane state entering the layer"),
            Map.entry("hpre", "mHC pre-mix weights (phi_pre projection, sigmoid)"),
            Map.entry("u", "mHC read-in: lanes mixed into the block input"),
            Map.entry("engram_alpha", "Engram gate sigmoid(rms(u) . rms(key) / sqrt(d))"),
            Map.entry("attn.q_conv", "q projection through the QKV conv taps (Needle 3)"),
            Map.entry("attn.k_conv", "k projection through the QKV conv taps (Needle 3)"),
            Map.entry("attn.v_conv", "v projection through the QKV conv taps (Needle 3)"),
            Map.entry("attn.q", "q projection, q norm and RoPE"),
            Map.entry("attn.k", "k projection, k norm and RoPE"),
            Map.entry("attn.v", "v projection"),
            Map.entry("attn.out", "attention over the KV cache (softmax, values) and out_proj"),
            Map.entry("mlp.in", "pre-MLP norm (pre_hada)"),
            Map.entry("mlp.out", "MLP output (Needle 3: the Kronecker stages)"),
            Map.entry("block_out", "block body: post norm, gated attention residual, Hadamard MLP"),
            Map.entry("hpost", "mHC post weights (phi_post projection)"),
            Map.entry("sinkhorn", "mHC residual mixing matrix (Sinkhorn iterations)"),
            Map.entry("lanes_out", "mHC write-back: residual mix of lanes plus the block output"),
            Map.entry("final.norm", "lane mean and final norm"),
            Map.entry("logits", "output projection (tied embedding)"),
            Map.entry("head.confidence", "confidence probe head over the sequence's hidden cells (raw logit)"),
            Map.entry("head.router", "router probe head over the sequence's hidden cells (3 logits)"),
            Map.entry("head.embedding", "embedding probe head over the sequence's hidden cells (unit vector)"));

    private TapSites() {}

    /** The layer number, or -1 for taps outside the layer stack. */
    static int layer(String tap) {
        Matcher m = LAYERED.matcher(tap);
        return m.matches() ? Integer.parseInt(m.group(1)) : -1;
    }

    /** The name without its layer prefix. */
    static String site(String tap) {
        Matcher m = LAYERED.matcher(tap);
        return m.matches() ? m.group(2) : tap;
    }

    static String operation(String tap) {
        return OPERATIONS.getOrDefault(site(tap), "unnamed operation");
    }
}
