package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every example program of the jar checks its flags before it starts anything: an unknown flag or a
 * duration without a unit is one line {@code error: ...} naming the flag, and exit code 2.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ExampleCommandLineIT {
    private static final String CLASSPATH =
            Path.of("target", "spanner-cs-job.jar")
                    + File.pathSeparator
                    + Path.of("target", "demo-lib", "*");

    private static final List<String> EMULATOR_DB =
            List.of(
                    "--project", "emulator-project",
                    "--instance", "emulator-instance",
                    "--database", "emulator-db");

    @Test
    void anUnknownFlagOfEveryExampleProgramExits2() throws Exception {
        List<String> job = new ArrayList<>(EMULATOR_DB);
        job.addAll(List.of("--change-stream", "Orders_cs", "--output", "out"));
        job.addAll(List.of("--emulator-hots", "127.0.0.1:9010"));
        assertOneLineError(
                SpannerCdcJob.class,
                job,
                "error: unknown flag --emulator-hots (--help lists the flags)");
        assertOneLineError(
                SpannerCdcJob.class,
                List.of("--emulator-hots", "127.0.0.1:9010"),
                "error: without --project this is the demo, which takes only --duration DURATION"
                        + " and --output DIR; got '--emulator-hots' (--help lists the job's flags)");
        List<String> sql = new ArrayList<>(EMULATOR_DB);
        sql.addAll(List.of("--emulator-hots", "127.0.0.1:9010"));
        assertOneLineError(
                SqlRevenueJob.class,
                sql,
                "error: unknown flag --emulator-hots (flags: --project, --instance, --database,"
                        + " --change-stream, --emulator-host, --start-timestamp, --end-timestamp)");
    }

    @Test
    void aDurationWithoutAUnitIsAnErrorNamingTheFlag() throws Exception {
        List<String> job = new ArrayList<>(EMULATOR_DB);
        job.addAll(List.of("--change-stream", "Orders_cs", "--output", "out"));
        job.addAll(List.of("--emulator-host", "127.0.0.1:9010", "--checkpoint-interval", "10"));
        assertOneLineError(
                SpannerCdcJob.class,
                job,
                "error: --checkpoint-interval needs a unit, e.g. 10s; got '10' (--help lists the"
                        + " flags)");
        assertOneLineError(
                SpannerCdcJob.class,
                List.of("--duration", "30"),
                "error: --duration needs a unit, e.g. 10s; got '30'");
    }

    private static void assertOneLineError(Class<?> main, List<String> flags, String expected)
            throws Exception {
        List<String> cmd =
                new ArrayList<>(
                        List.of(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-cp",
                                CLASSPATH,
                                main.getName()));
        cmd.addAll(flags);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("exited").isTrue();
            assertThat(p.exitValue()).as(output).isEqualTo(2);
            assertThat(output.lines().toList())
                    .as("%s %s: one line, no stack trace", main.getSimpleName(), flags)
                    .containsExactly(expected);
        } finally {
            p.destroyForcibly();
        }
    }
}
