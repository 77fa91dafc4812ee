package io.spannercs.flink.source.enumerator;

import static io.spannercs.flink.source.enumerator.EnumeratorHarness.SNAPSHOT;
import static io.spannercs.flink.source.enumerator.EnumeratorHarness.root;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spannercs.flink.source.event.SplitsResumedEvent;
import io.spannercs.flink.source.spanner.SnapshotPlanner;
import io.spannercs.flink.source.split.PartitionReport.SnapshotFinished;
import io.spannercs.flink.source.split.SnapshotSplit;
import io.spannercs.flink.source.split.SpannerSplit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.util.FlinkRuntimeException;
import org.junit.jupiter.api.Test;

/**
 * A snapshot is done only when a completed checkpoint holds it (DESIGN.md section 3, "Restore
 * anywhere"): stream partitions never run alongside snapshot splits, and a snapshot with nothing to
 * read does not keep the stream from starting.
 */
class SnapshotFailoverTest {
    private static SnapshotSplit split(String id) {
        return new SnapshotSplit(
                id,
                "T",
                List.of("k"),
                List.of("k"),
                SNAPSHOT,
                null,
                null,
                null,
                0,
                List.of(),
                false);
    }

    private static SnapshotPlanner.Plan plan(SnapshotSplit... splits) {
        return new SnapshotPlanner.Plan(
                List.of(splits), 10L * splits.length, 1, Duration.ofHours(1));
    }

    /**
     * The snapshot finishes before the job's first checkpoint, so nothing durable says it did; the
     * stream starts. Then one reader fails (region failover): Flink gives back every split it was
     * assigned, its snapshot split among them, and re-reading that split next to the running stream
     * would emit a key's snapshot row after its newer changes. Only a restart of the whole job
     * (from its last completed checkpoint, or from the start) keeps snapshot rows before changes.
     */
    @Test
    void aFailoverBeforeACheckpointHeldTheFinishedSnapshotRestartsTheWholeJob() throws Throwable {
        try (EnumeratorHarness h =
                EnumeratorHarness.withSnapshot(2, plan(split("s0"), split("s1")), root("a"))) {
            h.addReaders(0, 1);
            h.start();
            Map<String, Integer> snapshotOwners = snapshotOwners(h);
            assertThat(snapshotOwners).containsOnlyKeys("s0", "s1");
            for (Map.Entry<String, Integer> e : snapshotOwners.entrySet()) {
                h.report(e.getValue(), new SnapshotFinished(e.getKey(), 10));
            }
            h.runOneTimeCallables(); // the root query: no checkpoint was taken, the stream starts
            assertThat(h.owners()).containsKey("a");

            int failed = snapshotOwners.get("s0");
            List<SpannerSplit> assignedToFailed = new ArrayList<>();
            h.context
                    .getSplitsAssignmentSequence()
                    .forEach(
                            a ->
                                    assignedToFailed.addAll(
                                            a.assignment().getOrDefault(failed, List.of())));
            h.context.unregisterReader(failed);

            assertThatThrownBy(() -> h.enumerator.addSplitsBack(assignedToFailed, failed))
                    .isInstanceOf(FlinkRuntimeException.class)
                    .hasMessageContaining("snapshot")
                    .hasMessageContaining("checkpoint");
            assertThat(h.snapshotAssignments()).as("snapshot splits assigned").hasSize(2);
        }
    }

    /** The same failover of a restored reader: it resumes its unfinished snapshot split. */
    @Test
    void aReaderResumingASnapshotSplitAfterTheStreamStartedRestartsTheWholeJob() throws Throwable {
        try (EnumeratorHarness h =
                EnumeratorHarness.withSnapshot(1, plan(split("s0")), root("a"))) {
            h.addReaders(0);
            h.start();
            h.report(0, new SnapshotFinished("s0", 10));
            h.runOneTimeCallables();
            assertThat(h.owners()).containsKey("a");

            h.context.unregisterReader(0);
            h.enumerator.addSplitsBack(List.of(), 0);
            h.context.registerReader(new ReaderInfo(0, "host-0"));
            h.enumerator.addReader(0);
            assertThatThrownBy(
                            () ->
                                    h.enumerator.handleSourceEvent(
                                            0,
                                            new io.spannercs.flink.source.event.ReaderReportsEvent(
                                                    new SplitsResumedEvent(
                                                            List.of(), List.of("s0")),
                                                    List.of(),
                                                    Map.of())))
                    .isInstanceOf(FlinkRuntimeException.class)
                    .hasMessageContaining("snapshot");
        }
    }

    /** With a checkpoint taken and completed after the last split finished, nothing reopens. */
    @Test
    void aFailoverAfterACheckpointHeldTheSnapshotGoesOnWithTheStream() throws Throwable {
        try (EnumeratorHarness h =
                EnumeratorHarness.withSnapshot(1, plan(split("s0")), root("a"))) {
            h.addReaders(0);
            h.start();
            h.checkpoint(1); // the job checkpoints
            h.report(0, new SnapshotFinished("s0", 10));
            assertThat(h.rootQueries).as("stream waits for a checkpoint").hasValue(0);
            h.checkpoint(2);
            h.enumerator.notifyCheckpointComplete(2);
            h.runOneTimeCallables();
            assertThat(h.owners()).containsKey("a");

            h.context.unregisterReader(0);
            h.enumerator.addSplitsBack(List.of(), 0); // assigned since checkpoint 2: nothing
            h.context.registerReader(new ReaderInfo(0, "host-0"));
            h.enumerator.addReader(0);
            assertThat(h.snapshotAssignments()).as("snapshot splits assigned").hasSize(1);
        }
    }

    /**
     * Tables without rows (or no tracked table at all: a new database, a filter that excludes every
     * table) plan no split; the stream starts at once.
     */
    @Test
    void aSnapshotWithNothingToReadStartsTheStream() throws Throwable {
        try (EnumeratorHarness h =
                EnumeratorHarness.withSnapshot(2, plan(), root("a"), root("b"))) {
            h.addReaders(0, 1);
            h.start();
            assertThat(h.rootQueries).as("root queries").hasValue(1);
            assertThat(h.owners()).containsOnlyKeys("a", "b");
        }
    }

    private static Map<String, Integer> snapshotOwners(EnumeratorHarness h) {
        Map<String, Integer> out = new java.util.LinkedHashMap<>();
        h.snapshotAssignments().forEach(e -> out.put(e.getValue().splitId(), e.getKey()));
        return out;
    }
}
