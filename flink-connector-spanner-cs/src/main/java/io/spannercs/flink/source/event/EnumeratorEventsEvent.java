package io.spannercs.flink.source.event;

import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Enumerator to reader: several events for one reader produced by one change of the enumerator
 * (barrier releases, the low watermark, acknowledgements), handled in this order. One event instead
 * of several: each is serialized and sent through the job's RPC service on its own.
 */
@Internal
public record EnumeratorEventsEvent(List<SourceEvent> events) implements SourceEvent {
    public EnumeratorEventsEvent {
        events = List.copyOf(events);
    }

    /** Sent as its binary form: see {@link SerializedEvent}. */
    private Object writeReplace() {
        return SerializedEvent.of(this);
    }

    /** Short: Flink formats the event into a message for every send. */
    @Override
    public String toString() {
        return "EnumeratorEventsEvent[" + events.size() + " events]";
    }
}
