package io.spannercs.flink.source.enumerator;

import static io.spannercs.flink.source.enumerator.EnumeratorHarness.START;
import static io.spannercs.flink.source.enumerator.EnumeratorHarness.partition;
import static io.spannercs.flink.source.enumerator.EnumeratorHarness.root;
import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.source.event.AckReportsEvent;
import io.spannercs.flink.source.event.EventsStoppedEvent;
import io.spannercs.flink.source.event.ReaderFailingEvent;
import io.spannercs.flink.source.split.PartitionReport;
import io.spannercs.flink.source.split.PartitionReport.Discovered;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * From the enumerator's part of a checkpoint until a reader's part, the enumerator sends that
 * reader nothing: no event, no split, not the end of the splits. Flink holds what a coordinator
 * sends a subtask in that window, and a subtask that fails inside it never gets what was held, nor
 * is it failed: the coordinator's part of the next checkpoint then waits for it until that
 * checkpoint times out, and everything sent to the restarted reader meanwhile waits too (a job
 * stalled ten minutes so). The window closes when the reader says it took its part, when the
 * checkpoint completes or is aborted, and when the subtask registers again.
 */
class CheckpointWindowTest {

    @Test
    void aReaderGetsNothingBetweenTheEnumeratorsPartOfACheckpointAndItsOwn() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(1, root("a"))) {
            h.addReaders(0);
            h.start();
            int events = h.events(0).size();
            int assignments = h.assignments().size();

            h.enumeratorCheckpoint(5);
            PartitionReport discovered =
                    new Discovered("a", START + 9, List.of(partition("c", START + 9)));
            h.report(0, Map.of("a", START + 9), discovered);
            h.checkBarrierTimeouts(); // the periodic check sends nothing either

            assertThat(h.events(0)).as("events inside the window").hasSize(events);
            assertThat(h.assignments()).as("splits inside the window").hasSize(assignments);

            h.readerCheckpointed(0, 5);
            assertThat(h.events(0, AckReportsEvent.class))
                    .containsExactly(new AckReportsEvent(List.of(discovered.id())));
            assertThat(h.owners()).containsEntry("c", 0);
        }
    }

    @Test
    void theWindowClosesWhenTheCheckpointIsAbortedOrCompletes() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(1, root("a"))) {
            h.addReaders(0);
            h.start();
            h.enumeratorCheckpoint(5);
            h.report(0, new Discovered("a", START + 9, List.of(partition("c", START + 9))));
            assertThat(h.owners()).doesNotContainKey("c");
            h.enumerator.notifyCheckpointAborted(5); // before the reader took its part
            assertThat(h.owners()).containsEntry("c", 0);

            h.enumeratorCheckpoint(6);
            h.report(0, new Discovered("c", START + 20, List.of(partition("d", START + 20))));
            assertThat(h.owners()).doesNotContainKey("d");
            h.enumerator.notifyCheckpointComplete(6);
            assertThat(h.owners()).containsEntry("d", 0);
        }
    }

    @Test
    void aReaderThatFailedInsideTheWindowGetsNothingHeldForItWhenItRegistersAgain()
            throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(1, root("a"))) {
            h.addReaders(0);
            h.start();
            h.enumeratorCheckpoint(5);
            PartitionReport discovered =
                    new Discovered("a", START + 9, List.of(partition("c", START + 9)));
            h.report(0, discovered);
            int events = h.events(0).size();

            h.context.unregisterReader(0); // failed before its part of checkpoint 5
            h.addReaders(0); // the restarted reader, from the checkpoint before

            assertThat(h.events(0).subList(events, h.events(0).size()))
                    .as("events for the reader that failed")
                    .noneMatch(AckReportsEvent.class::isInstance);
            assertThat(h.owners())
                    .as("the child, assigned to the restarted reader")
                    .containsEntry("c", 0);
        }
    }

    @Test
    void aFailingReaderIsToldToStopOnlyAfterItsPartOfTheCheckpoint() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(1, root("a"))) {
            h.addReaders(0);
            h.start();
            h.enumeratorCheckpoint(5);
            h.enumerator.handleSourceEvent(0, new ReaderFailingEvent("java.io.IOException: x"));
            assertThat(h.events(0, EventsStoppedEvent.class)).isEmpty();

            h.readerCheckpointed(0, 5);
            assertThat(h.events(0, EventsStoppedEvent.class)).hasSize(1);
        }
    }

    @Test
    void aReadersPartOfAnEarlierCheckpointDoesNotCloseTheWindowOfALaterOne() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(1, root("a"))) {
            h.addReaders(0);
            h.start();
            h.enumeratorCheckpoint(5);
            h.enumeratorCheckpoint(6);
            h.report(0, new Discovered("a", START + 9, List.of(partition("c", START + 9))));
            h.readerCheckpointed(0, 5);
            assertThat(h.owners()).doesNotContainKey("c");
            h.readerCheckpointed(0, 6);
            assertThat(h.owners()).containsEntry("c", 0);
        }
    }
}
