package io.spannercs.flink.source.testsuite;

import io.spannercs.flink.source.SpannerChangeStreamSource;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;

/** What one external context's sources read: the emulator, the change stream and the start. */
record SourceParams(
        String contextId,
        String projectId,
        String instanceId,
        String databaseId,
        String emulatorHost,
        String changeStream,
        Instant startTimestamp,
        Duration heartbeatInterval)
        implements Serializable {

    /** A source from the start timestamp up to {@code end} (inclusive), or unbounded if null. */
    SpannerChangeStreamSource<String> build(Instant end) {
        return SpannerChangeStreamSource.<String>builder()
                .setProjectId(projectId)
                .setInstanceId(instanceId)
                .setDatabaseId(databaseId)
                .setEmulatorHost(emulatorHost)
                .setChangeStream(changeStream)
                .setStartTimestamp(startTimestamp)
                .setEndTimestamp(end)
                .setHeartbeatInterval(heartbeatInterval)
                .setDeserializer(new PayloadDeserializer())
                .build();
    }
}
