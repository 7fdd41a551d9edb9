package dev.needlewb.engine.torch;

import dev.needlewb.core.WorkbenchException;

/** Opens the torch engine on the weights a command chose for it (each call loads them afresh). */
@FunctionalInterface
public interface TorchSource {
    TorchModel open() throws WorkbenchException;
}
