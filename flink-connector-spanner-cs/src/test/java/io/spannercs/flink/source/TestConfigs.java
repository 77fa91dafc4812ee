package io.spannercs.flink.source;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import java.time.Duration;
import java.time.Instant;

/**
 * The one way the connector's tests build a {@link SpannerSourceConfig}: through the public
 * builder, so a test's config is one a user could have built and the builder's checks hold for it.
 * Only {@link #withUncheckedStream} builds one the builder would reject, for the tests that show
 * the lower layers reject it too.
 */
public final class TestConfigs {
    private TestConfigs() {}

    /**
     * A builder over [startMicros, endMicros] ({@link SpannerSourceConfig#NO_END}: unbounded) with
     * what the tests share where it differs from the builder's defaults: a one-minute barrier
     * timeout, 10 queries per reader, 100 buffered records per partition and progress reported
     * every second.
     */
    public static SpannerChangeStreamSourceBuilder<ChangeEvent> builder(
            String projectId,
            String instanceId,
            String databaseId,
            String stream,
            long startMicros,
            long endMicros) {
        SpannerChangeStreamSourceBuilder<ChangeEvent> builder =
                SpannerChangeStreamSource.<ChangeEvent>builder()
                        .setProjectId(projectId)
                        .setInstanceId(instanceId)
                        .setDatabaseId(databaseId)
                        .setChangeStream(stream)
                        .setStartTimestamp(instant(startMicros))
                        .setBarrierTimeout(Duration.ofMinutes(1))
                        .setMaxConcurrentPartitionsPerReader(10)
                        .setBufferedRecordsPerPartition(100)
                        .setProgressInterval(Duration.ofSeconds(1))
                        .setDeserializer(ChangeEventDeserializer.changeEvents());
        return endMicros == SpannerSourceConfig.NO_END
                ? builder
                : builder.setEndTimestamp(instant(endMicros));
    }

    /**
     * {@link #builder} for project {@code p}, instance {@code i} and database {@code d}: for tests
     * that reach no database, or that name the host they talk to themselves.
     */
    public static SpannerChangeStreamSourceBuilder<ChangeEvent> builder(
            String stream, long startMicros, long endMicros) {
        return builder("p", "i", "d", stream, startMicros, endMicros);
    }

    /** {@link #builder} for the emulator's database, read through its host and port. */
    public static SpannerChangeStreamSourceBuilder<ChangeEvent> onEmulator(
            SpannerEmulator emulator, String stream, long startMicros, long endMicros) {
        return builder(
                        emulator.projectId(),
                        emulator.instanceId(),
                        emulator.databaseId(),
                        stream,
                        startMicros,
                        endMicros)
                .setEmulatorHost(emulator.hostPort());
    }

    /** The config the builder checks and builds. */
    public static SpannerSourceConfig config(SpannerChangeStreamSourceBuilder<?> builder) {
        return builder.build().config();
    }

    /**
     * {@code config} reading {@code stream}, a name the builder rejects: for tests of the checks
     * below the builder. Every other value is {@code config}'s (a config without a snapshot).
     */
    public static SpannerSourceConfig withUncheckedStream(
            SpannerSourceConfig config, String stream) {
        return new SpannerSourceConfig(
                        config.projectId(),
                        config.instanceId(),
                        config.databaseId(),
                        stream,
                        config.startMicros(),
                        config.endMicros(),
                        config.heartbeatInterval(),
                        config.emulatorHost(),
                        config.credentialsFile(),
                        config.databaseRole(),
                        config.rpcPriority(),
                        config.perKeyOrdering(),
                        config.barrierTimeout(),
                        config.maxConcurrentPartitionsPerReader(),
                        config.queryWindow(),
                        config.lowWatermarkCap(),
                        config.bufferedRecordsPerPartition(),
                        config.progressInterval(),
                        config.partitionMode(),
                        config.dialect(),
                        config.unknownValueHandling())
                .withReadAhead(config.readAhead());
    }

    /** Microseconds since the epoch as an instant, exactly. */
    public static Instant instant(long micros) {
        return Instant.ofEpochSecond(
                Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000);
    }
}
