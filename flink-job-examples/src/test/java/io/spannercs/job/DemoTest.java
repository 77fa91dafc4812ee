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

    /**
     * Once the source's subtasks end (the demo's end timestamp; the sink still commits), their
     * metrics are gone: the demo says so once, instead of a line of zeros with a negative rate and
     * "waiting for the first changes", which a loaded machine printed before "Done".
     */
    @Test
    void afterTheSourceEndsTheDemoSaysSoOnceInsteadOfZeros() {
        Map<String, Long> m = new HashMap<>();
        m.put("numRecordsIn", 10_661L);
        m.put("knownPartitions", 6L);
        m.put("activePartitions", 1L);
        Demo.Progress progress = new Demo.Progress(0);

        String running = progress.tick(n -> m.getOrDefault(n, 0L), true, 2_000_000_000L, 5, 54);
        m.clear(); // the source's metrics were removed with its subtasks
        String ended = progress.tick(n -> m.getOrDefault(n, 0L), false, 4_000_000_000L, 5, 56);
        String next = progress.tick(n -> m.getOrDefault(n, 0L), false, 6_000_000_000L, 5, 56);

        assertThat(running).startsWith("changes 10,661 (5,331/s)");
        assertThat(progress.sourceEnded()).isTrue();
        assertThat(ended)
                .isEqualTo(
                        "The source's subtasks have ended (10,661 changes read); the job commits"
                                + " its last files.");
        assertThat(next).as("said once").isNull();
    }

    /** A restarted source counts from zero again: progress resumes, never at a negative rate. */
    @Test
    void aRestartedSourceResumesTheLinesWithoutANegativeRate() {
        Map<String, Long> m = new HashMap<>();
        m.put("numRecordsIn", 5_000L);
        m.put("knownPartitions", 6L);
        Demo.Progress progress = new Demo.Progress(0);
        progress.tick(n -> m.getOrDefault(n, 0L), true, 2_000_000_000L, 5, 10);
        progress.tick(n -> 0L, false, 4_000_000_000L, 5, 10);
        m.put("numRecordsIn", 300L);

        String again = progress.tick(n -> m.getOrDefault(n, 0L), true, 6_000_000_000L, 5, 12);

        assertThat(progress.sourceEnded()).isFalse();
        assertThat(again).startsWith("changes 300 (0/s)").doesNotContain("-");
    }

    /** Before the source starts, its missing metrics are the start, not an end. */
    @Test
    void beforeTheSourceStartsTheLinesSayWhatItWaitsFor() {
        Demo.Progress progress = new Demo.Progress(0);
        String line = progress.tick(n -> 0L, false, 2_000_000_000L, 5, 0);
        assertThat(progress.sourceEnded()).isFalse();
        assertThat(line).contains("waiting for the first changes: planning the snapshot");
    }
}
