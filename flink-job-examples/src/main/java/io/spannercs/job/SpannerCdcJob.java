package io.spannercs.job;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.format.avro.AnySchemaGenericRecordTypeInfo;
import io.spannercs.flink.format.avro.AvroChangeEventDeserializer;
import io.spannercs.flink.format.avro.ChangeEventAvroConverter;
import io.spannercs.flink.format.avro.SpannerAvroFileSink;
import io.spannercs.flink.format.avro.StreamIdentity;
import io.spannercs.flink.format.datastream.DatastreamContext;
import io.spannercs.flink.operators.ChangeEventOrdering;
import io.spannercs.flink.operators.LateEventPolicy;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import io.spannercs.flink.source.SpannerChangeStreamSourceBuilder;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.spanner.NameCheck;
import io.spannercs.job.pubsub.PubSubMessages;
import io.spannercs.job.pubsub.PubSubSink;
import java.time.Clock;
import java.util.Arrays;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The change-data-capture job: a Spanner change stream into files per table, or a Kafka topic per
 * table, exactly once (files and Kafka transactions are committed on checkpoints). Run with {@code
 * --help} for the flags.
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
            System.err.println("error: " + e.getMessage());
            System.exit(2);
            return;
        }
        String wrongName = checkNames(options, System.err);
        if (wrongName != null) {
            System.err.println("error: " + wrongName);
            System.exit(2);
            return;
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        attach(env, options);
        env.execute(
                "Spanner change stream "
                        + options.changeStream
                        + " to "
                        + switch (options.sink) {
                            case KAFKA -> "Kafka topics " + options.topic;
                            case PUBSUB -> "Pub/Sub topics " + options.pubsub.topicPattern();
                            default -> options.output;
                        });
    }

    /**
     * Asks the database, before the job is submitted, whether {@code --database} and {@code
     * --change-stream} exist (one query). A check that cannot be made here (no answer, no
     * credentials on this machine, no permission) is reported on {@code warnings} and the job is
     * submitted: it fails naming the problem itself, once, if there is one. {@code
     * --name-check-timeout 0s} skips the check.
     *
     * @return what is wrong, naming the flag, or null
     */
    static String checkNames(JobOptions o, java.io.PrintStream warnings) {
        if (o.nameCheckTimeout.isZero()) {
            return null;
        }
        SpannerSourceConfig config = source(o, ChangeEventDeserializer.changeEvents()).config();
        NameCheck.Result r = NameCheck.check(config, o.nameCheckTimeout);
        if (!r.checked()) {
            warnings.println(
                    "warning: could not check --database and --change-stream before submitting ("
                            + r.detail()
                            + "); submitting the job, which fails naming the problem if there is"
                            + " one (--name-check-timeout sets how long the check waits, 0s skips"
                            + " it)");
            return null;
        }
        if (r.missing() == NameCheck.Missing.DATABASE) {
            return "database "
                    + config.databaseName()
                    + " does not exist ("
                    + r.detail()
                    + "): check --project, --instance and --database";
        }
        if (r.missing() == NameCheck.Missing.CHANGE_STREAM) {
            return "change stream "
                    + o.changeStream
                    + " does not exist in database "
                    + config.databaseName()
                    + " ("
                    + r.detail()
                    + "): check --change-stream";
        }
        return null;
    }

    /** The demo: no --project; only --duration and --output may be given. */
    private static void runDemo(String[] args) throws Exception {
        DemoFlags flags;
        try {
            flags = DemoFlags.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.exit(2);
            return;
        }
        Demo.run(flags.duration(), flags.output(), System.out);
        System.exit(0); // Flink's local cluster and gRPC leave non-daemon threads behind
    }

    /** The demo's flags: {@code --duration DURATION} and {@code --output DIR}. */
    record DemoFlags(java.time.Duration duration, java.nio.file.Path output) {
        private static final String DURATION_FORM = "use " + DurationFlag.FORMS;

        /**
         * @throws IllegalArgumentException with a one-line message naming the flag and the form it
         *     takes
         */
        static DemoFlags parse(String[] args) {
            java.time.Duration duration = null;
            java.nio.file.Path output = Demo.defaultOutput();
            for (int i = 0; i < args.length; i++) {
                String name = args[i];
                String value = null;
                int eq = name.indexOf('=');
                if (name.startsWith("--") && eq > 0) {
                    value = name.substring(eq + 1);
                    name = name.substring(0, eq);
                }
                if (!name.equals("--duration") && !name.equals("--output")) {
                    throw new IllegalArgumentException(
                            "without --project this is the demo, which takes only --duration"
                                    + " DURATION and --output DIR; got '"
                                    + args[i]
                                    + "' (--help lists the job's flags)");
                }
                if (value == null) {
                    if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
                        throw new IllegalArgumentException(
                                name
                                        + " needs a value: "
                                        + (name.equals("--duration") ? DURATION_FORM : "a DIR"));
                    }
                    value = args[++i];
                }
                if (name.equals("--output")) {
                    if (value.isBlank()) {
                        throw new IllegalArgumentException("--output needs a DIR");
                    }
                    output = java.nio.file.Paths.get(value);
                    continue;
                }
                // One syntax with the job and the emulator (DurationFlag).
                duration = DurationFlag.parse("--duration", value, false);
            }
            return new DemoFlags(duration, output);
        }
    }

    /*
     * Operator uids. A savepoint maps state to operators by uid, so these strings must never
     * change: a job restored from a savepoint of an earlier version finds its source (partition
     * graph, split positions, snapshot phase), its reorder buffer and its files' pending commits
     * under them. Add new operators with new uids; never rename or reuse one. The file sinks'
     * committers get Flink's derived uid "Sink Committer: <sink uid>". docs/job.md lists them.
     */

    /** The Spanner change stream source: enumerator and split state. */
    public static final String SOURCE_UID = "spanner-cdc-source";

    /** The keyed reorder of {@code --order commit}: changes buffered above the watermark. */
    public static final String REORDER_UID = "spanner-cdc-reorder";

    /** {@code --order commit} with Avro: change events to Avro records (no state). */
    public static final String AVRO_CONVERT_UID = "spanner-cdc-to-avro";

    /** The JSON file sink's writer (its committer: "Sink Committer: spanner-cdc-json-files"). */
    public static final String JSON_SINK_UID = "spanner-cdc-json-files";

    /** The Avro file sink's writer (its committer: "Sink Committer: spanner-cdc-avro-files"). */
    public static final String AVRO_SINK_UID = "spanner-cdc-avro-files";

    /**
     * The Kafka sink's writer ({@code --sink kafka}; its committer: "Sink Committer:
     * spanner-cdc-kafka"): its state names the transactions to commit or abort on a restore.
     */
    public static final String KAFKA_SINK_UID = "spanner-cdc-kafka";

    /** The Pub/Sub sink's writer ({@code --sink pubsub}; no state: it flushes on checkpoints). */
    public static final String PUBSUB_SINK_UID = "spanner-cdc-pubsub";

    /** Adds the source and the sink to the environment, and configures checkpointing. */
    public static void attach(StreamExecutionEnvironment env, JobOptions o) {
        env.enableCheckpointing(o.checkpointInterval.toMillis(), CheckpointingMode.EXACTLY_ONCE);
        if (o.parallelism != null) {
            env.setParallelism(o.parallelism);
        }
        String sourceName = "spanner " + o.changeStream;
        if (o.sink == JobOptions.Sink.KAFKA) {
            // Always in commit order: the source's readers send concurrently, so a row whose key
            // range moved between readers would otherwise reach its partition out of order.
            inCommitOrder(changeEvents(env, o, sourceName))
                    .sinkTo(DatastreamJsonKafka.sink(o, datastreamContext(o)))
                    .uid(KAFKA_SINK_UID)
                    .name("kafka");
            return;
        }
        if (o.sink == JobOptions.Sink.PUBSUB) {
            // In commit order for the reason Kafka is: a moved row's readers would race.
            inCommitOrder(changeEvents(env, o, sourceName))
                    .sinkTo(pubSubSink(o))
                    .uid(PUBSUB_SINK_UID)
                    .name("pubsub");
            return;
        }
        Path out = new Path(o.output);
        if (o.format == JobOptions.Format.AVRO) {
            StreamIdentity stream =
                    StreamIdentity.of(o.project, o.instance, o.database, o.changeStream);
            DataStream<GenericRecord> records;
            // The converter writes old_values where the stream captures them, unless omitted.
            ChangeEventAvroConverter converter =
                    new ChangeEventAvroConverter(stream, Clock.systemUTC(), o.includeOldValues);
            if (o.order == JobOptions.Order.COMMIT) {
                records =
                        inCommitOrder(changeEvents(env, o, sourceName))
                                .map(converter::convert, AnySchemaGenericRecordTypeInfo.INSTANCE)
                                .uid(AVRO_CONVERT_UID)
                                .name("to avro");
            } else {
                records =
                        env.fromSource(
                                        source(o, new AvroChangeEventDeserializer(converter)),
                                        WatermarkStrategy.noWatermarks(),
                                        sourceName)
                                .uid(SOURCE_UID);
            }
            records.sinkTo(SpannerAvroFileSink.builder(out).build())
                    .uid(AVRO_SINK_UID)
                    .name("avro files");
        } else {
            DatastreamContext context = datastreamContext(o);
            DataStream<ChangeEvent> events = changeEvents(env, o, sourceName);
            if (o.order == JobOptions.Order.COMMIT) {
                events = inCommitOrder(events);
            }
            events.sinkTo(DatastreamJsonFiles.sink(out, context))
                    .uid(JSON_SINK_UID)
                    .name("json files");
        }
    }

    /** The Pub/Sub sink the options describe ({@code --sink pubsub}). */
    private static PubSubSink pubSubSink(JobOptions o) {
        PubSubMessages.Data data =
                switch (o.format) {
                    case JSON -> PubSubMessages.Data.JSON;
                    case AVRO -> PubSubMessages.Data.AVRO;
                    default ->
                            throw new IllegalArgumentException(
                                    "--sink pubsub publishes json or avro events");
                };
        return new PubSubSink(o.pubsub, new PubSubMessages(data, datastreamContext(o)), o.database);
    }

    /** The Datastream JSON events' context: where they come from. */
    /** The JSON events' context: without includeOldValues they drop the captured old values. */
    private static DatastreamContext datastreamContext(JobOptions o) {
        return DatastreamContext.builder(o.project, o.instance, o.database, o.changeStream)
                .includeOldValues(o.includeOldValues)
                .build();
    }

    /** The source, as {@link ChangeEvent}s. */
    private static DataStream<ChangeEvent> changeEvents(
            StreamExecutionEnvironment env, JobOptions o, String name) {
        return env.fromSource(
                        source(o, ChangeEventDeserializer.changeEvents()),
                        WatermarkStrategy.noWatermarks(),
                        name)
                .uid(SOURCE_UID);
    }

    /**
     * Keys the changes by row and releases each row's changes in commit order on the source's
     * watermark, so every row's changes reach one writer in commit order. A late change (none comes
     * from the source's watermarks) fails the job rather than write it out of order.
     */
    private static SingleOutputStreamOperator<ChangeEvent> inCommitOrder(
            DataStream<ChangeEvent> events) {
        return ChangeEventOrdering.inCommitOrder(events, LateEventPolicy.FAIL)
                .uid(REORDER_UID)
                .name("reorder by commit timestamp");
    }

    /** The source the flags describe. */
    static <T> SpannerChangeStreamSource<T> source(
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
        if (o.databaseRole != null) {
            b.setDatabaseRole(o.databaseRole);
        }
        if (o.rpcPriority != null) {
            b.setRpcPriority(o.rpcPriority);
        }
        if (o.heartbeatInterval != null) {
            b.setHeartbeatInterval(o.heartbeatInterval);
        }
        return b.build();
    }
}
