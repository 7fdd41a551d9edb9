package dev.needlewb.cli;

import dev.needlewb.converter.finite.NonFinitePolicy;
import picocli.CommandLine.Option;

/** {@code --allow-nonfinite}, of every command that computes with weights or writes them. */
final class NonFiniteOption {
    @Option(names = "--allow-nonfinite",
            description = "Read weights holding NaN or infinity (FP16/FP32 values, CQ group norms), refused by default: no trained model has them. For looking at a broken file.")
    boolean allow;

    NonFinitePolicy policy() {
        return NonFinitePolicy.allowIf(allow);
    }
}
