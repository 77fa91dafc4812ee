package io.spannercs.flink.source.event;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/** Enumerator to reader: the partition may go past its move-in at {@code micros}. */
@Internal
public record ReleaseBarrierEvent(String token, long micros) implements SourceEvent {
    /** Sent as its binary form: see {@link SerializedEvent}. */
    private Object writeReplace() {
        return SerializedEvent.of(this);
    }
}
