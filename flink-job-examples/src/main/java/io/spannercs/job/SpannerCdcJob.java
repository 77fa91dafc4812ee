package io.spannercs.job;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.format.avro.AvroChangeEventDeserializer;
import io.spannercs.flink.format.avro.SpannerAvroFileSink;
import io.spannercs.flink.format.avro.StreamIdentity;
import io.spannercs.flink.format.datastream.DatastreamContext;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import io.spannercs.flink.source.SpannerChangeStreamSourceBuilder;
import java.util.Arrays;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The change-data-capture job: a Spanner change stream into files per table, exactly once (files
 * are committed on checkpoints). Run with {@code --help} for the flags.
 */
public final class SpannerCdcJob {
    private SpannerCdcJob() {}

    public static void main(String[] args) throws Exception {
        if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
            System.out.print(JobOptions.usage());
            return;
        }
        if (!Arrays.asList(args).contains("--project")) {
            runDemo(args);
            return;
        }
        JobOptions options;
        try {
            options = JobOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        attach(env, options);
        env.execute("Spanner change stream " + options.changeStream + " to " + options.output);
    }

    /** The demo: no --project; only --duration and --output may be given. */
    private static void runDemo(String[] args) throws Exception {
        java.time.Duration duration = null;
        java.nio.file.Path output = Demo.defaultOutput();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--duration") && i + 1 < args.length) {
                duration = org.apache.flink.util.TimeUtils.parseDuration(args[++i]);
            } else if (args[i].equals("--output") && i + 1 < args.length) {
                output = java.nio.file.Paths.get(args[++i]);
            } else {
                System.err.println(
                        "Without --project this is the demo, which takes only --duration and"
                                + " --output; got '"
                                + args[i]
                                + "'. See --help for the job's flags.");
                System.exit(2);
            }
        }
        Demo.run(duration, output, System.out);
        System.exit(0); // Flink's local cluster and gRPC leave non-daemon threads behind
    }

    /** Adds the source and the file sink to the environment, and configures checkpointing. */
    public static void attach(StreamExecutionEnvironment env, JobOptions o) {
        env.enableCheckpointing(o.checkpointInterval.toMillis(), CheckpointingMode.EXACTLY_ONCE);
        if (o.parallelism != null) {
            env.setParallelism(o.parallelism);
        }
        Path out = new Path(o.output);
        if (o.format == JobOptions.Format.AVRO) {
            StreamIdentity stream =
                    StreamIdentity.of(o.project, o.instance, o.database, o.changeStream);
            SpannerChangeStreamSource<GenericRecord> source =
                    source(o, AvroChangeEventDeserializer.of(stream));
            env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner " + o.changeStream)
                    .sinkTo(SpannerAvroFileSink.builder(out).build())
                    .name("avro files");
        } else {
            DatastreamContext context =
                    DatastreamContext.builder(o.project, o.instance, o.database, o.changeStream)
                            .build();
            SpannerChangeStreamSource<ChangeEvent> source =
                    source(o, ChangeEventDeserializer.changeEvents());
            env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner " + o.changeStream)
                    .sinkTo(DatastreamJsonFiles.sink(out, context))
                    .name("json files");
        }
    }

    private static <T> SpannerChangeStreamSource<T> source(
            JobOptions o, ChangeEventDeserializer<T> deserializer) {
        SpannerChangeStreamSourceBuilder<T> b =
                SpannerChangeStreamSource.<T>builder()
                        .setProjectId(o.project)
                        .setInstanceId(o.instance)
                        .setDatabaseId(o.database)
                        .setChangeStream(o.changeStream)
                        .setFilter(o.tables)
                        .setUnknownValueHandling(o.unknownValues)
                        .setDeserializer(deserializer);
        b.setStartupMode(o.startupMode);
        if (o.end != null) {
            b.setEndTimestamp(o.end);
        }
        if (o.emulatorHost != null) {
            b.setEmulatorHost(o.emulatorHost);
        }
        if (o.credentials != null) {
            b.setCredentialsFile(o.credentials);
        }
        return b.build();
    }
}
