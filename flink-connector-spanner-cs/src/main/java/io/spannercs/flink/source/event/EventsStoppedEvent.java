package io.spannercs.flink.source.event;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Enumerator to a failing reader (see {@link ReaderFailingEvent}): the last event it sends this
 * reader until the subtask registers again. Events reach a reader in the order they were sent, so
 * once this one has arrived nothing the enumerator sent can be lost when the task fails.
 */
@Internal
public record EventsStoppedEvent() implements SourceEvent {
    /** Sent as its binary form: see {@link SerializedEvent}. */
    private Object writeReplace() {
        return SerializedEvent.of(this);
    }
}
