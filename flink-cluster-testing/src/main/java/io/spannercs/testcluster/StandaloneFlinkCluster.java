package io.spannercs.testcluster;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A Flink session cluster run the way a distribution's {@code bin/} scripts run it: a JobManager
 * ({@code StandaloneSessionClusterEntrypoint}) and TaskManagers ({@code TaskManagerRunner}), each
 * in its own JVM, with the JVM and {@code -D} memory settings that {@code BashJavaUtils} derives
 * from {@code conf/config.yaml}. Their classpath is the Flink part of the test's Maven classpath
 * (what a distribution's {@code lib/} holds), never the job's classes: the job comes in its jar.
 * Everything binds 127.0.0.1; {@link #close} kills every JVM it started.
 */
public final class StandaloneFlinkCluster implements AutoCloseable {
    /**
     * Classpath entries (Maven repository paths) that make up Flink's {@code lib/}: Flink with its
     * own dependencies and log4j. The job's stack (Spanner client, gRPC, Avro, this project) and
     * the test frameworks stay out, so a class missing from the job jar fails here too.
     */
    private static final List<String> LIB =
            List.of(
                    "/org/apache/flink/",
                    "/org/apache/logging/log4j/log4j-api/",
                    "/org/apache/logging/log4j/log4j-core/",
                    "/org/apache/logging/log4j/log4j-slf4j2-impl/",
                    "/org/slf4j/slf4j-api/",
                    "/org/apache/commons/",
                    "/commons-",
                    "/com/esotericsoftware/",
                    "/org/objenesis/",
                    "/org/xerial/snappy/",
                    "/at/yawk/lz4/",
                    "/org/javassist/",
                    "/org/snakeyaml/",
                    "/tools/profiler/",
                    "/org/roaringbitmap/",
                    "/com/ververica/frocksdbjni/");

    /** Flink artifacts on the test classpath that a distribution's lib/ does not have. */
    private static final List<String> NOT_LIB =
            List.of(
                    "-tests.jar",
                    "/flink-test-utils",
                    "/flink-avro/",
                    "/flink-connector-test-utils",
                    // The job jar bundles it with kafka-clients; in lib/ (parent-first, without
                    // kafka-clients) it would hide the job's copy.
                    "/flink-connector-kafka/");

    /** The distribution's {@code env.java.opts.all}: Flink reflects into the JDK on Java 17. */
    private static final List<String> JAVA_OPTS =
            List.of(
                    "--add-exports=java.base/sun.net.util=ALL-UNNAMED",
                    "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
                    "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang=ALL-UNNAMED",
                    "--add-opens=java.base/java.net=ALL-UNNAMED",
                    "--add-opens=java.base/java.io=ALL-UNNAMED",
                    "--add-opens=java.base/java.nio=ALL-UNNAMED",
                    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
                    "--add-opens=java.base/java.text=ALL-UNNAMED",
                    "--add-opens=java.base/java.time=ALL-UNNAMED",
                    "--add-opens=java.base/java.util=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");

    /**
     * Options of the test run, not of a distribution: the cluster's JVMs live for a test's seconds,
     * where the C1 compiler alone costs less CPU than tiered C2 (as for the test JVMs;
     * docs/contributing.md).
     */
    private static final List<String> TEST_JAVA_OPTS = List.of("-XX:TieredStopAtLevel=1");

    /** The config's {@code env.java.opts.all} key: JVM options after the distribution's. */
    private static final String JAVA_OPTS_KEY = "env.java.opts.all:";

    private final Path home;
    private final String classpath;
    private final int restPort;
    private final List<String> extraJavaOpts = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();
    private final FlinkRest rest;
    private int taskManagers;

    private StandaloneFlinkCluster(Path home, String classpath, int restPort) {
        this.home = home;
        this.classpath = classpath;
        this.restPort = restPort;
        this.rest = new FlinkRest(restUrl());
    }

    /**
     * Deletes what an earlier run left in {@code home}, writes {@code home/conf/config.yaml} and
     * starts the JobManager (call {@link #startTaskManager} for workers).
     *
     * @param extraConfig further {@code key: value} lines for config.yaml
     */
    public static StandaloneFlinkCluster startJobManager(Path home, List<String> extraConfig)
            throws IOException {
        return startJobManager(home, extraConfig, List.of());
    }

    /**
     * As {@link #startJobManager(Path, List)}, with {@code libJars} in the cluster's {@code lib/}
     * (on the JobManager's and TaskManagers' class path), as a user who copies a connector there.
     */
    public static StandaloneFlinkCluster startJobManager(
            Path home, List<String> extraConfig, List<Path> libJars) throws IOException {
        deleteRecursively(home);
        Files.createDirectories(home.resolve("conf"));
        Files.createDirectories(home.resolve("log"));
        int restPort = freePort();
        List<String> config = new ArrayList<>();
        config.add("jobmanager.rpc.address: 127.0.0.1");
        config.add("jobmanager.rpc.port: " + freePort());
        config.add("jobmanager.bind-host: 127.0.0.1");
        config.add("rest.address: 127.0.0.1");
        config.add("rest.bind-address: 127.0.0.1");
        config.add("rest.port: " + restPort);
        config.add("taskmanager.host: 127.0.0.1");
        config.add("taskmanager.bind-host: 127.0.0.1");
        config.add("jobmanager.memory.process.size: 768m");
        config.add("taskmanager.memory.process.size: 1280m");
        config.add("taskmanager.memory.managed.size: 16m"); // no RocksDB: heap for the job
        config.add("io.tmp.dirs: " + home.resolve("tmp").toAbsolutePath());
        config.add("web.upload.dir: " + home.resolve("upload").toAbsolutePath());
        config.addAll(extraConfig);
        Files.write(home.resolve("conf/config.yaml"), config, StandardCharsets.UTF_8);
        Files.writeString(
                home.resolve("conf/log4j.properties"),
                String.join(
                        "\n",
                        "rootLogger.level = INFO",
                        "rootLogger.appenderRef.file.ref = File",
                        "appender.file.name = File",
                        "appender.file.type = File",
                        "appender.file.fileName = ${sys:log.file}",
                        "appender.file.layout.type = PatternLayout",
                        "appender.file.layout.pattern = %d{HH:mm:ss,SSS} %-5p %t %c{1} %m%n",
                        ""));
        StandaloneFlinkCluster cluster =
                new StandaloneFlinkCluster(home, classpath(libJars), restPort);
        // The distribution's scripts read this key from config.yaml; so does this cluster.
        for (String line : extraConfig) {
            if (line.startsWith(JAVA_OPTS_KEY)) {
                String opts = line.substring(JAVA_OPTS_KEY.length()).trim();
                cluster.extraJavaOpts.addAll(Arrays.asList(opts.split("\\s+")));
            }
        }
        cluster.start(
                "jobmanager",
                "GET_JM_RESOURCE_PARAMS",
                "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint");
        return cluster;
    }

    /** The JobManager's JVM (the first one started). */
    public Process jobManager() {
        return processes.get(0);
    }

    /** Starts one more TaskManager JVM. */
    public Process startTaskManager() throws IOException {
        return start(
                "taskmanager-" + taskManagers++,
                "GET_TM_RESOURCE_PARAMS",
                "org.apache.flink.runtime.taskexecutor.TaskManagerRunner");
    }

    /** {@code http://127.0.0.1:PORT}, the REST endpoint of the JobManager. */
    public String restUrl() {
        return "http://127.0.0.1:" + restPort;
    }

    /** The JobManager's REST API. */
    public FlinkRest rest() {
        return rest;
    }

    /** Where the JVMs log, for a failure message. */
    public Path logDir() {
        return home.resolve("log");
    }

    /**
     * Polls {@code condition} (every 250 ms) until it holds; fails at once if the JobManager exits
     * or the condition throws an AssertionError, and after {@code timeout} naming {@code what}, the
     * last IOException and where the JVMs log.
     */
    public void await(String what, Duration timeout, Condition condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            if (!jobManager().isAlive()) {
                throw new AssertionError(
                        "The JobManager exited with "
                                + jobManager().exitValue()
                                + " while waiting for "
                                + what
                                + "; logs in "
                                + logDir().toAbsolutePath());
            }
            try {
                if (condition.holds()) {
                    return;
                }
            } catch (IOException e) {
                last = e;
            }
            Thread.sleep(250); // polls the condition
        }
        throw new AssertionError(
                "Timed out after "
                        + timeout
                        + " waiting for "
                        + what
                        + "; logs in "
                        + logDir().toAbsolutePath(),
                last);
    }

    /** Waits up to 90 s until the TaskManagers offer {@code slots} free slots. */
    public void awaitFreeSlots(int slots) throws Exception {
        await(slots + " free slots", Duration.ofSeconds(90), () -> rest.availableSlots() >= slots);
    }

    /** Kills a JVM as a crash would: no shutdown hooks, no goodbye to the JobManager. */
    public static void kill(Process process) throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        for (Process p : processes) {
            p.destroyForcibly();
        }
        for (Process p : processes) {
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private Process start(String name, String resourceParams, String mainClass) throws IOException {
        Path conf = home.resolve("conf").toAbsolutePath();
        List<String> resources = bashJavaUtils(resourceParams, conf);
        List<String> cmd = new ArrayList<>();
        cmd.add(java());
        cmd.addAll(JAVA_OPTS);
        cmd.addAll(TEST_JAVA_OPTS);
        cmd.addAll(extraJavaOpts);
        cmd.addAll(Arrays.asList(resources.get(0).trim().split("\\s+")));
        cmd.add("-Dlog.file=" + home.resolve("log/" + name + ".log").toAbsolutePath());
        cmd.add("-Dlog4j.configurationFile=file:" + conf.resolve("log4j.properties"));
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass);
        cmd.add("--configDir");
        cmd.add(conf.toString());
        cmd.addAll(Arrays.asList(resources.get(1).trim().split("\\s+")));
        Process p =
                new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(home.resolve("log/" + name + ".out").toFile())
                        .start();
        processes.add(p);
        return p;
    }

    /**
     * The two lines {@code BashJavaUtils} prints for the scripts: JVM options (heap, direct and
     * metaspace sizes), then the {@code -D} settings that pin the derived memory sizes.
     */
    private List<String> bashJavaUtils(String command, Path conf) throws IOException {
        Process p =
                new ProcessBuilder(
                                java(),
                                "-cp",
                                classpath,
                                "org.apache.flink.runtime.util.bash.BashJavaUtils",
                                command,
                                "--configDir",
                                conf.toString())
                        .redirectErrorStream(true)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String prefix = "BASH_JAVA_UTILS_EXEC_RESULT:";
        List<String> results =
                out.lines()
                        .filter(l -> l.startsWith(prefix))
                        .map(l -> l.substring(prefix.length()))
                        .collect(Collectors.toList());
        if (results.size() != 2) {
            throw new IllegalStateException("BashJavaUtils " + command + " printed:\n" + out);
        }
        return results;
    }

    private static String classpath(List<Path> libJars) {
        List<String> entries = new ArrayList<>(List.of(flinkLibClasspath()));
        libJars.forEach(j -> entries.add(j.toAbsolutePath().toString()));
        return String.join(File.pathSeparator, entries);
    }

    private static String flinkLibClasspath() {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> e.endsWith(".jar"))
                .filter(e -> LIB.stream().anyMatch(e.replace(File.separatorChar, '/')::contains))
                .filter(
                        e ->
                                NOT_LIB.stream()
                                        .noneMatch(e.replace(File.separatorChar, '/')::contains))
                .collect(Collectors.joining(File.pathSeparator));
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** A port free now; the tiny race with other processes is accepted in tests. */
    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
