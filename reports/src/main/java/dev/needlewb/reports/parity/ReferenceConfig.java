package dev.needlewb.reports.parity;

import dev.needlewb.reference.ForwardOptions;

/**
 * How the reference runs for one engine: its options (taps and window are added by the caller),
 * the same in words for reports, and the tolerance profile that fits the pair by default.
 */
public record ReferenceConfig(String description, ForwardOptions options, String defaultProfile) {}
