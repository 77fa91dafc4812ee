package io.spannercs.flink.source.enumerator;

import static io.spannercs.flink.source.enumerator.EnumeratorHarness.START;
import static io.spannercs.flink.source.enumerator.EnumeratorHarness.partition;
import static io.spannercs.flink.source.enumerator.EnumeratorHarness.root;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.spanner.Dialect;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.event.AssignedElsewhereEvent;
import io.spannercs.flink.source.event.LowWatermarkEvent;
import io.spannercs.flink.source.event.StreamShapeEvent;
import io.spannercs.flink.source.record.HeartbeatRecord;
import io.spannercs.flink.source.spanner.ChangeStreamQuery;
import io.spannercs.flink.source.split.PartitionPosition;
import io.spannercs.flink.source.split.PartitionReport.Discovered;
import io.spannercs.flink.source.split.PartitionReport.Finished;
import io.spannercs.flink.source.split.PartitionSplit;
import java.util.List;
import java.util.Map;
import org.apache.flink.util.FlinkRuntimeException;
import org.junit.jupiter.api.Test;

class ChangeStreamSplitEnumeratorTest {

    @Test
    void assignsTheRootPartitionsBalancedOverTheReaders() throws Throwable {
        try (EnumeratorHarness h =
                EnumeratorHarness.unbounded(2, root("a"), root("b"), root("c"), root("d"))) {
            h.addReaders(0, 1);
            h.start();

            assertThat(h.rootQueries).hasValue(1);
            assertThat(h.owners()).containsOnlyKeys("a", "b", "c", "d");
            assertThat(h.owners().values()).containsExactlyInAnyOrder(0, 0, 1, 1);
            assertThat(h.assignments())
                    .extracting(Map.Entry::getValue)
                    .contains(PartitionSplit.fresh("a", START, h.config.endMicros(), List.of()));
            assertThat(h.metric("knownPartitions")).isEqualTo(4);
            assertThat(h.metric("unassignedPartitions")).isZero();
        }
    }

    @Test
    void tellsEveryReaderTheStreamShapeTheRootQueryFound() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(2, root("a"), root("b"))) {
            h.rootQueryFinds(
                    new ChangeStreamQuery(
                            "orders_cs",
                            Dialect.POSTGRESQL,
                            SpannerSourceConfig.PartitionMode.MUTABLE_KEY_RANGE));
            h.addReaders(0);
            h.start();
            h.addReaders(1);

            StreamShapeEvent expected =
                    new StreamShapeEvent(
                            Dialect.POSTGRESQL,
                            SpannerSourceConfig.PartitionMode.MUTABLE_KEY_RANGE);
            assertThat(h.events(0, StreamShapeEvent.class)).containsExactly(expected);
            assertThat(h.events(1, StreamShapeEvent.class)).containsExactly(expected);
        }
    }

    @Test
    void tellsNoShapeWhenTheRootQueryKnowsNone() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(1, root("a"))) {
            h.addReaders(0);
            h.start();
            assertThat(h.events(0, StreamShapeEvent.class)).isEmpty();
        }
    }

    /** The first reader to register would otherwise get every partition of a new job. */
    @Test
    void waitsForEveryReaderBeforeTheFirstAssignment() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(2, root("a"), root("b"))) {
            h.start();
            assertThat(h.assignments()).isEmpty();
            assertThat(h.metric("unassignedPartitions")).isEqualTo(2);

            h.addReaders(1);
            assertThat(h.assignments()).as("with one of two readers").isEmpty();
            assertThat(h.events(1, LowWatermarkEvent.class)).isNotEmpty();

            h.addReaders(0);
            assertThat(h.owners()).containsOnlyKeys("a", "b");
            assertThat(h.owners().values()).containsExactlyInAnyOrder(0, 1);
        }
    }

    @Test
    void assignsToTheReadersThatRegisteredOnceTheWaitForTheOthersRunsOut() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(2, root("a"), root("b"))) {
            h.start();
            h.addReaders(1);
            h.clockMillis.addAndGet(ChangeStreamSplitEnumerator.START_ASSIGNMENT_WAIT_MILLIS - 1);
            h.checkBarrierTimeouts(); // the periodic check
            assertThat(h.assignments()).isEmpty();

            h.clockMillis.addAndGet(1);
            h.checkBarrierTimeouts();
            assertThat(h.owners()).containsEntry("a", 1).containsEntry("b", 1);
        }
    }

    @Test
    void assignsDiscoveredPartitionsToTheirDiscovererWhileWithinOneOfTheLeastLoaded()
            throws Throwable {
        try (EnumeratorHarness h =
                EnumeratorHarness.unbounded(3, root("a"), root("b"), root("c"))) {
            h.addReaders(0, 1, 2);
            h.start();
            String onTwo = tokenOn(h, 2);
            long t = START + 100;

            // Loads 1/1/1: the discoverer takes x (2) and y (3 > 1 + 1 stops it), then z goes
            // to the least loaded reader.
            h.report(
                    2,
                    new Discovered(
                            onTwo,
                            t,
                            List.of(partition("x", t), partition("y", t), partition("z", t))));

            assertThat(h.owners())
                    .containsEntry("x", 2)
                    .containsEntry("y", 2)
                    .containsEntry("z", 0);
        }
    }

    @Test
    void tellsReadersWhichPartitionsWentToAnotherReader() throws Throwable {
        try (EnumeratorHarness h =
                EnumeratorHarness.unbounded(3, root("a"), root("b"), root("c"))) {
            h.addReaders(0, 1, 2);
            h.start();
            long t = START + 100;

            h.report(
                    2,
                    new Discovered(
                            tokenOn(h, 2),
                            t,
                            List.of(partition("x", t), partition("y", t), partition("z", t))));

            // x and y went to 2, z to 0 (see above): whoever read one ahead gives it up.
            assertThat(h.events(2, AssignedElsewhereEvent.class))
                    .containsExactly(new AssignedElsewhereEvent(List.of("z")));
            assertThat(h.events(0, AssignedElsewhereEvent.class))
                    .containsExactly(new AssignedElsewhereEvent(List.of("x", "y")));
            assertThat(h.events(1, AssignedElsewhereEvent.class))
                    .containsExactly(new AssignedElsewhereEvent(List.of("z", "x", "y")));
        }
    }

    /** Only readers of a legacy child's parents may have read it ahead: only they are told. */
    @Test
    void tellsOnlyTheReadersOfALegacyChildsParents() throws Throwable {
        try (EnumeratorHarness h =
                EnumeratorHarness.unbounded(3, root("a"), root("b"), root("c"))) {
            h.addReaders(0, 1, 2);
            h.start();
            int readerA = h.owners().get("a");
            long t = START + 100;

            h.report(
                    readerA,
                    new Discovered(
                            "a",
                            t,
                            List.of(
                                    partition("v", t, "a"),
                                    partition("w", t, "a"),
                                    partition("x", t, "a"),
                                    partition("y", t, "a"),
                                    partition("z", t, "a"))),
                    new Finished("a", t));

            Map<String, Integer> owners = h.owners();
            for (int reader = 0; reader < 3; reader++) {
                List<String> told =
                        h.events(reader, AssignedElsewhereEvent.class).stream()
                                .flatMap(e -> e.tokens().stream())
                                .toList();
                if (reader != readerA) {
                    assertThat(told).as("subtask %s read no parent", reader).isEmpty();
                } else {
                    assertThat(told)
                            .containsExactlyInAnyOrderElementsOf(
                                    List.of("v", "w", "x", "y", "z").stream()
                                            .filter(c -> owners.get(c) != readerA)
                                            .toList());
                }
            }
            assertThat(List.of("v", "w", "x", "y", "z").stream().map(owners::get).toList())
                    .as("one child went to another reader, so the test sees a notice")
                    .anyMatch(r -> r != readerA);
        }
    }

    /** A merge's second parent announces the child after it was assigned: told at once. */
    @Test
    void tellsALateAnnouncerThatThePartitionWentElsewhere() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(2, root("a"), root("b"))) {
            h.addReaders(0, 1);
            h.start();
            int readerA = h.owners().get("a");
            int readerB = h.owners().get("b");
            assertThat(readerA).isNotEqualTo(readerB);
            long t = START + 100;
            h.report(readerA, new Discovered("a", t, List.of(partition("n", t))));
            assertThat(h.owners()).containsEntry("n", readerA);
            assertThat(h.events(readerB, AssignedElsewhereEvent.class))
                    .containsExactly(new AssignedElsewhereEvent(List.of("n")));

            h.report(readerB, new Discovered("b", t, List.of(partition("n", t))));
            h.report(readerA, new Discovered("a", t, List.of(partition("n", t))));

            assertThat(h.events(readerB, AssignedElsewhereEvent.class))
                    .as("once at the assignment, once more for its own late announcement")
                    .containsExactly(
                            new AssignedElsewhereEvent(List.of("n")),
                            new AssignedElsewhereEvent(List.of("n")));
            assertThat(h.events(readerA, AssignedElsewhereEvent.class))
                    .as("the reader that has it is never told")
                    .isEmpty();
        }
    }

    @Test
    void assignsADiscoveredPartitionOnlyOnce() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(2, root("a"), root("b"))) {
            h.addReaders(0, 1);
            h.start();
            long t = START + 100;
            Discovered d = new Discovered("a", t, List.of(partition("n", t)));

            h.report(h.owners().get("a"), d);
            h.report(h.owners().get("a"), d);
            h.report(h.owners().get("b"), new Discovered("b", t, List.of(partition("n", t))));

            assertThat(h.assignments()).extracting(e -> e.getValue().token()).containsOnlyOnce("n");
        }
    }

    @Test
    void startsAMergedLegacyChildOnceBothParentsFinished() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(2, root("a"), root("b"))) {
            h.addReaders(0, 1);
            h.start();
            int readerA = h.owners().get("a");
            int readerB = h.owners().get("b");
            long t = START + 500;

            h.report(
                    readerA,
                    new Discovered("a", t, List.of(partition("c", t, "a", "b"))),
                    new Finished("a", t));
            assertThat(h.owners()).doesNotContainKey("c");
            assertThat(h.metric("unassignedPartitions")).isEqualTo(1);

            h.report(
                    readerB,
                    new Discovered("b", t, List.of(partition("c", t, "a", "b"))),
                    new Finished("b", t));

            assertThat(h.assignments()).extracting(e -> e.getValue().token()).containsOnlyOnce("c");
            PartitionSplit c =
                    h.assignments().stream()
                            .map(Map.Entry::getValue)
                            .filter(s -> s.token().equals("c"))
                            .findFirst()
                            .orElseThrow();
            assertThat(c)
                    .isEqualTo(
                            PartitionSplit.fresh("c", t, h.config.endMicros(), List.of("a", "b")));
        }
    }

    @Test
    void lowWatermarkIsTheLeastProgressOfUnfinishedPartitionsAssignedOrNot() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(2, root("a"), root("b"))) {
            h.addReaders(0, 1);
            h.start();
            int ra = h.owners().get("a");
            int rb = h.owners().get("b");
            // A microsecond below the least progress (PartitionGraph.belowProgress).
            assertThat(h.enumerator.graph().lowWatermarkMicros()).isEqualTo(START - 2);

            h.progress(ra, "a", START + 200);
            h.progress(rb, "b", START + 150);
            assertThat(h.metric("lowWatermarkMicros")).isEqualTo(START + 149);

            // A legacy child waits unassigned for its second parent, and still holds the
            // low watermark below its start.
            h.report(
                    ra,
                    Map.of("a", START + 200),
                    new Discovered(
                            "a", START + 160, List.of(partition("c", START + 160, "a", "b"))),
                    new Finished("a", START + 160));
            h.progress(rb, "b", START + 300);
            assertThat(h.owners()).doesNotContainKey("c");
            assertThat(h.metric("lowWatermarkMicros")).isEqualTo(START + 158);

            // Progress never goes back, nor does the low watermark.
            h.progress(rb, "b", START + 100);
            assertThat(h.metric("lowWatermarkMicros")).isEqualTo(START + 158);

            for (int r : List.of(0, 1)) {
                assertThat(h.events(r, LowWatermarkEvent.class))
                        .extracting(LowWatermarkEvent::micros)
                        .isSorted()
                        .doesNotHaveDuplicates()
                        .endsWith(START + 158);
            }
        }
    }

    @Test
    void ignoresARediscoveredPartitionThatStartsAtOrBelowTheLowWatermark() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(1, root("a"))) {
            h.addReaders(0);
            h.start();
            long t = START + 100;
            Discovered d = new Discovered("a", t, List.of(partition("b", t)));
            h.report(0, d, new Finished("a", t));
            h.report(0, new Discovered("b", t + 50, List.of(partition("c", t + 50))));
            h.report(0, Map.of("c", t + 400), new Finished("b", t + 50));
            assertThat(h.enumerator.graph().get("b")).isNull(); // pruned

            h.report(0, d); // re-sent after a restore

            assertThat(h.enumerator.graph().get("b")).isNull();
            assertThat(h.assignments()).extracting(e -> e.getValue().token()).containsOnlyOnce("b");

            // The same for a token the source has never seen, as long as it is that old.
            h.report(0, new Discovered("x", t, List.of(partition("y", t))));
            assertThat(h.enumerator.graph().get("y")).isNull();
        }
    }

    @Test
    void reassignsGivenBackSplitsFromTheirPositions() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(2, root("a"), root("b"))) {
            h.addReaders(0, 1);
            h.start();
            String a = tokenOn(h, 0);
            PartitionSplit atPosition =
                    new PartitionSplit(
                            a,
                            START,
                            h.config.endMicros(),
                            List.of(),
                            new PartitionPosition(START + 500, List.of("D7/00000003"), null),
                            PartitionSplit.NO_BARRIER,
                            List.of(),
                            List.of(),
                            false);

            h.context.unregisterReader(0);
            h.enumerator.addSplitsBack(List.of(atPosition), 0);

            List<Map.Entry<Integer, PartitionSplit>> all = h.assignments();
            assertThat(all.get(all.size() - 1)).isEqualTo(Map.entry(1, atPosition));
            assertThat(h.enumerator.graph().get(a).status()).isEqualTo(PartitionStatus.ASSIGNED);
            assertThat(h.enumerator.graph().get(a).resumeSplit()).isNull();
        }
    }

    @Test
    void keepsAGivenBackSplitUntilAReaderCanTakeIt() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(1, root("a"))) {
            h.addReaders(0);
            h.start();
            PartitionSplit returned =
                    new PartitionSplit(
                            "a",
                            START,
                            h.config.endMicros(),
                            List.of(),
                            new PartitionPosition(
                                    START + 7, List.of(HeartbeatRecord.IDENTITY), null),
                            PartitionSplit.NO_BARRIER,
                            List.of(),
                            List.of(),
                            false);
            h.context.unregisterReader(0);
            h.enumerator.addSplitsBack(List.of(returned), 0);

            ChangeStreamEnumeratorState state = h.checkpoint(1);
            assertThat(state.partitions())
                    .singleElement()
                    .satisfies(
                            p -> {
                                assertThat(p.status()).isEqualTo(PartitionStatus.UNASSIGNED);
                                assertThat(p.resumeSplit()).isEqualTo(returned);
                            });

            try (EnumeratorHarness restored = EnumeratorHarness.restored(1, state)) {
                restored.start();
                restored.addReaders(0);
                assertThat(restored.assignments()).containsExactly(Map.entry(0, returned));
            }
        }
    }

    /**
     * A bounded source told every reader there are no more splits; one reader finished, then the
     * other fails and gives a partition back. The finished reader cannot take it (Flink cannot
     * deliver splits to a finished task, so the job would never end): the restarted reader gets it
     * (CheckpointAnywhereITCase found the job waiting for ever). Two rules keep it so: readers told
     * there are no more splits get none, and none gets a partition that resumes below the low
     * watermark it was told (here the source's end).
     */
    @Test
    void aPartitionGivenBackAfterNoMoreSplitsWaitsForTheRestartedReader() throws Throwable {
        long end = START + 1_000;
        try (EnumeratorHarness h = new EnumeratorHarness(2, end, root("a"), root("b"))) {
            h.addReaders(0, 1);
            h.start();
            int ra = h.owners().get("a");
            int rb = h.owners().get("b");
            h.report(ra, new Finished("a", end));
            h.report(rb, new Finished("b", end));
            assertThat(h.context.hasNoMoreSplits(ra)).isTrue();
            assertThat(h.context.hasNoMoreSplits(rb)).isTrue();

            // a's reader fails; a was assigned after its last checkpoint, so it comes back.
            h.context.unregisterReader(ra);
            h.enumerator.addSplitsBack(
                    List.of(PartitionSplit.fresh("a", START, end, List.of())), ra);
            assertThat(h.assignments()).as("assigned before the restart").hasSize(2);

            h.addReaders(ra);
            assertThat(h.assignments()).hasSize(3);
            assertThat(h.owners()).containsEntry("a", ra);
        }
    }

    @Test
    void signalsNoMoreSplitsOnceEveryPartitionOfABoundedSourceFinished() throws Throwable {
        long end = START + 1_000;
        try (EnumeratorHarness h = new EnumeratorHarness(3, end, root("a"), root("b"))) {
            h.addReaders(0, 1);
            h.start();
            // Reader 2 registers only at the end: the first assignment stops waiting for it.
            h.clockMillis.addAndGet(ChangeStreamSplitEnumerator.START_ASSIGNMENT_WAIT_MILLIS);
            h.checkBarrierTimeouts();
            int ra = h.owners().get("a");
            int rb = h.owners().get("b");

            h.report(ra, new Finished("a", end));
            assertThat(h.context.hasNoMoreSplits(0)).isFalse();
            assertThat(h.context.hasNoMoreSplits(1)).isFalse();

            h.report(rb, new Finished("b", end));
            assertThat(h.context.hasNoMoreSplits(0)).isTrue();
            assertThat(h.context.hasNoMoreSplits(1)).isTrue();
            assertThat(h.metric("lowWatermarkMicros")).isEqualTo(end);

            h.addReaders(2);
            assertThat(h.context.hasNoMoreSplits(2)).isTrue();
        }
    }

    @Test
    void neverSignalsNoMoreSplitsOnAnUnboundedSource() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(1, root("a"))) {
            h.addReaders(0);
            h.start();
            h.report(0, new Finished("a", START + 10));
            assertThat(h.context.hasNoMoreSplits(0)).isFalse();
        }
    }

    @Test
    void failsTheJobWithTheRootQuerysReason() throws Exception {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(1)) {
            h.failRootQueryWith(
                    new FlinkRuntimeException(
                            "The root query of change stream orders_cs in database"
                                    + " projects/p/instances/i/databases/d failed with"
                                    + " INVALID_ARGUMENT: Table-valued function not found:"
                                    + " READ_orders_cs"));
            h.enumerator.start();

            assertThatThrownBy(h.context::runNextOneTimeCallable)
                    .hasMessageContaining("orders_cs")
                    .hasMessageContaining("projects/p/instances/i/databases/d")
                    .hasMessageContaining("Table-valued function not found: READ_orders_cs");
            assertThat(h.enumerator.graph().rootQueryDone()).isFalse();
        }
    }

    @Test
    void restoresWithoutRunningTheRootQueryOrMovingAssignedPartitions() throws Throwable {
        ChangeStreamEnumeratorState state;
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(2, root("a"), root("b"))) {
            h.addReaders(0, 1);
            h.start();
            h.progress(h.owners().get("a"), "a", START + 40);
            h.progress(h.owners().get("b"), "b", START + 30);
            // With no reader registered, the partition discovered next stays unassigned.
            h.context.unregisterReader(0);
            h.context.unregisterReader(1);
            h.report(
                    h.owners().get("a"),
                    new Discovered("a", START + 50, List.of(partition("n", START + 50))));
            state = h.checkpoint(7);
        }
        assertThat(state.rootQueryDone()).isTrue();
        assertThat(state.lowWatermarkMicros()).isEqualTo(START + 29);

        try (EnumeratorHarness r = EnumeratorHarness.restored(3, state)) {
            r.start();
            r.addReaders(0, 1, 2);

            assertThat(r.rootQueries).hasValue(0);
            // Only the partition that was never assigned is assigned: the others come back
            // with the readers' own state.
            assertThat(r.owners()).containsOnlyKeys("n");
            assertThat(r.events(2, LowWatermarkEvent.class))
                    .containsExactly(new LowWatermarkEvent(START + 29));
        }
    }

    private static String tokenOn(EnumeratorHarness h, int subtask) {
        return h.owners().entrySet().stream()
                .filter(e -> e.getValue() == subtask)
                .map(Map.Entry::getKey)
                .findFirst()
                .orElseThrow();
    }
}
