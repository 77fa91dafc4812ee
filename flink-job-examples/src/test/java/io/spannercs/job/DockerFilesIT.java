package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * What {@code docker/} relies on, checked without Docker (which this build does not need): the
 * files the images copy exist after {@code package}, the job jar runs its main class, and the
 * commands in {@code compose.yaml} are accepted by the job and the emulator.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DockerFilesIT {
    private static final Path ROOT = Path.of("..");
    private static final Path JOB_JAR = Path.of("target", "spanner-cs-job.jar");
    private static final String DEMO_LIB = Path.of("target", "demo-lib", "*").toString();

    @Test
    void theImagesCopyFilesThatThePackageBuildMakes() throws IOException {
        for (String dockerfile : List.of("docker/Dockerfile", "docker/emulator.Dockerfile")) {
            List<String> copies =
                    Files.readAllLines(ROOT.resolve(dockerfile)).stream()
                            .filter(l -> l.startsWith("COPY "))
                            .toList();
            assertThat(copies).as(dockerfile).isNotEmpty();
            for (String copy : copies) {
                String[] words = copy.split("\\s+");
                String source = words[words.length - 2]; // COPY [--chown=...] SOURCE DEST
                assertThat(ROOT.resolve(source)).as("%s: %s", dockerfile, copy).isRegularFile();
            }
        }
    }

    @Test
    void theJobJarRunsTheJobAndPrintsItsFlags() throws Exception {
        try (JarFile jar = new JarFile(JOB_JAR.toFile())) {
            assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
                    .isEqualTo(SpannerCdcJob.class.getName());
        }
        Run help =
                run(
                        List.of(
                                "-cp",
                                JOB_JAR + File.pathSeparator + DEMO_LIB,
                                SpannerCdcJob.class.getName(),
                                "--help"),
                        30);
        assertThat(help.exitCode).as(help.output).isZero();
        assertThat(help.output).contains("--emulator-host", "--end-timestamp", "--output");
    }

    @Test
    void theJobManagerRunsTheJobWithValidFlagsAgainstTheEmulator() throws IOException {
        List<String> command = command("jobmanager");
        assertThat(command.subList(0, 3))
                .containsExactly(
                        "standalone-job", "--job-classname", SpannerCdcJob.class.getName());
        JobOptions options =
                JobOptions.parse(command.subList(3, command.size()).toArray(String[]::new));
        List<String> emulator = command("emulator");
        assertThat(options.emulatorHost)
                .isEqualTo("127.0.0.1:" + emulator.get(emulator.indexOf("--port") + 1));
        assertThat(options.changeStream).isEqualTo("Orders_cs"); // in the emulator's demo schema
    }

    @Test
    void theEmulatorStartsWithTheComposeFlags() throws Exception {
        List<String> args = new ArrayList<>(command("emulator"));
        args.set(args.indexOf("--port") + 1, "0"); // 9010 may be taken here
        // As the image's ENTRYPOINT runs it.
        List<String> cmd =
                new ArrayList<>(
                        List.of(
                                "-jar",
                                ROOT.resolve("spanner-cs-emulator/target/spanner-cs-emulator.jar")
                                        .toString()));
        cmd.addAll(args);
        cmd.addAll(List.of("--duration", "2s"));
        Run emulator = run(cmd, 60);
        assertThat(emulator.exitCode).as(emulator.output).isZero();
        assertThat(emulator.output).contains("listening on 127.0.0.1:", "stopped");
    }

    /** A service's {@code command} list in compose.yaml. */
    @SuppressWarnings("unchecked")
    private static List<String> command(String service) throws IOException {
        Map<String, Object> compose =
                (Map<String, Object>)
                        new Load(LoadSettings.builder().build())
                                .loadFromString(
                                        Files.readString(ROOT.resolve("docker/compose.yaml")));
        Map<String, Object> services = (Map<String, Object>) compose.get("services");
        return ((List<Object>) ((Map<String, Object>) services.get(service)).get("command"))
                .stream().map(String::valueOf).toList();
    }

    private record Run(int exitCode, String output) {}

    private static Run run(List<String> javaArgs, int timeoutSeconds) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(javaArgs);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            byte[] out = p.getInputStream().readAllBytes();
            assertThat(p.waitFor(timeoutSeconds, TimeUnit.SECONDS)).as("exited").isTrue();
            return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        } finally {
            p.destroyForcibly();
        }
    }
}
