package dev.needlewb.cli.scale;

import dev.needlewb.core.WorkbenchException;
import java.io.IOException;
import java.nio.file.Path;

/** What a {@link SweepTask} gets from the partition it runs in. */
public interface TaskContext {
    /** Opens a shareable object; closed when the partition ends. */
    @FunctionalInterface
    interface Opener<T extends AutoCloseable> {
        T open() throws WorkbenchException, IOException;
    }

    /** The object under {@code key}, opened by {@code opener} the first time a task of this partition asks. */
    <T extends AutoCloseable> T shared(String key, Opener<T> opener) throws WorkbenchException, IOException;

    /** True for the first task of each {@link SweepTask#group() group}: state one group built up must not reach the next. */
    boolean groupStarts();

    /** {@code file} as a path here, its SHA-256 checked against the one the sweep recorded. */
    Path local(ModelFile file) throws WorkbenchException, IOException;
}
