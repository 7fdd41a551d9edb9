package dev.needlewb.spark;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.launcher.JavaModuleOptions;

/**
 * A Spark standalone cluster on 127.0.0.1 for a test: a Master and one-core Workers, each a child
 * JVM on this test's class path, as a Spark home's sbin scripts would start them. Executors get the
 * workbench's classes from {@link #executorClassPath()} (a cluster of users gets them from the
 * application jar).
 */
final class StandaloneCluster implements AutoCloseable {
    static final String LOOPBACK = "127.0.0.1";

    private final Process master;
    private final List<Process> workers = new ArrayList<>();
    private final List<Path> workDirs = new ArrayList<>();
    private final int port;

    private StandaloneCluster(Process master, int port) {
        this.master = master;
        this.port = port;
    }

    static StandaloneCluster start(Path dir, int workerCount) throws IOException, InterruptedException {
        Path home = Files.createDirectories(dir.resolve("spark-home"));
        // a Spark home's jars/ folder, empty: the executors' classes come from spark.executor.extraClassPath
        Files.createDirectories(home.resolve("jars"));
        int port = freePort();
        StandaloneCluster cluster = new StandaloneCluster(
                start(home, dir.resolve("master.log"), "org.apache.spark.deploy.master.Master", "--host", LOOPBACK, "--port", Integer.toString(port),
                        "--webui-port", Integer.toString(freePort())), port);
        try {
            waitForPort(port);
            for (int w = 0; w < workerCount; w++) {
                Path work = Files.createDirectories(dir.resolve("worker-" + w));
                cluster.workDirs.add(work);
                cluster.workers.add(start(home, dir.resolve("worker-" + w + ".log"), "org.apache.spark.deploy.worker.Worker", "--host", LOOPBACK,
                        "--cores", "1", "--memory", "1g", "--work-dir", work.toString(), "--webui-port", Integer.toString(freePort()), cluster.url()));
            }
        } catch (IOException | RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    String url() {
        return "spark://" + LOOPBACK + ":" + port;
    }

    /** The class path every executor starts with: this test's. */
    static String executorClassPath() {
        return System.getProperty("java.class.path");
    }

    /** Worker {@code w}'s folder, where it keeps its executors' logs (app-ID/EXECUTOR-ID/). */
    Path workDir(int w) {
        return workDirs.get(w);
    }

    /** Kills worker {@code w} and the executors it started, at once (SIGKILL: no goodbye to the master). */
    void kill(int w) {
        Process worker = workers.get(w);
        worker.descendants().forEach(ProcessHandle::destroyForcibly);
        worker.destroyForcibly();
    }

    private static Process start(Path home, Path log, String mainClass, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(Arrays.asList(JavaModuleOptions.defaultModuleOptionArray()));
        command.addAll(List.of("-Xmx512m", "-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(Arrays.asList(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("SPARK_HOME", home.toString());
        pb.environment().put("SPARK_LOCAL_IP", LOOPBACK);
        // what a Spark home's launch scripts export; a Worker needs it to build an executor's command line
        pb.environment().put("SPARK_SCALA_VERSION", "2.13");
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        return pb.start();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
            return s.getLocalPort();
        }
    }

    private static void waitForPort(int port) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (true) {
            try (Socket s = new Socket(LOOPBACK, port)) {
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) throw new IOException("the Spark master did not listen on " + port + " within 120 s", e);
                Thread.sleep(200);
            }
        }
    }

    @Override
    public void close() {
        for (Process w : workers) {
            w.descendants().forEach(ProcessHandle::destroyForcibly);
            w.destroyForcibly();
        }
        master.destroyForcibly();
    }
}
