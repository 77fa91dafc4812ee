package io.spannercs.flink.source;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import java.time.Duration;
import java.time.Instant;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** What the end-to-end tests share: a two-slot MiniCluster and sources on an emulator. */
public final class EmulatorSources {
    private EmulatorSources() {}

    /**
     * A cluster for jobs of parallelism 2 that fail and restart: two TaskManagers of two slots, so
     * a job still finds slots if one TaskManager dies. One does when a failure strikes while the
     * restarted job's collect sink is still starting: Flink's {@code CollectSinkFunction} then
     * throws a NullPointerException on close, which is fatal to its TaskManager (FLINK-39330), and
     * with a single TaskManager the job waits for slots until the test times out.
     */
    public static MiniClusterExtension twoSlotCluster() {
        return new MiniClusterExtension(
                new MiniClusterResourceConfiguration.Builder()
                        .setNumberTaskManagers(2)
                        .setNumberSlotsPerTaskManager(2)
                        .build());
    }

    /** A builder for the stream over [start, end] on the emulator, with 100 ms heartbeats. */
    public static SpannerChangeStreamSourceBuilder<ChangeEvent> builder(
            SpannerEmulator emulator, String stream, Instant start, Instant end) {
        return SpannerChangeStreamSource.<ChangeEvent>builder()
                .setProjectId(emulator.projectId())
                .setInstanceId(emulator.instanceId())
                .setDatabaseId(emulator.databaseId())
                .setChangeStream(stream)
                .setStartTimestamp(start)
                .setEndTimestamp(end)
                .setHeartbeatInterval(Duration.ofMillis(100))
                .setEmulatorHost(emulator.hostPort())
                .setDeserializer(ChangeEventDeserializer.changeEvents());
    }

    public static long micros(Instant i) {
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1000;
    }
}
