package io.spannercs.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Dialect;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import com.google.cloud.spanner.Statement;
import io.spannercs.emulator.testing.Await;
import io.spannercs.emulator.testing.EmulatorClients;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EmulatorMainTest {
    private static final Pattern LISTENING = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+)");

    private record Run(int code, String output) {
        List<String> lines() {
            return output.lines().toList();
        }
    }

    private static Run run(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int code = EmulatorMain.run(args, out);
        return new Run(code, bytes.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "--port abc                                  | --port",
                "--port 70000                                | --port",
                "--port                                      | --port needs a value",
                "--port --seed 1                             | --port needs a value",
                "--bogus 1                                   | unknown flag --bogus",
                "stray                                       | unexpected argument 'stray'",
                "--duration 5                                | --duration needs a unit, e.g. 10s",
                "--churn-interval 10                         | --churn-interval needs a unit",
                "--stats-interval 0                          | --stats-interval needs a unit, e.g. 0s",
                "--duration 5x                               | --duration '5x' is not a duration",
                "--duration 0s                               | --duration",
                "--churn-interval 5 s                        | --churn-interval",
                "--stats-interval soon                       | --stats-interval",
                "--workload heavy                            | --workload",
                "--rate -3                                   | --rate",
                "--rate fast                                 | --rate",
                "--seed 1.5                                  | --seed",
                "--initial-partitions 0                      | --initial-partitions",
                "--initial-partitions 4 --max-partitions 2   | --max-partitions",
                "--project a/b                               | --project",
                "--ddl /nonexistent/schema.sql               | --ddl",
                "--dialect mysql                             | --dialect",
                "--dialect postgresql                        | --dialect postgresql needs --ddl",
                "--edge-cases bogus                          | --edge-cases: unknown edge case 'bogus'",
                "--edge-cases shared-timestamps,,stream-limit | --edge-cases: empty edge case name",
                "--edge-cases                                | --edge-cases needs a value",
                "--version-retention-period 30m              | it must be between 1h and 7d",
                "--version-retention-period 8d               | --version-retention-period",
                "--version-retention-period soon             | --version-retention-period",
            })
    void badFlagsNameTheFlagAndExitWith2(String args, String expected) {
        Run r = run(args.trim().split("\\s+"));
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.lines().get(0)).startsWith("error: ").contains(expected);
        assertThat(r.output()).doesNotContain("listening on");
    }

    @Test
    void usageFollowsFlagErrors() {
        Run r = run("--port", "x");
        assertThat(r.output()).contains("Usage: java -jar spanner-cs-emulator.jar");
    }

    @Test
    void invalidSchemaIsABadDdlFlag(@TempDir Path dir) throws Exception {
        Path ddl = dir.resolve("bad.sql");
        Files.writeString(ddl, "CREATE TABLE T (K WHATEVER) PRIMARY KEY (K)");
        Run r = run("--ddl", ddl.toString(), "--port", "0");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.output()).contains("--ddl").contains("WHATEVER");
    }

    @Test
    void helpExplainsEveryFlag() {
        Run r = run("--help");
        assertThat(r.code()).isZero();
        for (String flag :
                List.of(
                        "--port",
                        "--project",
                        "--instance",
                        "--database",
                        "--ddl",
                        "--dialect",
                        "--churn-interval",
                        "--seed",
                        "--workload",
                        "--rate",
                        "--initial-partitions",
                        "--max-partitions",
                        "--stats-interval",
                        "--duration",
                        "--edge-cases",
                        "--version-retention-period",
                        "--help")) {
            assertThat(r.output()).contains("  " + flag + " ");
        }
    }

    @Test
    void badEdgeCaseNamesListTheValidOnes() {
        Run r = run("--edge-cases", "shared-timestamps,nope");
        assertThat(r.code()).isEqualTo(2);
        String first = r.lines().get(0);
        for (EdgeCase c : EdgeCase.values()) {
            assertThat(first).contains(c.cliName());
        }
        assertThat(r.output()).contains("--edge-cases LIST");
    }

    @Test
    void parsesEdgeCases() throws Exception {
        assertThat(EmulatorMain.Options.parse(new String[0]).edgeCases).isEqualTo(EdgeCases.none());
        assertThat(EmulatorMain.Options.parse(new String[] {"--edge-cases", "all"}).edgeCases)
                .isEqualTo(EdgeCases.all());
        assertThat(EmulatorMain.Options.parse(new String[] {"--edge-cases=none"}).edgeCases)
                .isEqualTo(EdgeCases.none());
        assertThat(
                        EmulatorMain.Options.parse(
                                        new String[] {
                                            "--edge-cases", "Shared-Timestamps, stream-limit"
                                        })
                                .edgeCases)
                .isEqualTo(EdgeCases.of(EdgeCase.SHARED_TIMESTAMPS, EdgeCase.STREAM_LIMIT));
    }

    @Test
    void runsWithEveryEdgeCase() {
        Run r =
                run(
                        "--port",
                        "0",
                        "--duration",
                        "1s",
                        "--workload",
                        "demo",
                        "--stats-interval",
                        "0s",
                        "--churn-interval",
                        "200ms",
                        "--edge-cases",
                        "all");
        assertThat(r.code()).as(r.output()).isZero();
        assertThat(r.lines().get(0)).matches(LISTENING);
        assertThat(r.lines().get(1)).endsWith("; edge cases all");
        assertThat(r.lines().get(r.lines().size() - 1)).isEqualTo("stopped");
    }

    @Test
    void parsesTheVersionRetentionPeriod() throws Exception {
        assertThat(EmulatorMain.Options.parse(new String[0]).versionRetention.text())
                .isEqualTo("1h");
        assertThat(
                        EmulatorMain.Options.parse(
                                        new String[] {"--version-retention-period", "2d"})
                                .versionRetention
                                .period())
                .isEqualTo(java.time.Duration.ofDays(2));
        assertThat(
                        EmulatorMain.Options.parse(new String[] {"--version-retention-period=90m"})
                                .versionRetention
                                .period())
                .isEqualTo(java.time.Duration.ofMinutes(90));
    }

    @Test
    void parsesDurations() throws Exception {
        assertThat(EmulatorMain.Options.duration("--d", "500ms", false).toMillis()).isEqualTo(500);
        assertThat(EmulatorMain.Options.duration("--d", "5s", false).toMillis()).isEqualTo(5000);
        assertThat(EmulatorMain.Options.duration("--d", "2m", false).toSeconds()).isEqualTo(120);
        assertThat(EmulatorMain.Options.duration("--d", "1h", false).toMinutes()).isEqualTo(60);
        assertThat(EmulatorMain.Options.duration("--d", "0s", true).isZero()).isTrue();
        // The demo and the job's forms (Flink's units) work here too.
        assertThat(EmulatorMain.Options.duration("--d", "2min", false).toSeconds()).isEqualTo(120);
        assertThat(EmulatorMain.Options.duration("--d", "10 s", false).toSeconds()).isEqualTo(10);
        assertThat(EmulatorMain.Options.duration("--d", "1d", false).toHours()).isEqualTo(24);
    }

    @Test
    void aDurationWithoutAUnitIsAnErrorNamingTheFlag() {
        for (String flag : List.of("--churn-interval", "--stats-interval", "--duration")) {
            Run r = run(flag, "10");
            assertThat(r.code()).as(flag).isEqualTo(EmulatorMain.EXIT_USAGE);
            assertThat(r.lines().get(0)).startsWith("error: " + flag + " needs a unit, e.g. ");
        }
    }

    @Test
    void runsTheDemoWorkloadAndPrintsStats() {
        Run r =
                run(
                        "--port",
                        "0",
                        "--duration",
                        "2s",
                        "--workload",
                        "demo",
                        "--stats-interval",
                        "500ms",
                        "--churn-interval",
                        "300ms");
        assertThat(r.code()).as(r.output()).isZero();
        List<String> lines = r.lines();
        assertThat(lines.get(0)).matches(LISTENING);
        List<String> stats = lines.stream().filter(l -> l.endsWith(" changes/s")).toList();
        assertThat(stats).as(r.output()).hasSizeBetween(2, 5);
        assertThat(stats.get(stats.size() - 1))
                .matches("\\[\\d+\\.\\ds\\] rows Customers=\\d+ Orders=\\d+ \\| .*")
                .contains("Orders_cs: ")
                .contains("(MUTABLE_KEY_RANGE)")
                .contains("Orders_legacy_cs: ")
                .contains("(IMMUTABLE_KEY_RANGE)");
        assertThat(stats).anyMatch(l -> !l.endsWith(" 0.0 changes/s"));
        assertThat(lines.get(lines.size() - 1)).isEqualTo("stopped");
    }

    @Test
    void servesClientsWithACustomSchemaAndRandomWorkload(@TempDir Path dir) throws Exception {
        Path ddl = dir.resolve("schema.sql");
        Files.writeString(
                ddl,
                "CREATE TABLE Things (Id STRING(MAX) NOT NULL, N INT64, At TIMESTAMP)"
                        + " PRIMARY KEY (Id);\n"
                        + "CREATE CHANGE STREAM things_cs FOR Things;\n");
        LineCapture capture = new LineCapture();
        PrintStream out = new PrintStream(capture, true, StandardCharsets.UTF_8);
        MainThread code =
                MainThread.start(
                        () ->
                                EmulatorMain.run(
                                        new String[] {
                                            "--port=0",
                                            "--ddl",
                                            ddl.toString(),
                                            "--workload",
                                            "random",
                                            "--rate",
                                            "50",
                                            "--project",
                                            "p",
                                            "--instance",
                                            "i",
                                            "--database",
                                            "d",
                                            "--stats-interval",
                                            "0s",
                                            "--duration",
                                            "10m"
                                        },
                                        out));
        int port = capture.awaitPort();
        Spanner spanner =
                SpannerOptions.newBuilder()
                        .setProjectId("p")
                        .setEmulatorHost("127.0.0.1:" + port)
                        .setCredentials(NoCredentials.getInstance())
                        .build()
                        .getService();
        try {
            DatabaseClient client = spanner.getDatabaseClient(DatabaseId.of("p", "i", "d"));
            Await.until(
                    "rows the workload wrote",
                    Duration.ofSeconds(30),
                    () -> keys(client, "SELECT Id, N FROM Things") > 0);
        } finally {
            spanner.close();
        }
        assertThat(code.stop()).isZero();
        assertThat(capture.text()).doesNotContain("changes/s").endsWith("stopped\n");
    }

    @Test
    void servesAPostgresDatabaseWithARandomWorkload(@TempDir Path dir) throws Exception {
        Path ddl = dir.resolve("schema.sql");
        Files.writeString(
                ddl,
                "CREATE TABLE Things (id varchar NOT NULL PRIMARY KEY, n bigint, amount numeric,"
                        + " doc jsonb, at timestamptz);\n"
                        + "CREATE CHANGE STREAM things_cs FOR things WITH (partition_mode ="
                        + " 'MUTABLE_KEY_RANGE');\n");
        LineCapture capture = new LineCapture();
        PrintStream out = new PrintStream(capture, true, StandardCharsets.UTF_8);
        MainThread code =
                MainThread.start(
                        () ->
                                EmulatorMain.run(
                                        new String[] {
                                            "--port=0",
                                            "--dialect=postgresql",
                                            "--ddl",
                                            ddl.toString(),
                                            "--workload",
                                            "random",
                                            "--rate",
                                            "50",
                                            "--stats-interval",
                                            "0s",
                                            "--duration",
                                            "10m"
                                        },
                                        out));
        int port = capture.awaitPort();
        try (EmulatorClients c =
                new EmulatorClients(
                        "127.0.0.1:" + port,
                        "emulator-project",
                        "emulator-instance",
                        "emulator-db")) {
            assertThat(c.client().getDialect()).isEqualTo(Dialect.POSTGRESQL);
            Await.until(
                    "rows the workload wrote",
                    Duration.ofSeconds(30),
                    () -> keys(c.client(), "SELECT id, amount FROM things") > 0);
        }
        assertThat(code.stop()).isZero();
        assertThat(capture.text()).contains("(PostgreSQL)").endsWith("stopped\n");
    }

    /**
     * The emulator's main on a thread of its own, with a duration longer than any test: the test
     * stops it once it has checked what it serves, by interrupting it (as Ctrl-C ends its wait), so
     * a slow machine never finds it gone. {@code runsWithEveryEdgeCase} covers the duration.
     */
    private static final class MainThread {
        private final Thread thread;
        private final AtomicReference<Integer> code = new AtomicReference<>();

        private MainThread(java.util.function.IntSupplier main) {
            thread = new Thread(() -> code.set(main.getAsInt()), "emulator-main");
            thread.setDaemon(true);
        }

        static MainThread start(java.util.function.IntSupplier main) {
            MainThread m = new MainThread(main);
            m.thread.start();
            return m;
        }

        /** Stops the main and returns its exit code. */
        int stop() throws InterruptedException {
            thread.interrupt();
            thread.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(thread.isAlive()).as("the emulator's main still runs").isFalse();
            return code.get();
        }
    }

    /** Rows the query returns, each keyed as the random workload keys its rows. */
    private static int keys(DatabaseClient client, String sql) {
        int rows = 0;
        try (ResultSet rs = client.singleUse().executeQuery(Statement.of(sql))) {
            while (rs.next()) {
                assertThat(rs.getString(0)).startsWith("key-");
                rows++;
            }
        }
        return rows;
    }

    /** Collects output and finds the port of the listening line. */
    private static final class LineCapture extends OutputStream {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
            bytes.write(b);
            notifyAll();
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            bytes.write(b, off, len);
            notifyAll();
        }

        synchronized String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }

        synchronized int awaitPort() throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (true) {
                Matcher m = LISTENING.matcher(text());
                if (m.find()) {
                    return Integer.parseInt(m.group(1));
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("No listening line in: " + text());
                }
                wait(Math.max(1, left / 1_000_000));
            }
        }
    }
}
