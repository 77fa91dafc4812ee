package io.spannercs.flink.source.event;

import com.google.cloud.spanner.Dialect;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Enumerator to readers, before any partition: the database's dialect and the change stream's
 * partition mode, as the enumerator found them for the root query, so readers need not ask the
 * database again (two information_schema queries per reader, seconds on some servers).
 */
@Internal
public record StreamShapeEvent(Dialect dialect, SpannerSourceConfig.PartitionMode partitionMode)
        implements SourceEvent {
    /** Sent as its binary form: see {@link SerializedEvent}. */
    private Object writeReplace() {
        return SerializedEvent.of(this);
    }

    // The only event whose components are not JDK classes: the JDK's generated record methods
    // would keep their classes, and with them a job's class loader, in shared method handle
    // caches (see RecordMethodCaches) whenever Flink formats the event after the job's
    // enumerator released those caches (e.g. an event that could not be sent to a failed task).

    @Override
    public String toString() {
        return "StreamShapeEvent[" + dialect.name() + ", " + partitionMode.name() + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StreamShapeEvent s
                && dialect == s.dialect
                && partitionMode == s.partitionMode;
    }

    @Override
    public int hashCode() {
        return 31 * dialect.ordinal() + partitionMode.ordinal();
    }
}
