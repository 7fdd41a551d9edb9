package dev.needlewb.converter.convert;

import dev.needlewb.converter.finite.NonFinitePolicy;
import java.nio.file.Path;

/**
 * One conversion: input and output files (formats from their names) and the options.
 *
 * @param bitsMap CQ widths for a fresh .cact (null: the checkpoint config's weight_bits, else 4)
 * @param lora an upstream LoRA adapter merged into a checkpoint input first
 * @param base a .cact whose header, tokenizer and unchanged blobs a .cact output reuses
 * @param tokenizer tok.model or a .cact supplying the tokenizer of a fresh .cact
 * @param config a checkpoint supplying config, step and run (and leaves a .cact lacks) for a
 *     checkpoint output, or the geometry of a state dict input without {@code base}
 * @param dtype null (keep each tensor's dtype), "f32" or "f16" for state-dict outputs and .cact inputs
 * @param group the CQ group of a fresh .cact, 64 or 128 (null: 128, upstream build_export's default)
 * @param nonFinite whether inputs holding NaN or infinity are refused (the default) or converted
 */
public record ConvertRequest(Path input, Path output, String bitsMap, Path lora, Path base, Path tokenizer, Path config,
        String dtype, boolean allowExtraParams, Integer group, NonFinitePolicy nonFinite) {

    /** A request with the default CQ group, refusing non-finite weights. */
    public ConvertRequest(Path input, Path output, String bitsMap, Path lora, Path base, Path tokenizer, Path config,
            String dtype, boolean allowExtraParams) {
        this(input, output, bitsMap, lora, base, tokenizer, config, dtype, allowExtraParams, null, NonFinitePolicy.REFUSE);
    }

    /** The files the output is made from (never overwritten). */
    public Path[] inputs() {
        return java.util.stream.Stream.of(input, lora, base, tokenizer, config).filter(java.util.Objects::nonNull).toArray(Path[]::new);
    }
}
