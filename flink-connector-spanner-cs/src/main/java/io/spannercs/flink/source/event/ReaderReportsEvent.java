package io.spannercs.flink.source.event;

import io.spannercs.flink.source.split.PartitionReport;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Reader to enumerator: where newly added splits resume (or null), then reports in the order they
 * happened, and the progress of each partition (the greatest timestamp up to which it has emitted
 * every record). One event carries all three: every operator event is serialized and sent through
 * the job's RPC service, which costs more than what it carries.
 *
 * @param resumed where the splits just added to the reader resume, applied first; null if none
 */
@Internal
public record ReaderReportsEvent(
        SplitsResumedEvent resumed, List<PartitionReport> reports, Map<String, Long> progressMicros)
        implements SourceEvent {

    /** Reports and progress only. */
    public ReaderReportsEvent(List<PartitionReport> reports, Map<String, Long> progressMicros) {
        this(null, reports, progressMicros);
    }

    /** Sent as its binary form: see {@link SerializedEvent}. */
    private Object writeReplace() {
        return SerializedEvent.of(this);
    }

    /** Short: Flink formats the event into a message for every send. */
    @Override
    public String toString() {
        return "ReaderReportsEvent["
                + (resumed == null ? "" : resumed.splits().size() + " resumed, ")
                + reports.size()
                + " reports, progress of "
                + progressMicros.size()
                + " partitions]";
    }
}
