package io.spannercs.flink.source.enumerator;

import static io.spannercs.flink.source.enumerator.EnumeratorHarness.START;
import static io.spannercs.flink.source.enumerator.EnumeratorHarness.partition;
import static io.spannercs.flink.source.enumerator.EnumeratorHarness.root;
import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.source.event.AckReportsEvent;
import io.spannercs.flink.source.split.PartitionReport;
import io.spannercs.flink.source.split.PartitionReport.Discovered;
import io.spannercs.flink.source.split.PartitionReport.Finished;
import io.spannercs.flink.source.split.PartitionReport.MovedOut;
import java.util.List;
import org.apache.flink.api.connector.source.SourceEvent;
import org.junit.jupiter.api.Test;

/**
 * Reports are acknowledged as soon as they are applied, to the reader that sent them, repeated and
 * ignored ones too. (Flink delivers events the enumerator sends after its checkpoint only after the
 * reader's checkpoint, so a reader drops a report only from state whose checkpoint pairs with an
 * enumerator state holding it.)
 */
class ReportAcknowledgementTest {

    @Test
    void acknowledgesEachBatchOfReportsOnceApplied() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(2, root("a"), root("b"))) {
            h.addReaders(0, 1);
            h.start();
            int ra = h.owners().get("a");
            int rb = h.owners().get("b");
            PartitionReport first = new MovedOut("a", START + 5, List.of("b"));
            PartitionReport second =
                    new Discovered("b", START + 9, List.of(partition("c", START + 9)));
            PartitionReport third = new Finished("a", START + 20);

            h.report(ra, first);
            h.report(rb, second);
            h.enumerator.snapshotState(1);
            h.report(ra, third);

            // The first acknowledgement goes at once, the next waits for others a little; the
            // periodic check sends what a quiet reader still has.
            assertThat(h.events(ra, AckReportsEvent.class))
                    .containsExactly(new AckReportsEvent(List.of(first.id())));
            h.checkBarrierTimeouts();
            assertThat(h.events(ra, AckReportsEvent.class))
                    .containsExactly(
                            new AckReportsEvent(List.of(first.id())),
                            new AckReportsEvent(List.of(third.id())));
            assertThat(h.events(rb, AckReportsEvent.class))
                    .containsExactly(new AckReportsEvent(List.of(second.id())));
            assertThat(h.enumerator.graph().get("c")).isNotNull();
            assertThat(h.enumerator.graph().get("a").finished()).isTrue();
        }
    }

    @Test
    void acknowledgesIgnoredAndRepeatedReportsToo() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(1, root("a"))) {
            h.addReaders(0);
            h.start();
            PartitionReport unknown = new Finished("never-seen", START + 1);
            PartitionReport moved = new MovedOut("a", START + 5, List.of("b"));

            h.report(0, unknown, moved);
            h.report(0, moved); // re-sent
            h.report(0, moved); // and again
            h.clockMillis.addAndGet(ChangeStreamSplitEnumerator.ACK_INTERVAL_MILLIS);
            h.progress(0, "a", START + 6); // any event of the reader once the interval passed

            assertThat(h.events(0, AckReportsEvent.class))
                    .containsExactly(
                            new AckReportsEvent(List.of(unknown.id(), moved.id())),
                            new AckReportsEvent(List.of(moved.id(), moved.id())));
        }
    }

    @Test
    void aBusyReaderGetsItsAcknowledgementsInBatches() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(1, root("a"))) {
            h.addReaders(0);
            h.start();
            int n = 1 + ChangeStreamSplitEnumerator.ACK_BATCH;
            for (int i = 0; i < n; i++) {
                h.report(0, new MovedOut("a", START + 1 + i, List.of("b")));
            }
            List<AckReportsEvent> acks = h.events(0, AckReportsEvent.class);
            assertThat(acks).hasSize(2);
            assertThat(acks.get(0).reportIds()).hasSize(1);
            assertThat(acks.get(1).reportIds()).hasSize(ChangeStreamSplitEnumerator.ACK_BATCH);
        }
    }

    /**
     * A reader told there are no more splits may finish at once, and Flink fails the job over an
     * event sent to a finished task ("An OperatorEvent from an OperatorCoordinator to a task was
     * lost"): its last acknowledgement goes before the signal, and nothing follows it.
     */
    @Test
    void aBoundedReaderGetsItsLastAcknowledgementBeforeNoMoreSplitsAndNothingAfter()
            throws Throwable {
        long end = START + 1_000;
        try (EnumeratorHarness h = new EnumeratorHarness(1, end, root("a"))) {
            h.addReaders(0);
            h.start();
            PartitionReport moved = new MovedOut("a", START + 5, List.of("b"));
            PartitionReport finished = new Finished("a", end);
            h.report(0, moved); // acknowledged at once
            h.report(0, finished); // within the interval: its acknowledgement would wait

            assertThat(h.context.hasNoMoreSplits(0)).isTrue();
            assertThat(h.events(0, AckReportsEvent.class))
                    .containsExactly(
                            new AckReportsEvent(List.of(moved.id())),
                            new AckReportsEvent(List.of(finished.id())));
            List<SourceEvent> beforeTheSignal = h.events(0);
            h.checkBarrierTimeouts(); // the periodic check
            h.report(0, finished); // a report that crossed the signal
            assertThat(h.events(0)).isEqualTo(beforeTheSignal);
        }
    }

    @Test
    void progressAloneNeedsNoAcknowledgement() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(1, root("a"))) {
            h.addReaders(0);
            h.start();
            h.progress(0, "a", START + 5);

            assertThat(h.events(0, AckReportsEvent.class)).isEmpty();
        }
    }
}
