package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.SpannerEmulator;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The job's check of {@code --database} and {@code --change-stream} before it is submitted, against
 * the emulator: a wrong name is one line naming the flag; a check that cannot be made is a warning,
 * and the job is submitted anyway. Each check takes about a second, not counting the client's first
 * start in a JVM.
 */
@org.junit.jupiter.api.Timeout(value = 2, unit = java.util.concurrent.TimeUnit.MINUTES)
class JobNameCheckITCase {
    private static SpannerEmulator emulator;

    @BeforeAll
    static void start() {
        emulator = SpannerEmulator.builder().ddl(ChangeFiles.DDL).start();
    }

    @AfterAll
    static void stop() {
        emulator.close();
    }

    private static JobOptions options(String host, String database, String stream) {
        return options(host, database, stream, "20s");
    }

    private static JobOptions options(
            String host, String database, String stream, String nameCheckTimeout) {
        return JobOptions.parse(
                new String[] {
                    "--name-check-timeout",
                    nameCheckTimeout,
                    "--project",
                    emulator.projectId(),
                    "--instance",
                    emulator.instanceId(),
                    "--database",
                    database,
                    "--change-stream",
                    stream,
                    "--emulator-host",
                    host,
                    "--output",
                    "/tmp/unused"
                });
    }

    /** What {@code checkNames} returns, and what it warned. */
    private record Checked(String error, String warnings, Duration took) {}

    private static Checked check(JobOptions o) {
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        long t0 = System.nanoTime();
        String error =
                SpannerCdcJob.checkNames(
                        o, new PrintStream(warnings, true, StandardCharsets.UTF_8));
        return new Checked(
                error,
                warnings.toString(StandardCharsets.UTF_8),
                Duration.ofNanos(System.nanoTime() - t0));
    }

    @Test
    void namesThatExistPass() {
        check(options(emulator.hostPort(), emulator.databaseId(), ChangeFiles.STREAM)); // warm
        Checked c = check(options(emulator.hostPort(), emulator.databaseId(), ChangeFiles.STREAM));
        assertThat(c.error()).isNull();
        assertThat(c.warnings()).isEmpty();
        // Well inside the check's own 20 s limit, with room for a loaded machine: a check that
        // waited for its limit (or for the client's threads after it) shows here. How fast it
        // is belongs to no test.
        assertThat(c.took()).as("a check on a warm JVM").isLessThan(Duration.ofSeconds(15));
        // GoogleSQL resolves names in any case, and so does the check.
        assertThat(check(options(emulator.hostPort(), emulator.databaseId(), "EveryThing")).error())
                .isNull();
    }

    @Test
    void aWrongDatabaseNamesTheFlags() {
        Checked c = check(options(emulator.hostPort(), "no_such_db", ChangeFiles.STREAM));
        assertThat(c.error())
                .startsWith(
                        "database projects/"
                                + emulator.projectId()
                                + "/instances/"
                                + emulator.instanceId()
                                + "/databases/no_such_db does not exist (NOT_FOUND: Database not"
                                + " found")
                .endsWith("): check --project, --instance and --database");
        assertThat(c.warnings()).isEmpty();
    }

    @Test
    void aWrongChangeStreamNamesTheFlagAndTheStreamsThereAre() {
        Checked c = check(options(emulator.hostPort(), emulator.databaseId(), "nope_cs"));
        assertThat(c.error())
                .isEqualTo(
                        "change stream nope_cs does not exist in database projects/"
                                + emulator.projectId()
                                + "/instances/"
                                + emulator.instanceId()
                                + "/databases/"
                                + emulator.databaseId()
                                + " (it has everything): check --change-stream");
    }

    /** No answer here is no reason not to submit: the cluster may reach what this machine can't. */
    @Test
    void aCheckThatCannotBeMadeWarnsAndSubmits() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        Checked c =
                check(
                        options(
                                "127.0.0.1:" + closedPort,
                                emulator.databaseId(),
                                ChangeFiles.STREAM));
        assertThat(c.error()).isNull();
        assertThat(c.warnings())
                .startsWith("warning: could not check --database and --change-stream")
                .contains("127.0.0.1:" + closedPort)
                .contains("submitting the job");
    }

    /** Where the submitting machine cannot reach Spanner, 0s submits without waiting. */
    @Test
    void aZeroTimeoutSkipsTheCheck() {
        Checked c = check(options(emulator.hostPort(), "no_such_db", ChangeFiles.STREAM, "0s"));
        assertThat(c.error()).as("a wrong database, not checked").isNull();
        assertThat(c.warnings()).isEmpty();
    }
}
