package io.spannercs.flink.source.event;

import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Enumerator to reader: these reports are in a completed enumerator checkpoint, so the reader may
 * forget them.
 */
@Internal
public record AckReportsEvent(List<String> reportIds) implements SourceEvent {
    /** Sent as its binary form: see {@link SerializedEvent}. */
    private Object writeReplace() {
        return SerializedEvent.of(this);
    }

    /** Short: Flink formats the event into a message for every send. */
    @Override
    public String toString() {
        return "AckReportsEvent[" + reportIds.size() + " reports]";
    }
}
