package io.spannercs.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.source.enumerator.SnapshotPhase.Status;
import io.spannercs.flink.source.split.SnapshotSplit;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The snapshot's life in the enumerator: the stream may start only after every split finished and a
 * checkpoint taken after that completed (a restore from an earlier checkpoint would emit snapshot
 * rows again after changes of their keys).
 */
class SnapshotPhaseTest {
    private static SnapshotSplit split(String id) {
        return new SnapshotSplit(
                id, "T", List.of("k"), List.of("k"), 10, null, null, null, 0, List.of(), false);
    }

    /** Planned, both splits with readers. */
    private static SnapshotPhase assigned() {
        SnapshotPhase phase = reading();
        phase.markAssigned(split("a"), 0);
        phase.markAssigned(split("b"), 1);
        return phase;
    }

    private static SnapshotPhase reading() {
        SnapshotPhase phase = SnapshotPhase.planning(10);
        assertThat(phase.status()).isEqualTo(Status.PLANNING);
        assertThat(phase.done()).isFalse();
        phase.planned(List.of(split("a"), split("b")), 300);
        assertThat(phase.status()).isEqualTo(Status.READING);
        return phase;
    }

    @Test
    void isDoneOnlyWhenACheckpointAfterTheLastSplitCompleted() {
        SnapshotPhase phase = assigned();
        phase.snapshotTaken(1); // before any split finished
        assertThat(phase.finished("a", 100)).isTrue();
        assertThat(phase.checkpointCompleted(1)).isFalse();
        assertThat(phase.finished("b", 200)).isTrue();
        assertThat(phase.status()).isEqualTo(Status.FINISHING);
        // Checkpoint 1 was taken before the splits finished: it does not hold that.
        assertThat(phase.checkpointCompleted(1)).isFalse();
        phase.snapshotTaken(2);
        assertThat(phase.done()).isFalse();
        assertThat(phase.checkpointCompleted(2)).isTrue();
        assertThat(phase.done()).isTrue();
        assertThat(phase.rowsDone()).isEqualTo(300);
        assertThat(phase.finishedCount()).isEqualTo(2);
    }

    @Test
    void aReportSeenTwiceCountsOnce() {
        SnapshotPhase phase = assigned();
        assertThat(phase.finished("a", 100)).isTrue();
        assertThat(phase.finished("a", 100)).isFalse();
        assertThat(phase.rowsDone()).isEqualTo(100);
        assertThat(phase.status()).isEqualTo(Status.READING);
    }

    @Test
    void aSplitResumedAfterARestoreReopensAFinishingSnapshot() {
        SnapshotPhase phase = assigned();
        phase.finished("a", 100);
        phase.finished("b", 200);
        phase.snapshotTaken(5);
        // The job fails before checkpoint 5 completes; a reader restored from checkpoint 4 resumes
        // split b, whose finish that checkpoint did not hold.
        phase.resumed("b", 1);
        assertThat(phase.status()).isEqualTo(Status.READING);
        assertThat(phase.checkpointCompleted(5)).isFalse();
        phase.finished("b", 200);
        phase.snapshotTaken(6);
        assertThat(phase.checkpointCompleted(6)).isTrue();
    }

    @Test
    void aSplitAFailedReaderGaveBackIsAssignedAgain() {
        SnapshotPhase phase = reading();
        phase.markAssigned(split("a"), 0);
        assertThat(phase.unassigned()).extracting(SnapshotSplit::splitId).containsExactly("b");
        phase.returned(split("a"));
        assertThat(phase.unassigned()).extracting(SnapshotSplit::splitId).contains("a", "b");
        assertThat(phase.loads(List.of(0, 1))).containsEntry(0, 0).containsEntry(1, 0);
    }

    @Test
    void completesAtOnceInAJobWithoutCheckpoints() {
        SnapshotPhase phase = assigned();
        assertThat(phase.completeWithoutCheckpoint()).isFalse();
        phase.finished("a", 1);
        phase.finished("b", 1);
        assertThat(phase.completeWithoutCheckpoint()).isTrue();
        assertThat(phase.done()).isTrue();
    }

    @Test
    void survivesACheckpoint() {
        SnapshotPhase phase = reading();
        phase.markAssigned(split("a"), 0);
        phase.finished("b", 7);
        SnapshotPhase restored = SnapshotPhase.restore(phase.state());
        assertThat(restored.status()).isEqualTo(Status.READING);
        assertThat(restored.unfinished()).containsExactly("a");
        assertThat(restored.assigned()).containsEntry("a", 0);
        assertThat(restored.rowsDone()).isEqualTo(7);
        assertThat(restored.total()).isEqualTo(2);
        assertThat(restored.toString()).contains("1/2 splits", "7/300 rows");
    }
}
