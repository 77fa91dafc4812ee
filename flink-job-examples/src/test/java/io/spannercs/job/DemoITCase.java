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
        try (Stream<Path> walk = Files.walk(out)) {
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
        long lastPrinted =
                lines.stream()
                        .filter(l -> l.startsWith("changes "))
                        .mapToLong(l -> Long.parseLong(l.split(" ")[1].replace(",", "")))
                        .max()
                        .orElseThrow();
        assertThat(lastPrinted)
                .as("changes printed count the source's reads only, not the sink's too")
                .isLessThanOrEqualTo(events);
    }
}
