package io.spannercs.flink.source.event;

import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Enumerator to readers: partitions just given to another reader. A reader that started reading one
 * of them ahead (its partition announced it) gives that read up at once rather than when it
 * expires, so that it neither holds a query nor blocks reads ahead of partitions it will get.
 */
@Internal
public record AssignedElsewhereEvent(List<String> tokens) implements SourceEvent {
    public AssignedElsewhereEvent {
        tokens = List.copyOf(tokens);
    }

    /** Sent as its binary form: see {@link SerializedEvent}. */
    private Object writeReplace() {
        return SerializedEvent.of(this);
    }

    /** Short: Flink formats the event into a message for every send. */
    @Override
    public String toString() {
        return "AssignedElsewhereEvent[" + tokens.size() + " partitions]";
    }
}
