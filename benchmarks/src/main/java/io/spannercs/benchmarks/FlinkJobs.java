package io.spannercs.benchmarks;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import io.spannercs.flink.source.SpannerChangeStreamSourceBuilder;
import java.time.Instant;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/** Local Flink environments and sources on the emulator, as the benchmarks run them. */
final class FlinkJobs {
    private FlinkJobs() {}

    /** A local environment (an in-JVM MiniCluster) with one slot per subtask. */
    static StreamExecutionEnvironment localEnvironment(int parallelism, boolean objectReuse) {
        Configuration conf = new Configuration();
        conf.set(TaskManagerOptions.NUM_TASK_SLOTS, parallelism);
        conf.set(PipelineOptions.OBJECT_REUSE, objectReuse);
        return StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
    }

    /** A source over the benchmark stream from {@code startMicros}, as a user would build it. */
    static SpannerChangeStreamSourceBuilder<ChangeEvent> source(
            SpannerEmulator emulator, long startMicros) {
        return SpannerChangeStreamSource.<ChangeEvent>builder()
                .setProjectId(emulator.projectId())
                .setInstanceId(emulator.instanceId())
                .setDatabaseId(emulator.databaseId())
                .setChangeStream(BenchSchema.STREAM)
                .setStartTimestamp(instant(startMicros))
                .setEmulatorHost(emulator.hostPort())
                .setDeserializer(ChangeEventDeserializer.changeEvents());
    }

    static Instant instant(long micros) {
        return Instant.ofEpochSecond(
                Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
    }
}
