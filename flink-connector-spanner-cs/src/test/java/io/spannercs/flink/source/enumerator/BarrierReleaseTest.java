package io.spannercs.flink.source.enumerator;

import static io.spannercs.flink.source.enumerator.EnumeratorHarness.START;
import static io.spannercs.flink.source.enumerator.EnumeratorHarness.partition;
import static io.spannercs.flink.source.enumerator.EnumeratorHarness.root;
import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.source.event.EnumeratorEventsEvent;
import io.spannercs.flink.source.event.LowWatermarkEvent;
import io.spannercs.flink.source.event.ReleaseBarrierEvent;
import io.spannercs.flink.source.event.SplitsResumedEvent.ResumedSplit;
import io.spannercs.flink.source.split.PartitionReport.BarrierReached;
import io.spannercs.flink.source.split.PartitionReport.Discovered;
import io.spannercs.flink.source.split.PartitionReport.Finished;
import io.spannercs.flink.source.split.PartitionReport.MovedOut;
import io.spannercs.flink.source.split.PartitionSplit;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.source.SourceEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Move-in barriers: released when, and only when, every source has reached them. */
class BarrierReleaseTest {
    private static final long T = START + 1_000;

    private EnumeratorHarness h;
    private Map<String, Integer> owner;

    @BeforeEach
    void fourPartitionsOnTwoReaders() throws Throwable {
        h = EnumeratorHarness.unbounded(2, root("a"), root("b"), root("c"), root("d"));
        h.addReaders(0, 1);
        h.start();
        owner = h.owners();
    }

    @AfterEach
    void close() throws Exception {
        h.close();
    }

    private void blockBAtT() {
        h.report(
                owner.get("b"),
                Map.of("b", T - 1),
                new BarrierReached("b", T, List.of("a", "c", "d")));
    }

    /** Progress of each partition, reported by the reader that reads it. */
    private void progress(Map<String, Long> progress) {
        progress.forEach((token, micros) -> h.progress(owner.get(token), token, micros));
    }

    private List<ReleaseBarrierEvent> releases() throws Exception {
        return h.events(owner.get("b"), ReleaseBarrierEvent.class);
    }

    @Test
    void releasesOnceEverySourceProgressedMovedOutOrFinished() throws Exception {
        blockBAtT();
        assertThat(h.metric("pendingBarriers")).isEqualTo(1);

        h.progress(owner.get("a"), "a", T);
        assertThat(releases()).isEmpty();

        h.report(owner.get("c"), new MovedOut("c", T, List.of("b")));
        assertThat(releases()).isEmpty();

        h.report(owner.get("d"), new Finished("d", T - 10));

        assertThat(releases()).containsExactly(new ReleaseBarrierEvent("b", T));
        assertThat(h.events(other(owner.get("b")), ReleaseBarrierEvent.class)).isEmpty();
        assertThat(h.metric("pendingBarriers")).isZero();
    }

    /** One change's events for a reader travel as one: the release, then the watermark rise. */
    @Test
    void aReleaseAndTheLowWatermarkItRaisesTravelTogether() throws Exception {
        progress(Map.of("a", T, "c", T));
        blockBAtT();
        int b = owner.get("b");
        int before = h.context.getSentSourceEvent().get(b).size();

        h.progress(owner.get("d"), "d", T); // d was the lowest: the low watermark rises too

        List<SourceEvent> sent = h.context.getSentSourceEvent().get(b);
        assertThat(sent).hasSize(before + 1);
        assertThat(sent.get(before)).isInstanceOf(EnumeratorEventsEvent.class);
        List<SourceEvent> together = ((EnumeratorEventsEvent) sent.get(before)).events();
        assertThat(together).hasSize(2);
        assertThat(together.get(0)).isEqualTo(new ReleaseBarrierEvent("b", T));
        assertThat(together.get(1)).isInstanceOf(LowWatermarkEvent.class);
    }

    @Test
    void measuresHowLongBarriersWait() throws Throwable {
        blockBAtT();
        h.clockMillis.addAndGet(700);
        h.checkBarrierTimeouts(); // the periodic check refreshes the gauges
        assertThat(h.metric("longestPendingBarrierWaitMillis")).isEqualTo(700);

        h.clockMillis.addAndGet(50);
        progress(Map.of("a", T, "c", T, "d", T));

        assertThat(h.metric("lastBarrierWaitMillis")).isEqualTo(750);
        assertThat(h.metric("longestPendingBarrierWaitMillis")).isZero();
    }

    @Test
    void progressJustBelowTheBarrierIsNotEnough() throws Exception {
        blockBAtT();
        progress(Map.of("a", T - 1, "c", T - 1, "d", T - 1));
        h.report(owner.get("a"), new MovedOut("a", T - 1, List.of("b")));

        assertThat(releases()).isEmpty();
    }

    /**
     * Spanner may send a heartbeat at T before the partition records of T (Google's emulator does),
     * so a partition's progress is T when its move-in at T reaches the emitter: that is not past
     * the barrier at T.
     */
    @Test
    void aHeartbeatAtTheBarriersTimestampDoesNotPassIt() throws Exception {
        h.progress(owner.get("b"), "b", T);
        blockBAtT();
        assertThat(releases()).isEmpty();

        progress(Map.of("a", T, "c", T, "d", T));

        assertThat(releases()).containsExactly(new ReleaseBarrierEvent("b", T));
    }

    @Test
    void releasesAtOnceWhenTheSourcesAreAlreadyPast() throws Exception {
        progress(Map.of("a", T, "c", T + 5, "d", T));

        blockBAtT();

        assertThat(releases()).containsExactly(new ReleaseBarrierEvent("b", T));
    }

    @Test
    void neverReleasesByTimeoutButWarnsAndCountsOnce() throws Throwable {
        blockBAtT();
        h.progress(owner.get("a"), "a", T);

        h.clockMillis.addAndGet(EnumeratorHarness.BARRIER_TIMEOUT.toMillis() + 1);
        h.checkBarrierTimeouts();
        h.clockMillis.addAndGet(EnumeratorHarness.BARRIER_TIMEOUT.toMillis() * 5);
        h.checkBarrierTimeouts();
        h.checkBarrierTimeouts();

        assertThat(releases()).isEmpty();
        assertThat(h.context.metrics.count("barrierTimeouts")).isEqualTo(1);
        assertThat(h.metric("pendingBarriers")).isEqualTo(1);

        progress(Map.of("c", T, "d", T));
        assertThat(releases()).containsExactly(new ReleaseBarrierEvent("b", T));
    }

    @Test
    void doesNotCountABarrierWithinItsTimeout() throws Throwable {
        blockBAtT();
        h.clockMillis.addAndGet(EnumeratorHarness.BARRIER_TIMEOUT.toMillis() - 1);
        h.checkBarrierTimeouts();
        assertThat(h.context.metrics.count("barrierTimeouts")).isZero();
    }

    @Test
    void releasesAgainABarrierReportedAgainAfterItsRelease() throws Exception {
        blockBAtT();
        progress(Map.of("a", T, "c", T, "d", T));
        assertThat(releases()).hasSize(1);

        // After a restore the reader re-sends the report, and may still be waiting at T.
        blockBAtT();

        assertThat(releases())
                .containsExactly(new ReleaseBarrierEvent("b", T), new ReleaseBarrierEvent("b", T));
        assertThat(h.metric("pendingBarriers")).isZero();
    }

    @Test
    void answersABarrierReportOfAPartitionAlreadyPastIt() throws Exception {
        h.progress(owner.get("b"), "b", T + 100);

        h.report(owner.get("b"), new BarrierReached("b", T, List.of("a")));

        assertThat(releases()).containsExactly(new ReleaseBarrierEvent("b", T));
        assertThat(h.metric("pendingBarriers")).isZero();
    }

    @Test
    void waitsForASourceNotDiscoveredYet() throws Exception {
        h.report(owner.get("b"), Map.of("b", T - 1), new BarrierReached("b", T, List.of("s")));
        assertThat(releases()).isEmpty();

        h.report(owner.get("a"), new Discovered("a", T - 50, List.of(partition("s", T - 50))));
        assertThat(releases()).isEmpty();

        int sOwner = h.owners().get("s");
        h.progress(sOwner, "s", T);
        assertThat(releases()).containsExactly(new ReleaseBarrierEvent("b", T));
    }

    @Test
    void sendsTheReleaseToTheSubtaskNowReadingThePartition() throws Throwable {
        ChangeStreamEnumeratorState state;
        blockBAtT();
        state = h.checkpoint(1);
        assertThat(state.barriers())
                .containsExactly(new BarrierEntry("b", T, List.of("a", "c", "d")));

        // Restored with another parallelism: "b" is now read by subtask 2.
        try (EnumeratorHarness r = EnumeratorHarness.restored(3, state)) {
            r.start();
            r.addReaders(0, 1, 2);
            r.report(0, Map.of("a", T, "c", T), new Finished("d", T));
            // Satisfied, but the checkpointed subtask of "b" is only a guess: wait for its reader.
            for (int subtask = 0; subtask < 3; subtask++) {
                assertThat(r.events(subtask, ReleaseBarrierEvent.class)).isEmpty();
            }

            r.progress(2, "b", T - 1);

            assertThat(r.events(2, ReleaseBarrierEvent.class))
                    .containsExactly(new ReleaseBarrierEvent("b", T));
            assertThat(r.events(owner.get("b"), ReleaseBarrierEvent.class)).isEmpty();
        }
    }

    @Test
    void releasesAgainToAReaderRestartedFromACheckpointThatPredatesTheRelease() throws Exception {
        int rb = owner.get("b");
        blockBAtT();
        progress(Map.of("a", T, "c", T, "d", T));
        assertThat(releases()).hasSize(1);

        // The reader fails alone and restarts from a checkpoint in which b still waits at T.
        h.context.unregisterReader(rb);
        h.enumerator.addSplitsBack(List.of(), rb);
        h.addReaders(rb);
        String other =
                owner.entrySet().stream()
                        .filter(e -> e.getValue() == rb && !e.getKey().equals("b"))
                        .map(Map.Entry::getKey)
                        .findFirst()
                        .orElseThrow();
        h.resume(
                rb,
                resumedAt("b", T - 1, T, List.of("a", "c", "d")),
                resumedAt(other, T, PartitionSplit.NO_BARRIER, List.of()));

        assertThat(releases()).hasSize(2).allMatch(new ReleaseBarrierEvent("b", T)::equals);
    }

    private static ResumedSplit resumedAt(
            String token, long progress, long barrier, List<String> sources) {
        return new ResumedSplit(token, START, List.of(), progress, barrier, sources, false);
    }

    @Test
    void dropsTheBarrierOfAPartitionThatFinished() throws Exception {
        blockBAtT();
        h.report(owner.get("b"), new Finished("b", T - 1));
        assertThat(h.metric("pendingBarriers")).isZero();
        assertThat(releases()).isEmpty();
    }

    private static int other(int subtask) {
        return 1 - subtask;
    }
}
