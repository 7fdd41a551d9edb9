package dev.needlewb.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A fresh JVM running this workbench (same Java, same class path, so the torch engine too when this
 * process has it) at a chosen vector width: the kernels fix their width when they load, so a command
 * at another width needs a process of its own. On a machine narrower than the width asked for, the
 * kernels run the Vector API's Java fallback: the same semantics, slower.
 */
final class ChildJvm {
    /** Heap of one child: a sweep's models are small; three children side by side stay within a few GB. */
    private static final String HEAP = "-Xmx1g";

    private ChildJvm() {}

    /** The command line of {@code needle-wb args...} in a JVM of its own with {@code jvmOptions}. */
    static List<String> command(List<String> jvmOptions, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of("--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", HEAP));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(args);
        return command;
    }
}
