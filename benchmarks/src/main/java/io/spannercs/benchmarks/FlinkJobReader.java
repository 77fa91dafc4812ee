package io.spannercs.benchmarks;

import io.spannercs.emulator.SpannerEmulator;
import java.util.UUID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Reads [start, end] with the source in a bounded local Flink job into a {@link
 * CountingDiscardingSink} chained to it.
 */
final class FlinkJobReader {
    private final SpannerEmulator emulator;
    private final int parallelism;
    private final boolean objectReuse;

    FlinkJobReader(SpannerEmulator emulator, int parallelism, boolean objectReuse) {
        this.emulator = emulator;
        this.parallelism = parallelism;
        this.objectReuse = objectReuse;
    }

    ReadResult read(long startMicros, long endMicros) throws Exception {
        String tally = "throughput-" + UUID.randomUUID();
        StreamExecutionEnvironment env = FlinkJobs.localEnvironment(parallelism, objectReuse);
        env.fromSource(
                        FlinkJobs.source(emulator, startMicros)
                                .setEndTimestamp(FlinkJobs.instant(endMicros))
                                .build(),
                        WatermarkStrategy.noWatermarks(),
                        "spanner")
                .sinkTo(new CountingDiscardingSink(tally))
                .name("counting discarding sink");
        long t0 = System.nanoTime();
        try {
            env.execute("spanner source throughput");
            long wall = System.nanoTime() - t0;
            return Tally.remove(tally).result(wall);
        } finally {
            Tally.remove(tally); // also after a failed job
            env.close();
        }
    }
}
