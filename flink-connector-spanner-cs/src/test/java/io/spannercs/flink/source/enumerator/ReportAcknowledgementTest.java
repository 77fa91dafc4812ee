package io.spannercs.flink.source.enumerator;

import static io.spannercs.flink.source.enumerator.EnumeratorHarness.START;
import static io.spannercs.flink.source.enumerator.EnumeratorHarness.partition;
import static io.spannercs.flink.source.enumerator.EnumeratorHarness.root;
import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.source.event.AckReportsEvent;
import io.spannercs.flink.source.event.PartitionReport;
import io.spannercs.flink.source.event.PartitionReport.Discovered;
import io.spannercs.flink.source.event.PartitionReport.Finished;
import io.spannercs.flink.source.event.PartitionReport.MovedOut;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Reports are acknowledged only once a completed checkpoint holds their effect. */
class ReportAcknowledgementTest {

    @Test
    void acknowledgesReportsOnlyAfterACheckpointTakenAfterThemCompletes() throws Throwable {
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
            h.enumerator.notifyCheckpointComplete(1); // no snapshot holds them yet
            assertThat(h.events(ra, AckReportsEvent.class)).isEmpty();

            h.enumerator.snapshotState(2);
            h.report(ra, third); // after the snapshot: not in checkpoint 2
            h.enumerator.notifyCheckpointComplete(2);

            assertThat(h.events(ra, AckReportsEvent.class))
                    .containsExactly(new AckReportsEvent(List.of(first.id())));
            assertThat(h.events(rb, AckReportsEvent.class))
                    .containsExactly(new AckReportsEvent(List.of(second.id())));

            h.enumerator.snapshotState(3);
            h.enumerator.snapshotState(4);
            h.enumerator.notifyCheckpointComplete(4); // 3 never completed on its own
            assertThat(h.events(ra, AckReportsEvent.class))
                    .containsExactly(
                            new AckReportsEvent(List.of(first.id())),
                            new AckReportsEvent(List.of(third.id())));
            assertThat(h.enumerator.heldReportIds()).isZero();
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

            h.enumerator.snapshotState(1);
            h.enumerator.notifyCheckpointComplete(1);
            assertThat(h.events(0, AckReportsEvent.class))
                    .containsExactly(new AckReportsEvent(List.of(unknown.id(), moved.id())));
        }
    }

    @Test
    void doesNotAcknowledgeAReaderThatIsGone() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(1, root("a"))) {
            h.addReaders(0);
            h.start();
            h.report(0, new MovedOut("a", START + 5, List.of("b")));
            h.enumerator.snapshotState(1);
            h.context.unregisterReader(0);

            h.enumerator.notifyCheckpointComplete(1);

            assertThat(h.events(0, AckReportsEvent.class)).isEmpty();
        }
    }
}
