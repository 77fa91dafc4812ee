package io.spannercs.flink.source.event;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Enumerator to readers: every unfinished partition, assigned or not, has emitted all records up to
 * {@code micros}; no reader may emit a watermark above it.
 */
@Internal
public record LowWatermarkEvent(long micros) implements SourceEvent {
    /** Sent as its binary form: see {@link SerializedEvent}. */
    private Object writeReplace() {
        return SerializedEvent.of(this);
    }
}
