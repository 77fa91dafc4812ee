package io.spannercs.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.SpannerEmulator;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The self-contained SQL jar alone, beside Flink's own jars and nothing else of ours, in a fresh
 * JVM: Flink finds the {@code spanner-cdc} factory in it, and a bounded query against the emulator
 * returns what was written. Also checks the jar's relocations. Runs after {@code package} (it needs
 * the jar), as a failsafe integration test.
 */
class SqlJarClassLoaderIT {
    private static final Path JAR = Paths.get("target", "flink-sql-connector-spanner-cs.jar");

    @TempDir Path tmp;

    @Test
    void relocatesGrpcProtobufAndGuava() throws Exception {
        assertThat(JAR).exists();
        try (JarFile jar = new JarFile(JAR.toFile())) {
            List<String> unrelocated = new ArrayList<>();
            jar.stream()
                    .map(e -> e.getName())
                    .filter(
                            n ->
                                    n.startsWith("io/grpc/")
                                            || n.startsWith("com/google/protobuf/")
                                            || n.startsWith("com/google/common/"))
                    .forEach(unrelocated::add);
            assertThat(unrelocated).isEmpty();
            assertThat(jar.getEntry("io/spannercs/shaded/com/google/protobuf/Message.class"))
                    .isNotNull();
            assertThat(jar.getEntry("io/spannercs/shaded/io/grpc/ManagedChannel.class"))
                    .isNotNull();
            assertThat(
                            new String(
                                    jar.getInputStream(
                                                    jar.getEntry(
                                                            "META-INF/services/org.apache.flink"
                                                                    + ".table.factories.Factory"))
                                            .readAllBytes(),
                                    StandardCharsets.UTF_8))
                    .contains("io.spannercs.flink.table.SpannerCdcDynamicTableFactory");
        }
    }

    @Test
    void runsABoundedQueryWithOnlyTheSqlJarAndFlink() throws Exception {
        try (SpannerEmulator emulator =
                SpannerEmulator.builder()
                        .ddl(
                                "CREATE TABLE Items (Id INT64 NOT NULL, Name STRING(MAX)) PRIMARY"
                                        + " KEY (Id);\n"
                                        + "CREATE CHANGE STREAM items_cs FOR ALL OPTIONS"
                                        + " (value_capture_type = 'NEW_ROW_AND_OLD_VALUES');\n")
                        .start()) {
            Instant start = Instant.now();
            ItemRows.write(emulator, 5);
            Instant end = Instant.now();

            String ddl =
                    "CREATE TABLE items (Id BIGINT, Name STRING) WITH ("
                            + "'connector' = 'spanner-cdc',"
                            + String.format(
                                    "'project' = '%s', 'instance' = '%s', 'database' = '%s',",
                                    emulator.projectId(),
                                    emulator.instanceId(),
                                    emulator.databaseId())
                            + "'change-stream' = 'items_cs', 'table' = 'Items',"
                            + "'emulator-host' = '"
                            + emulator.hostPort()
                            + "',"
                            + "'scan.startup.mode' = 'timestamp',"
                            + "'scan.startup.timestamp' = '"
                            + start
                            + "',"
                            + "'scan.end.timestamp' = '"
                            + end
                            + "')";
            String output = runDriver(ddl, "SELECT Id, Name FROM items");
            List<String> rows = output.lines().filter(l -> l.startsWith("ROW ")).sorted().toList();
            assertThat(rows)
                    .as(output)
                    .containsExactly(
                            "ROW +I +I[1, item-1]",
                            "ROW +I +I[2, item-2]",
                            "ROW +I +I[3, item-3]",
                            "ROW +I +I[4, item-4]",
                            "ROW +I +I[5, item-5]");
        }
    }

    /**
     * A planning error that comes from the Spanner client (here: no such database) reaches the user
     * as a root cause that names the options and carries none of the relocated class names
     * (io.spannercs.shaded...) of the client's exceptions.
     */
    @Test
    void aPlanningErrorFromTheClientNamesNoRelocatedClass() throws Exception {
        try (SpannerEmulator emulator =
                SpannerEmulator.builder()
                        .ddl(
                                "CREATE TABLE Items (Id INT64 NOT NULL) PRIMARY KEY (Id);\n"
                                        + "CREATE CHANGE STREAM items_cs FOR ALL;\n")
                        .start()) {
            String ddl =
                    "CREATE TABLE items (Id BIGINT) WITH ('connector' = 'spanner-cdc',"
                            + String.format(
                                    "'project' = '%s', 'instance' = '%s', 'database' = 'no-such-db',",
                                    emulator.projectId(), emulator.instanceId())
                            + "'change-stream' = 'items_cs', 'table' = 'Items', 'emulator-host' = '"
                            + emulator.hostPort()
                            + "')";
            String output = runDriver(ddl, "SELECT Id FROM items");
            List<String> roots = output.lines().filter(l -> l.startsWith("ROOT CAUSE ")).toList();
            assertThat(roots).as(output).hasSize(1);
            assertThat(roots.get(0))
                    .contains("ValidationException", "'database'", "NOT_FOUND", "no-such-db")
                    .doesNotContain("io.spannercs.shaded", "io.grpc", "com.google.");
        }
    }

    private static final Duration DRIVER_LIMIT = Duration.ofMinutes(6);

    /** Runs {@link SqlJarDriver} in its own JVM on the isolated classpath; returns its output. */
    private String runDriver(String... statements) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-cp");
        command.add(isolatedClasspath());
        command.add(SqlJarDriver.class.getName());
        command.addAll(List.of(statements));
        Path log = Files.createTempFile(tmp, "driver", ".log");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("SPANNER_DISABLE_BUILTIN_METRICS", "true");
        Process p = pb.redirectOutput(log.toFile()).start();
        try {
            // Bounds a hang only: a quiet machine runs the driver in under a minute, two builds at
            // once took more than 150 s.
            boolean finished = p.waitFor(DRIVER_LIMIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(finished)
                    .as("driver finished within %s:%n%s", DRIVER_LIMIT, Files.readString(log))
                    .isTrue();
        } finally {
            p.destroyForcibly();
        }
        return Files.readString(log);
    }

    /**
     * The SQL jar, the driver's class folder, and the Flink jars (with their own dependencies) of
     * this test's classpath: nothing of ours besides the SQL jar, and no Spanner client, gRPC,
     * protobuf or Guava outside it.
     */
    private static String isolatedClasspath() {
        List<String> out = new ArrayList<>();
        out.add(JAR.toAbsolutePath().toString());
        out.add(Paths.get("target", "test-classes").toAbsolutePath().toString());
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String e = entry.replace('\\', '/');
            boolean ours = e.contains("/io/spannercs/") || e.contains("/target/");
            boolean google =
                    e.contains("/com/google/")
                            || e.contains("/io/grpc/")
                            || e.contains("/io/opencensus/")
                            || e.contains("/io/opentelemetry/");
            if (!ours && !google) {
                out.add(entry);
            }
        }
        return String.join(File.pathSeparator, out);
    }
}
