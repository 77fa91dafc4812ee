package io.spannercs.benchmarks;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.flink.format.datastream.DatastreamContext;
import io.spannercs.job.JobOptions;
import io.spannercs.job.SpannerCdcJob;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Runs the job jar's pipeline ({@link SpannerCdcJob#attach}) over the preloaded changes in a
 * bounded local Flink job, with the flags a user would pass plus the sink's own.
 */
final class SinkJobRun {
    private final SpannerEmulator emulator;
    private final Preloader.Preloaded pre;
    private final SinkBenchmark.Settings settings;

    SinkJobRun(SpannerEmulator emulator, Preloader.Preloaded pre, SinkBenchmark.Settings settings) {
        this.emulator = emulator;
        this.pre = pre;
        this.settings = settings;
    }

    /** The JSON events' context the job builds from its flags (old values included). */
    DatastreamContext datastreamContext() {
        return DatastreamContext.builder(
                        emulator.projectId(),
                        emulator.instanceId(),
                        emulator.databaseId(),
                        BenchSchema.STREAM)
                .includeOldValues(true)
                .build();
    }

    String projectId() {
        return emulator.projectId();
    }

    /**
     * Runs the job with the common flags and {@code sinkFlags}, from submission to its end.
     *
     * @return the nanoseconds it took
     */
    long job(String name, String... sinkFlags) throws Exception {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--project", emulator.projectId(),
                                "--instance", emulator.instanceId(),
                                "--database", emulator.databaseId(),
                                "--change-stream", BenchSchema.STREAM,
                                "--emulator-host", emulator.hostPort(),
                                "--start-timestamp",
                                        FlinkJobs.instant(pre.startMicros()).toString(),
                                "--end-timestamp", FlinkJobs.instant(pre.endMicros()).toString(),
                                "--parallelism", Integer.toString(settings.parallelism()),
                                "--checkpoint-interval",
                                        settings.checkpointInterval().toMillis() + "ms"));
        args.addAll(List.of(sinkFlags));
        JobOptions options = JobOptions.parse(args.toArray(String[]::new));
        StreamExecutionEnvironment env = FlinkJobs.localEnvironment(settings.parallelism(), false);
        try {
            SpannerCdcJob.attach(env, options);
            long t0 = System.nanoTime();
            env.execute(name);
            return System.nanoTime() - t0;
        } finally {
            env.close();
        }
    }

    /** The source alone into a discarding sink, timed as {@link #job} is; verified. */
    long sourceOnly() throws Exception {
        ReadResult r =
                new FlinkJobReader(emulator, settings.parallelism(), false)
                        .read(pre.startMicros(), pre.endMicros());
        r.verify("source alone", pre);
        return r.wallNanos();
    }
}
