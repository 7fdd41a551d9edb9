package dev.needlewb.converter.v3;

/** One Needle 3 probe head's sizes: {@code probes} k per cell row, {@code queries} q, {@code out} projection rows. */
public record V3HeadShape(V3ProbeHead head, int probes, int queries, int out) {}
