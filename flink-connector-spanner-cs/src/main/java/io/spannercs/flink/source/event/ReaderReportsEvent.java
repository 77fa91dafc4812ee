package io.spannercs.flink.source.event;

import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Reader to enumerator: reports in the order they happened, and the progress of each partition (the
 * greatest timestamp up to which it has emitted every record).
 */
@Internal
public record ReaderReportsEvent(List<PartitionReport> reports, Map<String, Long> progressMicros)
        implements SourceEvent {}
