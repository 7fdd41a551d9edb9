package dev.needlewb.converter.v2;

/** The shape of one probe head: P probes and {@code out} projection rows. */
public record HeadShape(ProbeHead head, int probes, int out) {}
