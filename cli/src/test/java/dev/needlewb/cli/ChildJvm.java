package dev.needlewb.cli;

import java.util.ArrayList;
import java.util.List;

/** {@code needle-wb} in a JVM of its own, for what only a separate process shows: signals, kills, exit codes, files left. */
final class ChildJvm {
    private ChildJvm() {}

    /** A process running {@code needle-wb args}: this JVM's java and class path, the vector module, native access. */
    static ProcessBuilder of(String... args) {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(), "-Xmx1g",
                "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true);
    }
}
