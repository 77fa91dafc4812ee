package io.spannercs.flink.source.enumerator;

import static io.spannercs.flink.source.enumerator.EnumeratorHarness.START;
import static io.spannercs.flink.source.enumerator.EnumeratorHarness.partition;
import static io.spannercs.flink.source.enumerator.EnumeratorHarness.root;
import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.source.event.ReleaseBarrierEvent;
import io.spannercs.flink.source.split.PartitionReport.BarrierReached;
import io.spannercs.flink.source.split.PartitionReport.Discovered;
import io.spannercs.flink.source.split.PartitionReport.Finished;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Finished partitions leave the state once nothing can refer to them. */
class PruningTest {
    private static final long SECOND = 1_000_000;

    @Test
    void stateStaysSmallOnALongChainOfPartitions() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(2, root("p0"))) {
            h.addReaders(0, 1);
            h.start();
            int n = 10_000;
            // A legacy-style chain: each partition ends with one child, ten seconds later.
            for (int i = 0; i < n; i++) {
                long t = START + (i + 1) * 10 * SECOND;
                String token = "p" + i;
                String child = "p" + (i + 1);
                h.report(
                        h.ownerOf(token),
                        Map.of(token, t - 1),
                        new Discovered(token, t, List.of(partition(child, t, token))),
                        new Finished(token, t));
                h.progress(h.ownerOf(child), child, t + 5 * SECOND);
            }
            h.enumerator.snapshotState(1);
            h.enumerator.notifyCheckpointComplete(1);

            ChangeStreamEnumeratorState state = h.checkpoint(2);
            assertThat(state.partitions()).hasSizeLessThanOrEqualTo(2);
            assertThat(state.partitions()).extracting(PartitionEntry::token).contains("p" + n);
            // Only the last hour of stream time is remembered: 360 partitions of ten seconds.
            assertThat(state.prunedEndMicros()).hasSizeBetween(355, 365);
            assertThat(ChangeStreamEnumeratorStateSerializer.INSTANCE.serialize(state).length)
                    .isLessThan(16 * 1024);
            assertThat(h.enumerator.heldRecentEnds()).isZero();
            assertThat(h.metric("knownPartitions")).isLessThanOrEqualTo(2);
        }
    }

    @Test
    void aRestoredEnumeratorForgetsPrunedTokensOnceAnHourOfStreamTimePasses() throws Throwable {
        long t = START + 10 * SECOND;
        ChangeStreamEnumeratorState state;
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(1, root("a"))) {
            h.addReaders(0);
            h.start();
            // a -> b -> c: a is pruned once b has finished (c still names b).
            h.report(
                    0,
                    new Discovered("a", t, List.of(partition("b", t, "a"))),
                    new Finished("a", t));
            h.report(
                    0,
                    new Discovered("b", t + SECOND, List.of(partition("c", t + SECOND, "b"))),
                    new Finished("b", t + SECOND));
            h.progress(0, "c", t + 2 * SECOND);
            state = h.checkpoint(1);
        }
        assertThat(state.prunedEndMicros()).containsOnlyKeys("a");

        try (EnumeratorHarness h = EnumeratorHarness.restored(1, state)) {
            h.addReaders(0);
            h.start();
            h.progress(0, "c", t + 3600 * SECOND);
            assertThat(h.checkpoint(2).prunedEndMicros()).as("an hour after its end").isNotEmpty();
            h.progress(0, "c", t + 3602 * SECOND);
            assertThat(h.checkpoint(3).prunedEndMicros()).as("past an hour").isEmpty();
        }
    }

    @Test
    void keepsFinishedParentsWhileTheirChildIsUnfinished() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(1, root("a"), root("b"))) {
            h.addReaders(0);
            h.start();
            long t = START + 10;
            for (String parent : List.of("a", "b")) {
                h.report(
                        0,
                        new Discovered(parent, t, List.of(partition("c", t, "a", "b"))),
                        new Finished(parent, t));
            }
            h.progress(0, "c", t + 100);
            // The low watermark is above the parents' end, but c still names them.
            assertThat(h.enumerator.graph().lowWatermarkMicros()).isGreaterThan(t);
            assertThat(h.enumerator.graph().get("a")).isNotNull();
            assertThat(h.enumerator.graph().get("b")).isNotNull();

            h.report(
                    0,
                    new Discovered("c", t + 200, List.of(partition("d", t + 200, "c"))),
                    new Finished("c", t + 200));
            h.progress(0, "d", t + 300);

            assertThat(h.enumerator.graph().partitions())
                    .extracting(PartitionEntry::token)
                    .containsExactly("c", "d");
        }
    }

    @Test
    void keepsAFinishedSourceOfAPendingBarrierAndReleasesLaterReportsOfIt() throws Throwable {
        try (EnumeratorHarness h =
                EnumeratorHarness.unbounded(1, root("a"), root("b"), root("c"))) {
            h.addReaders(0);
            h.start();
            long t = START + 1_000;
            h.report(0, new Finished("a", START + 10));
            h.report(0, Map.of("c", t - 1), new BarrierReached("c", t, List.of("a", "b")));
            h.progress(0, "b", START + 500);
            assertThat(h.enumerator.graph().get("a")).as("named by c's barrier").isNotNull();

            h.progress(0, "b", t);
            assertThat(h.events(0, ReleaseBarrierEvent.class)).hasSize(1);
            assertThat(h.enumerator.graph().get("a")).as("pruned").isNull();

            // A re-sent report naming the pruned source is answered again: a pruned source has
            // finished.
            h.report(0, new BarrierReached("c", t, List.of("a", "b")));
            assertThat(h.events(0, ReleaseBarrierEvent.class))
                    .containsExactly(
                            new ReleaseBarrierEvent("c", t), new ReleaseBarrierEvent("c", t));
        }
    }
}
