package io.spannercs.flink.source.enumerator;

import static io.spannercs.flink.source.enumerator.EnumeratorHarness.START;
import static io.spannercs.flink.source.enumerator.EnumeratorHarness.partition;
import static io.spannercs.flink.source.enumerator.EnumeratorHarness.root;
import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.source.event.EventsStoppedEvent;
import io.spannercs.flink.source.event.LowWatermarkEvent;
import io.spannercs.flink.source.event.ReaderFailingEvent;
import io.spannercs.flink.source.event.ReleaseBarrierEvent;
import io.spannercs.flink.source.event.SplitsResumedEvent.ResumedSplit;
import io.spannercs.flink.source.split.PartitionReport.BarrierReached;
import io.spannercs.flink.source.split.PartitionReport.Discovered;
import io.spannercs.flink.source.split.PartitionReport.Finished;
import io.spannercs.flink.source.split.PartitionReport.MovedOut;
import io.spannercs.flink.source.split.PartitionSplit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Readers restarted by Flink without the enumerator (a failover of some tasks only): Flink restores
 * the readers from their last completed checkpoint but keeps the enumerator running, so everything
 * the enumerator learned from them since then describes records that were rolled back. Nothing may
 * be skipped (a partition the enumerator saw finish is read again) and no barrier may be released
 * on progress that was rolled back.
 */
class ReaderRestartTest {
    private static final long T = START + 1_000;

    private EnumeratorHarness h;

    @BeforeEach
    void twoRootPartitionsOnTwoReaders() throws Throwable {
        h = EnumeratorHarness.unbounded(2, root("a"), root("b"));
        h.addReaders(0, 1);
        h.start();
    }

    @AfterEach
    void close() throws Exception {
        h.close();
    }

    /** The reader of {@code subtask} fails and restarts; Flink gives back {@code returned}. */
    private void restart(int subtask, PartitionSplit... returned) {
        h.context.unregisterReader(subtask);
        h.enumerator.addSplitsBack(List.of(returned), subtask);
        h.addReaders(subtask);
    }

    private List<ReleaseBarrierEvent> releases(int subtask) throws Exception {
        return h.events(subtask, ReleaseBarrierEvent.class);
    }

    private static ResumedSplit resumed(String token, long progress, String... parents) {
        return new ResumedSplit(
                token,
                START,
                List.of(parents),
                progress,
                PartitionSplit.NO_BARRIER,
                List.of(),
                false);
    }

    private long assignmentsOf(String token) {
        return h.assignments().stream().filter(e -> e.getValue().token().equals(token)).count();
    }

    @Test
    void readsAgainAPartitionAssignedAfterTheCheckpointEvenIfItReportedItsEnd() throws Exception {
        int ra = h.owners().get("a");
        long t = START + 100;
        h.report(ra, new Discovered("a", t, List.of(partition("x", t))));
        int rx = h.owners().get("x");
        h.report(rx, new Finished("x", t + 50));
        assertThat(h.enumerator.graph().get("x").finished()).isTrue();

        // x was assigned after the reader's last checkpoint: Flink gives it back.
        restart(rx, PartitionSplit.fresh("x", t, h.config.endMicros(), List.of()));

        assertThat(assignmentsOf("x")).isEqualTo(2);
        assertThat(h.enumerator.graph().get("x").finished()).isFalse();
    }

    @Test
    void readsAgainAPartitionFinishedAndPrunedMeanwhile() throws Exception {
        int ra = h.owners().get("a");
        int rb = h.owners().get("b");
        long t = START + 100;
        h.report(ra, new Discovered("a", t, List.of(partition("x", t))));
        int rx = h.owners().get("x");
        h.report(rx, new Finished("x", t + 50));
        h.progress(ra, "a", t + 500);
        h.progress(rb, "b", t + 500); // the low watermark passes x's end: x is pruned
        assertThat(h.enumerator.graph().get("x")).isNull();

        restart(rx, PartitionSplit.fresh("x", t, h.config.endMicros(), List.of()));

        assertThat(assignmentsOf("x")).isEqualTo(2);
    }

    @Test
    void aChildWaitsAgainForAParentThatResumesBeforeItsEnd() throws Throwable {
        // One reader holds both roots, so its restart rolls back a's end and x's assignment.
        h.close();
        h = EnumeratorHarness.unbounded(1, root("a"), root("b"));
        h.addReaders(0);
        h.start();
        long t = START + 100;
        h.report(0, new Discovered("a", t, List.of(partition("x", t, "a"))), new Finished("a", t));
        assertThat(assignmentsOf("x")).isEqualTo(1);

        restart(0, PartitionSplit.fresh("x", t, h.config.endMicros(), List.of("a")));
        h.resume(0, resumed("a", START + 40), resumed("b", START + 40));

        assertThat(assignmentsOf("x")).as("x waits for a to end again").isEqualTo(1);
        h.report(0, new Discovered("a", t, List.of(partition("x", t, "a"))), new Finished("a", t));
        assertThat(assignmentsOf("x")).isEqualTo(2);
    }

    @Test
    void doesNotReleaseABarrierOnProgressThatWasRolledBack() throws Exception {
        int ra = h.owners().get("a");
        int rb = h.owners().get("b");
        // b waits at T for a; a moves out at T and goes on; b is released and goes on.
        h.report(rb, Map.of("b", T - 1), new BarrierReached("b", T, List.of("a")));
        h.report(ra, Map.of("a", T + 10), new MovedOut("a", T, List.of("b")));
        assertThat(releases(rb)).hasSize(1);
        h.progress(rb, "b", T + 10);

        // Both readers restart from a checkpoint taken before all of it.
        restart(ra);
        restart(rb);
        h.resume(rb, resumed("b", T - 20));
        h.report(rb, Map.of("b", T - 1), new BarrierReached("b", T, List.of("a")));
        assertThat(releases(rb)).as("a has not resumed yet").hasSize(1);

        h.resume(ra, resumed("a", T - 30));
        assertThat(releases(rb)).as("a resumed before its move-out").hasSize(1);

        h.report(ra, Map.of("a", T + 10), new MovedOut("a", T, List.of("b")));
        assertThat(releases(rb)).hasSize(2).allMatch(new ReleaseBarrierEvent("b", T)::equals);
    }

    @Test
    void restoresTheBarrierARestartedSplitWaitsAt() throws Exception {
        int ra = h.owners().get("a");
        int rb = h.owners().get("b");
        h.report(rb, Map.of("b", T - 1), new BarrierReached("b", T, List.of("a")));
        h.report(ra, Map.of("a", T + 10));
        assertThat(releases(rb)).hasSize(1);

        // b's reader restarts blocked at T (its report was acknowledged long ago); a restarts
        // before T.
        restart(rb);
        restart(ra);
        h.resume(rb, new ResumedSplit("b", START, List.of(), T - 1, T, List.of("a"), false));
        h.resume(ra, resumed("a", T - 30));
        assertThat(releases(rb)).hasSize(1);
        assertThat(h.metric("pendingBarriers")).isEqualTo(1);

        h.progress(ra, "a", T);
        assertThat(releases(rb)).hasSize(2).allMatch(new ReleaseBarrierEvent("b", T)::equals);
    }

    /**
     * Two partitions swap ranges at T: each reports its move-out and waits at T for the other, and
     * is released. Every reader then restarts from a checkpoint taken while both waited, after the
     * enumerator had acknowledged their move-outs: neither re-sends one, and the move-outs the
     * enumerator knew are ahead of the positions restored. A partition waiting at a barrier has
     * emitted everything up to it, so each has reached T for the other (CheckpointAnywhereITCase
     * found both waiting for ever).
     */
    @Test
    void partitionsThatSwappedRangesAndWaitAtTheSwapAreReleasedAfterARestart() throws Exception {
        int ra = h.owners().get("a");
        int rb = h.owners().get("b");
        h.report(
                ra,
                Map.of("a", T - 1),
                new MovedOut("a", T, List.of("b")),
                new BarrierReached("a", T, List.of("b")));
        h.report(
                rb,
                Map.of("b", T - 1),
                new MovedOut("b", T, List.of("a")),
                new BarrierReached("b", T, List.of("a")));
        assertThat(releases(ra)).containsExactly(new ReleaseBarrierEvent("a", T));
        assertThat(releases(rb)).containsExactly(new ReleaseBarrierEvent("b", T));
        h.progress(ra, "a", T + 500); // read on after the release, then rolled back
        h.progress(rb, "b", T + 500);

        restart(ra);
        restart(rb);
        h.resume(ra, blockedAt("a", T, "b"));
        h.resume(rb, blockedAt("b", T, "a"));

        assertThat(releases(ra)).hasSize(2).last().isEqualTo(new ReleaseBarrierEvent("a", T));
        assertThat(releases(rb)).hasSize(2).last().isEqualTo(new ReleaseBarrierEvent("b", T));
    }

    private static ResumedSplit blockedAt(String token, long barrier, String... sources) {
        return new ResumedSplit(
                token, START, List.of(), barrier - 1, barrier, List.of(sources), false);
    }

    @Test
    void aFreshAssignmentResumedChangesNothing() throws Exception {
        int ra = h.owners().get("a");
        PartitionEntry before = h.enumerator.graph().get("a");

        h.resume(ra, resumed("a", START - 1));

        assertThat(h.enumerator.graph().get("a")).isEqualTo(before);
    }

    /**
     * Readers emit the low watermark while they have no partitions, so after a restart it must not
     * be told at or above where the restarted reader's partitions resume, and not before they do.
     * (It stays a microsecond below the least progress: see PartitionGraph.belowProgress.)
     */
    @Test
    void theLowWatermarkWaitsForResumedPartitionsAndGoesBackToThem() throws Exception {
        int ra = h.owners().get("a");
        int rb = h.owners().get("b");
        h.progress(ra, "a", START + 500);
        h.progress(rb, "b", START + 600);
        assertThat(lowWatermarks(rb)).last().isEqualTo(START + 499);

        // a's reader restarts from a checkpoint where a was at START + 100.
        int toldBefore = lowWatermarks(ra).size();
        restart(ra);
        assertThat(lowWatermarks(ra)).as("told before a resumed").hasSize(toldBefore);
        h.progress(rb, "b", START + 700); // does not raise it meanwhile
        assertThat(lowWatermarks(rb)).last().isEqualTo(START + 499);

        h.resume(ra, resumed("a", START + 100));
        assertThat(lowWatermarks(ra)).hasSize(toldBefore + 1).last().isEqualTo(START + 99);
        assertThat(lowWatermarks(rb)).last().isEqualTo(START + 99);

        h.progress(ra, "a", START + 800);
        assertThat(lowWatermarks(ra)).last().isEqualTo(START + 699);
    }

    /**
     * A reader that said it failed gets nothing more, neither events nor splits: Flink would fail
     * its task again for each, and that failure could become the job's cause instead of the
     * reader's own. After the restart it is told everything again.
     */
    @Test
    void aFailingReaderIsSentNothingMoreUntilItRegistersAgain() throws Exception {
        int ra = h.owners().get("a");
        int rb = h.owners().get("b");
        h.enumerator.handleSourceEvent(ra, new ReaderFailingEvent("IllegalStateException: boom"));
        assertThat(h.events(ra)).last().isEqualTo(new EventsStoppedEvent());
        int told = h.events(ra).size();

        // b splits, and a progress report a sent before it failed arrives: the low watermark
        // rises and there are partitions to assign.
        long t = START + 100;
        h.report(rb, Map.of("b", t + 500), new Discovered("b", t, List.of(partition("x", t))));
        h.report(rb, new Discovered("b", t + 1, List.of(partition("y", t + 1))));
        h.report(ra, Map.of("a", t + 400));
        h.enumerator.handleSourceEvent(ra, new ReaderFailingEvent("said twice"));

        assertThat(h.events(ra)).as("events after EventsStoppedEvent").hasSize(told);
        assertThat(h.owners()).containsEntry("x", rb).containsEntry("y", rb);
        assertThat(lowWatermarks(rb)).isNotEmpty();

        restart(ra);
        h.resume(ra, resumed("a", START + 50));
        assertThat(lowWatermarks(ra)).as("told again once registered").last().isEqualTo(START + 49);
    }

    private List<Long> lowWatermarks(int subtask) throws Exception {
        return h.events(subtask, LowWatermarkEvent.class).stream()
                .map(LowWatermarkEvent::micros)
                .toList();
    }
}
