package io.spannercs.benchmarks;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import java.time.Duration;
import java.util.UUID;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;

/** The two readers {@link ChurnBenchmark} compares, each reading a whole {@link ChurnHistory}. */
final class ChurnReads {
    private ChurnReads() {}

    /** (a) The official client following children, one thread per partition. */
    static FollowingPlainReader.Result plain(ChurnHistory h, Duration timeout) throws Exception {
        try (Spanner spanner =
                SpannerOptions.newBuilder()
                        .setProjectId(h.projectId())
                        .setEmulatorHost(h.hostPort())
                        .setCredentials(NoCredentials.getInstance())
                        .setBuiltInMetricsEnabled(false)
                        .build()
                        .getService()) {
            DatabaseClient client =
                    spanner.getDatabaseClient(
                            DatabaseId.of(h.projectId(), h.instanceId(), h.databaseId()));
            return new FollowingPlainReader(client, BenchSchema.STREAM, h.legacy())
                    .read(h.startMicros(), h.endMicros(), timeout);
        }
    }

    /** (b) The source: a bounded job on this JVM's local cluster, timed from its submission. */
    static ReadResult source(ChurnHistory h, int parallelism) throws Exception {
        String tally = "churn-" + UUID.randomUUID();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        env.fromSource(
                        SpannerChangeStreamSource.<ChangeEvent>builder()
                                .setProjectId(h.projectId())
                                .setInstanceId(h.instanceId())
                                .setDatabaseId(h.databaseId())
                                .setChangeStream(BenchSchema.STREAM)
                                .setEmulatorHost(h.hostPort())
                                .setStartTimestamp(FlinkJobs.instant(h.startMicros()))
                                .setEndTimestamp(FlinkJobs.instant(h.endMicros()))
                                .setDeserializer(ChangeEventDeserializer.changeEvents())
                                .build(),
                        WatermarkStrategy.noWatermarks(),
                        "spanner")
                .sinkTo(new CountingDiscardingSink(tally))
                .name("counting discarding sink");
        StreamGraph job = env.getStreamGraph();
        job.setJobId(new JobID());
        MiniCluster cluster = Cluster.INSTANCE;
        long t0 = System.nanoTime();
        try {
            cluster.submitJob(job).get();
            JobResult result = cluster.requestJobResult(job.getJobID()).get();
            if (!result.isSuccess()) {
                throw new IllegalStateException(
                        "The source job failed",
                        result.getSerializedThrowable()
                                .map(t -> t.deserializeError(ChurnReads.class.getClassLoader()))
                                .orElse(null));
            }
            return Tally.remove(tally).result(System.nanoTime() - t0).from(t0);
        } finally {
            Tally.remove(tally);
        }
    }

    /** CPU time of this whole process. */
    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /**
     * One local cluster for every job of this JVM, started on first use (a JVM that only runs the
     * plain reader or the emulator has none): jobs are timed once Flink runs.
     */
    private static final class Cluster {
        static final MiniCluster INSTANCE = start();

        private static MiniCluster start() {
            Configuration conf = new Configuration();
            conf.set(TaskManagerOptions.NUM_TASK_SLOTS, 2);
            conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
            conf.set(RestOptions.BIND_PORT, "0"); // any free port: runs may overlap
            try {
                MiniCluster cluster =
                        new MiniCluster(
                                new MiniClusterConfiguration.Builder()
                                        .setConfiguration(conf)
                                        .setNumTaskManagers(1)
                                        .setNumSlotsPerTaskManager(2)
                                        .build());
                cluster.start();
                return cluster;
            } catch (Exception e) {
                throw new IllegalStateException("Cannot start the local Flink cluster", e);
            }
        }
    }
}
