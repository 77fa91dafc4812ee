package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's output folder per run and its progress counters, without running it. */
class DemoTest {
    @TempDir Path base;

    @Test
    void eachRunGetsANewEmptyFolderAndEarlierRunsStay() throws Exception {
        Path earlier = Files.createDirectories(base.resolve("run-earlier").resolve("Orders"));
        Files.writeString(earlier.resolve("part-0"), "{}\n");
        Instant start = Instant.parse("2026-12-05T07:30:01.5Z");

        Path first = Demo.freshRunFolder(base, start);
        Path second = Demo.freshRunFolder(base, start);

        assertThat(first).isEqualTo(base.resolve("run-20261205-073001"));
        assertThat(second)
                .as("a run in the same second")
                .isEqualTo(base.resolve("run-20261205-073001-2"));
        assertThat(first).isEmptyDirectory();
        assertThat(earlier.resolve("part-0")).as("nothing deleted").exists();
        assertThat(Demo.freshRunFolder(base.resolve("new/deeper"), start))
                .as("the base is created")
                .isEmptyDirectory();
    }

    @Test
    void snapshotRowsAreNotCountedAsChanges() {
        Map<String, Long> m = new HashMap<>();
        m.put("numRecordsIn", 2_500L); // the source counts snapshot rows as records too
        m.put("numSnapshotRows", 2_000L);
        m.put("snapshotSplits", 4L);
        m.put("snapshotSplitsFinished", 4L);
        m.put("knownPartitions", 5L);
        m.put("activePartitions", 4L);
        assertThat(Demo.changes(n -> m.getOrDefault(n, 0L))).isEqualTo(500);
        assertThat(Demo.progressLine(n -> m.getOrDefault(n, 0L), 250, 5, 3))
                .startsWith(
                        "changes 500 (250/s) | snapshot rows 2,000 | partitions live 5, reading 4,")
                .endsWith("| files 3");
    }

    @Test
    void duringTheSnapshotTheLineSaysSoRatherThanReadingZero() {
        Map<String, Long> m = new HashMap<>();
        m.put("numRecordsIn", 700L);
        m.put("numSnapshotRows", 700L);
        m.put("snapshotRowsPlanned", 2_000L);
        m.put("snapshotSplits", 4L);
        m.put("snapshotSplitsFinished", 1L);
        String line = Demo.progressLine(n -> m.getOrDefault(n, 0L), 0, 5, 0);
        assertThat(line)
                .startsWith(
                        "changes 0 (0/s) | snapshot rows 700 | partitions live 5, reading after the snapshot,")
                .endsWith(
                        "| waiting for the first changes: reading the snapshot, 700 of 2,000 rows,"
                                + " 1 of 4 splits")
                .doesNotContain("reading 0");
    }
}
