package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.format.datastream.DatastreamContext;
import io.spannercs.flink.format.datastream.DatastreamJsonDeserializer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo, as the job runs it with no arguments, for a few seconds. */
@org.junit.jupiter.api.Timeout(value = 2, unit = java.util.concurrent.TimeUnit.MINUTES)
class DemoITCase {
    @TempDir Path out;

    @Test
    void printsProgressAndLeavesJsonFilesBehind() throws Exception {
        // An earlier run's file: the run neither mixes it in nor counts it, nor deletes it.
        Path earlier = Files.createDirectories(out.resolve("run-earlier").resolve("Orders"));
        Files.writeString(earlier.resolve("part-earlier"), "not this run's\n");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        Demo.run(
                Duration.ofSeconds(12),
                out,
                new PrintStream(printed, true, StandardCharsets.UTF_8));

        String text = printed.toString(StandardCharsets.UTF_8);
        List<String> lines = text.lines().toList();
        assertThat(lines.get(0))
                .as("the first line, before anything starts")
                .startsWith("Spanner change stream demo (runs for 12 s). Starting the emulator");
        assertThat(lines.get(1))
                .as("the second line says where this run's files go")
                .startsWith("Files of this run go to a new folder, ")
                .contains("earlier runs' folders under " + out + " are left as they are");
        Path run;
        try (Stream<Path> runs = Files.list(out)) {
            run = runs.filter(p -> !p.endsWith("run-earlier")).findFirst().orElseThrow();
        }
        assertThat(lines.get(1)).contains(run.toAbsolutePath().toString());
        assertThat(earlier.resolve("part-earlier")).exists();
        assertThat(text)
                .contains("Demo: emulator on 127.0.0.1:")
                .contains("Starting a local Flink")
                .contains("Job running. Waiting for the first changes")
                .contains("Done: ");
        assertThat(lines.stream().filter(l -> l.startsWith("changes 0 ")))
                .as("a progress line without changes says what the job waits for")
                .allMatch(l -> l.contains("waiting for the first changes"));
        assertThat(text.lines().filter(l -> l.startsWith("changes ")).count())
                .as("progress lines")
                .isPositive();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(run)) {
            files =
                    walk.filter(Files::isRegularFile)
                            .filter(p -> p.getFileName().toString().startsWith("part-"))
                            .toList();
        }
        assertThat(files).isNotEmpty();
        DatastreamJsonDeserializer json =
                new DatastreamJsonDeserializer(
                        DatastreamContext.builder("p", "i", "d", "Orders_cs").build());
        long events = 0;
        for (Path f : files) {
            for (String line : Files.readAllLines(f)) {
                assertThat(json.fromJson(line).getTable())
                        .isEqualTo(f.getParent().getFileName().toString());
                events++;
            }
        }
        assertThat(events).isPositive();
        assertThat(text).contains("Done: " + files.size() + " files under " + run.toAbsolutePath());
        List<String> progress = lines.stream().filter(l -> l.startsWith("changes ")).toList();
        assertThat(progress).allMatch(l -> l.contains(" | snapshot rows "));
        String last = progress.get(progress.size() - 1);
        long changes = Long.parseLong(last.split(" ")[1].replace(",", ""));
        long snapshotRows =
                Long.parseLong(last.split(" \\| snapshot rows ")[1].split(" ")[0].replace(",", ""));
        assertThat(snapshotRows).as("the tables were filled before the job").isPositive();
        assertThat(changes + snapshotRows)
                .as(
                        "snapshot rows and changes printed apart, counting the source's reads"
                                + " only, not the sink's too")
                .isLessThanOrEqualTo(events);
    }
}
