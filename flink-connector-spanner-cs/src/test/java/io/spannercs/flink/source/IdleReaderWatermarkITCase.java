package io.spannercs.flink.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.workload.WorkloadConfig;
import io.spannercs.emulator.workload.WorkloadGenerator;
import io.spannercs.flink.format.ChangeEvent;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One partition, two readers: the reader without a partition must not hold back the watermark of
 * the operators downstream (it is idle until it gets one). Without that, a keyed operator after the
 * source never saw a watermark, and a SQL query with the default reorder printed nothing.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class IdleReaderWatermarkITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = EmulatorSources.twoSlotCluster();

    private static final String DDL =
            "CREATE TABLE Orders (OrderId INT64 NOT NULL, Customer STRING(MAX)) PRIMARY KEY"
                    + " (OrderId);\n"
                    + "CREATE CHANGE STREAM cs FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE');\n";

    static final AtomicLong MAX_WATERMARK = new AtomicLong(Long.MIN_VALUE);

    @Test
    void aReaderWithoutPartitionsDoesNotHoldTheWatermarkBack() throws Exception {
        MAX_WATERMARK.set(Long.MIN_VALUE);
        try (SpannerEmulator emulator =
                SpannerEmulator.builder().ddl(DDL).initialPartitions(1).maxPartitions(1).start()) {
            Instant start = Instant.now();
            WorkloadGenerator workload =
                    new WorkloadGenerator(
                            emulator.database(),
                            WorkloadConfig.builder().transactionsPerSecond(50).seed(1).build());
            workload.start();
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            env.fromSource(
                            EmulatorSources.builder(emulator, "cs", start, start)
                                    .setEndTimestamp(null)
                                    .build(),
                            WatermarkStrategy.noWatermarks(),
                            "spanner")
                    .keyBy(e -> String.valueOf(e.getKeys()))
                    .process(new WatermarkProbe())
                    .sinkTo(new DiscardingSink<>());
            JobClient job = env.executeAsync("one partition, two readers");
            try {
                // A bound for a failure only: a loaded machine starts jobs slowly.
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
                long wanted = start.toEpochMilli();
                while (MAX_WATERMARK.get() < wanted && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                }
            } finally {
                job.cancel().get();
                workload.stop();
            }
            assertThat(MAX_WATERMARK.get())
                    .as("the watermark after the keyBy")
                    .isGreaterThanOrEqualTo(start.toEpochMilli());
        }
    }

    /** Notes the greatest watermark it has seen. */
    static final class WatermarkProbe extends ProcessFunction<ChangeEvent, ChangeEvent> {
        @Override
        public void processElement(ChangeEvent e, Context ctx, Collector<ChangeEvent> out) {
            MAX_WATERMARK.accumulateAndGet(ctx.timerService().currentWatermark(), Math::max);
            out.collect(e);
        }
    }
}
