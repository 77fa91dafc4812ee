package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The demo's command line as README runs it: a bad flag is one line and exit code 2. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DemoCommandLineIT {
    private static final String CLASSPATH =
            Path.of("target", "spanner-cs-job.jar")
                    + File.pathSeparator
                    + Path.of("target", "demo-lib", "*");

    @Test
    void aBadDurationIsOneLineAndExitCode2() throws Exception {
        assertOneLineError(
                List.of("--duration", "5x"),
                "error: --duration '5x' is not a duration: use a whole number and a unit, e.g."
                        + " 500ms, 10s, 2min or 1h");
        assertOneLineError(
                List.of("--duration"),
                "error: --duration needs a value: use a whole number and a unit, e.g. 500ms,"
                        + " 10s, 2min or 1h");
        assertOneLineError(
                List.of("--format", "avro"),
                "error: without --project this is the demo, which takes only --duration DURATION"
                        + " and --output DIR; got '--format' (--help lists the job's flags)");
    }

    private static void assertOneLineError(List<String> flags, String expected) throws Exception {
        List<String> cmd =
                new java.util.ArrayList<>(
                        List.of(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-cp",
                                CLASSPATH,
                                SpannerCdcJob.class.getName()));
        cmd.addAll(flags);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("exited").isTrue();
            assertThat(p.exitValue()).as(output).isEqualTo(2);
            assertThat(output.lines().toList())
                    .as("%s: no stack trace", flags)
                    .containsExactly(expected);
        } finally {
            p.destroyForcibly();
        }
    }
}
