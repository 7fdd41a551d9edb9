package dev.needlewb.cli.scale;

import dev.needlewb.core.WorkbenchException;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Runs one partition's tasks in order in this process, sharing what they open and closing it at the
 * end: the same code wherever the partition runs (this process, a Spark executor).
 */
public final class PartitionRun implements TaskContext {
    /** Where a task finds a sweep's file on the machine it runs on. */
    @FunctionalInterface
    public interface FileFinder extends Serializable {
        Path find(ModelFile file);
    }

    /** The file at the path the driver gave: a machine that shares it, or the driver's own. */
    public static final FileFinder SHARED_PATH = file -> Path.of(file.path());

    private final FileFinder finder;
    private final Map<String, AutoCloseable> shared = new LinkedHashMap<>();
    private boolean groupStarts;

    private PartitionRun(FileFinder finder) {
        this.finder = finder;
    }

    /** Runs {@code tasks} (one partition) in order; {@code onTask} hears of each result as it comes. */
    public static <R extends Serializable> List<R> run(List<? extends SweepTask<R>> tasks, FileFinder finder, Consumer<R> onTask)
            throws WorkbenchException, IOException {
        List<R> results = new ArrayList<>(tasks.size());
        PartitionRun context = new PartitionRun(finder);
        try {
            String group = null;
            for (SweepTask<R> t : tasks) {
                context.groupStarts = !t.group().equals(group);
                group = t.group();
                R r = t.run(context);
                results.add(r);
                onTask.accept(r);
            }
        } catch (Throwable t) {
            try {
                context.closeAll();
            } catch (Exception e) {
                t.addSuppressed(e);
            }
            throw t;
        }
        context.closeAll();
        return results;
    }

    @Override
    public <T extends AutoCloseable> T shared(String key, Opener<T> opener) throws WorkbenchException, IOException {
        @SuppressWarnings("unchecked")
        T found = (T) shared.get(key);
        if (found == null) {
            found = opener.open();
            shared.put(key, found);
        }
        return found;
    }

    @Override
    public boolean groupStarts() {
        return groupStarts;
    }

    @Override
    public Path local(ModelFile file) throws WorkbenchException, IOException {
        return file.checked(finder.find(file));
    }

    /** Closes in reverse opening order (an engine before the model file it reads). */
    private void closeAll() throws WorkbenchException, IOException {
        List<AutoCloseable> open = new ArrayList<>(shared.values());
        shared.clear();
        Exception first = null;
        for (int i = open.size() - 1; i >= 0; i--) {
            try {
                open.get(i).close();
            } catch (Exception e) {
                if (first == null) first = e;
            }
        }
        switch (first) {
            case null -> {}
            case WorkbenchException w -> throw w;
            case IOException io -> throw io;
            case RuntimeException r -> throw r;
            default -> throw new IllegalStateException(first);
        }
    }
}
