package io.spannercs.flink.source.enumerator;

import static io.spannercs.flink.source.enumerator.EnumeratorHarness.START;
import static io.spannercs.flink.source.enumerator.EnumeratorHarness.partition;
import static io.spannercs.flink.source.enumerator.EnumeratorHarness.root;
import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.source.event.LowWatermarkEvent;
import io.spannercs.flink.source.split.PartitionReport.Discovered;
import io.spannercs.flink.source.split.PartitionReport.Finished;
import io.spannercs.flink.source.split.PartitionSplit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The low watermark readers emit is a lower bound for every record they may still emit, whichever
 * partitions they get later (DESIGN.md section 3): after a failover of some readers, and when a
 * partition's children start exactly where its last heartbeat was.
 */
class LowWatermarkFailoverTest {

    /**
     * Reader 0 fails after partition x, assigned to it after its last checkpoint, had read far
     * ahead: the low watermark went up to where x and the roots were, and reader 1 emitted it.
     * Flink gives x back from its start. Reader 1 must not get it: x's records below the watermark
     * reader 1 emitted would be late downstream of reader 1 (whose pipeline did not restart). The
     * restarted reader 0, whose pipeline starts again, gets it.
     */
    @Test
    void aPartitionGivenBackGoesOnlyToAReaderThatHasNotEmittedAWatermarkAboveIt() throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(2, root("a"), root("b"))) {
            h.addReaders(0, 1);
            h.start();
            int ra = h.owners().get("a");
            int rb = h.owners().get("b");
            assertThat(ra).isNotEqualTo(rb);
            long t = START + 100;
            h.report(ra, Map.of("a", t), new Discovered("a", t, List.of(partition("x", t))));
            int rx = h.owners().get("x");
            h.progress(rx, "x", t + 5_000);
            h.progress(ra, "a", t + 5_000);
            h.progress(rb, "b", t + 5_000);
            int other = 1 - rx;
            assertThat(lastLowWatermark(h, other)).isGreaterThan(t + 1_000);

            h.context.unregisterReader(rx);
            h.enumerator.addSplitsBack(
                    List.of(PartitionSplit.fresh("x", t, h.config.endMicros(), List.of())), rx);
            assertThat(h.assignments().stream().filter(e -> e.getValue().token().equals("x")))
                    .as("x given to the reader that emitted a higher watermark")
                    .hasSize(1);

            h.addReaders(rx); // restarted
            assertThat(h.owners()).containsEntry("x", rx);
        }
    }

    /**
     * A legacy partition's heartbeat at T says it returned every data record up to T; its children
     * start at T and may hold data records at T (Spanner: a child's records have commit timestamps
     * at or after its start). The low watermark must stay below T until the children are known.
     */
    @Test
    void aHeartbeatAtTheEndOfAPartitionKeepsTheLowWatermarkBelowItsChildrensStart()
            throws Throwable {
        try (EnumeratorHarness h = EnumeratorHarness.unbounded(1, root("a"))) {
            h.addReaders(0);
            h.start();
            long t = START + 999; // a watermark of T's millisecond would make a record at T late
            h.progress(0, "a", t); // a heartbeat at T
            assertThat(lastLowWatermark(h, 0))
                    .as("low watermark after a heartbeat at T")
                    .isLessThan(t);
            h.report(
                    0,
                    new Discovered("a", t, List.of(partition("c", t, "a"))),
                    new Finished("a", t));
            assertThat(lastLowWatermark(h, 0)).as("with the child known").isLessThan(t);
            assertThat(h.owners()).containsKey("c");
        }
    }

    private static long lastLowWatermark(EnumeratorHarness h, int subtask) throws Exception {
        List<LowWatermarkEvent> events = h.events(subtask, LowWatermarkEvent.class);
        assertThat(events).as("low watermarks sent to %d", subtask).isNotEmpty();
        return events.get(events.size() - 1).micros();
    }
}
