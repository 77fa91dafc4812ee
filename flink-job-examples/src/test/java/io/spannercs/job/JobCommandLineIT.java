package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.SpannerEmulator;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The job's command line, as {@code flink run} runs its main: a database or change stream that does
 * not exist is one line naming the flag and exit code 2, before anything is submitted.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class JobCommandLineIT {
    private static final String CLASSPATH =
            Path.of("target", "spanner-cs-job.jar")
                    + File.pathSeparator
                    + Path.of("target", "demo-lib", "*");

    @Test
    void aWrongDatabaseOrChangeStreamIsOneLineAndExitCode2() throws Exception {
        try (SpannerEmulator emulator = SpannerEmulator.builder().ddl(ChangeFiles.DDL).start()) {
            String database =
                    "projects/"
                            + emulator.projectId()
                            + "/instances/"
                            + emulator.instanceId()
                            + "/databases/";
            assertOneLineError(
                    emulator,
                    "no_such_db",
                    ChangeFiles.STREAM,
                    "error: database " + database + "no_such_db does not exist (NOT_FOUND:",
                    "): check --project, --instance and --database");
            assertOneLineError(
                    emulator,
                    emulator.databaseId(),
                    "nope_cs",
                    "error: change stream nope_cs does not exist in database "
                            + database
                            + emulator.databaseId(),
                    " (it has everything): check --change-stream");
        }
    }

    private static void assertOneLineError(
            SpannerEmulator emulator, String database, String stream, String start, String end)
            throws Exception {
        List<String> cmd =
                List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        CLASSPATH,
                        SpannerCdcJob.class.getName(),
                        "--project",
                        emulator.projectId(),
                        "--instance",
                        emulator.instanceId(),
                        "--database",
                        database,
                        "--change-stream",
                        stream,
                        "--emulator-host",
                        emulator.hostPort(),
                        // The check's answer is what this test is about; how long it takes on a
                        // loaded machine is not (20 s by default ran out under other builds).
                        "--name-check-timeout",
                        "2min",
                        "--output",
                        Path.of("target", "job-command-line-out").toString());
        // Output to a file: a job that was submitted instead runs on, and must not block the test.
        Path out = java.nio.file.Files.createTempFile("job-command-line", ".out");
        Process p =
                new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(out.toFile())
                        .start();
        try {
            boolean exited = p.waitFor(150, TimeUnit.SECONDS);
            String output = java.nio.file.Files.readString(out, StandardCharsets.UTF_8);
            assertThat(exited).as("exited within 150 s: %s", output).isTrue();
            assertThat(p.exitValue()).as(output).isEqualTo(2);
            assertThat(output.lines().toList())
                    .as("one line, no stack trace")
                    .singleElement()
                    .satisfies(line -> assertThat(line).startsWith(start).endsWith(end));
        } finally {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            java.nio.file.Files.deleteIfExists(out);
        }
    }
}
