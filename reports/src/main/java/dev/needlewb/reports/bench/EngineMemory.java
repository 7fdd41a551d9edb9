package dev.needlewb.reports.bench;

/**
 * What the memory budget compares: the JVM's resident set just before the first engine
 * load (its own baseline: heap in use, code cache, classes) and the engine's allowance on top of
 * it, the model file (read into memory) plus the KV cache.
 */
public record EngineMemory(long jvmBaselineKib, long fileBytes, long kvBytes) {
    public long budgetBytes() {
        return fileBytes + kvBytes;
    }
}
