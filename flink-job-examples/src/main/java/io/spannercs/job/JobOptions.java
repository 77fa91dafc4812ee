package io.spannercs.job;

import io.spannercs.flink.source.ChangeFilter;
import io.spannercs.flink.source.UnknownValueHandling;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The job's command-line flags, {@code --name value}, checked all at once: every problem is named
 * in one message.
 */
public final class JobOptions {
    /**
     * Event formats: Datastream JSON ({@code datastream-json}, or {@code json}), Debezium JSON
     * (Kafka only), Avro (container files, or Avro binary records in Kafka).
     */
    public enum Format {
        JSON,
        DEBEZIUM_JSON,
        AVRO
    }

    /**
     * The order of each row's changes in the files: as the source emits them (in commit order
     * within each file), or released per row in commit order by a keyed reorder.
     */
    public enum Order {
        SOURCE,
        COMMIT
    }

    /** Where the changes go: files per table, a Kafka topic per table, or Pub/Sub topics. */
    public enum Sink {
        FILES,
        KAFKA,
        PUBSUB
    }

    /** The Kafka sink's delivery: transactions read with read_committed, or plain sends. */
    public enum DeliveryGuarantee {
        EXACTLY_ONCE,
        AT_LEAST_ONCE
    }

    /** The default of {@code --topic}. */
    static final String DEFAULT_TOPIC = "spanner.{database}.{table}";

    /** The producer properties the job sets itself, so {@code --kafka-property} may not. */
    static final Map<String, String> RESERVED_KAFKA_PROPERTIES =
            Map.of(
                    "bootstrap.servers", "use --bootstrap-servers",
                    "transactional.id", "the sink sets it from --transactional-id-prefix",
                    "key.serializer", "the job writes the key itself",
                    "value.serializer", "the job writes the value itself");

    /** Flags that only {@code --sink kafka} takes. */
    private static final List<String> KAFKA_FLAGS =
            List.of(
                    "bootstrap-servers",
                    "topic",
                    "delivery-guarantee",
                    "transactional-id-prefix",
                    "kafka-property");

    /** The only flag given more than once: its values in order. */
    private static final String KAFKA_PROPERTY = "kafka-property";

    static final Map<String, String> FLAGS = new LinkedHashMap<>();

    private static final Duration MIN_HEARTBEAT = Duration.ofMillis(100);
    private static final Duration MAX_HEARTBEAT = Duration.ofSeconds(300);

    static {
        FLAGS.put("project", "Google Cloud project of the database (required)");
        FLAGS.put("instance", "Spanner instance (required)");
        FLAGS.put("database", "Spanner database (required)");
        FLAGS.put("change-stream", "change stream to read (required)");
        FLAGS.put("emulator-host", "host:port of a Spanner emulator instead of Spanner");
        FLAGS.put("credentials", "service account key FILE (default: application credentials)");
        FLAGS.put("database-role", "fine-grained access control ROLE of the queries");
        FLAGS.put(
                "rpc-priority",
                "low, medium or high: request priority of the change stream queries (default:"
                        + " Spanner's, high)");
        FLAGS.put(
                "heartbeat-interval",
                "DURATION, 100ms to 300s, at which idle partitions report progress; drives"
                        + " watermarks and the latency of --order commit (default 1s)");
        FLAGS.put(
                "startup-mode",
                "latest, timestamp (from --start-timestamp), initial (the tables as they are, then"
                        + " every change) or snapshot (the tables only); default latest, or"
                        + " timestamp with --start-timestamp");
        FLAGS.put(
                "start-timestamp",
                "first commit time read, or the snapshot's time with initial and snapshot, RFC"
                        + " 3339 (default: now)");
        FLAGS.put("end-timestamp", "last commit time read, RFC 3339; makes the job finish");
        FLAGS.put(
                "sink",
                "files (a folder per table under --output), kafka (a topic per table; see"
                        + " --bootstrap-servers) or pubsub (Pub/Sub topics; see --pubsub-topic);"
                        + " default files");
        FLAGS.put("output", "DIR for the files, one folder per table (required with files)");
        FLAGS.put(
                "format",
                "datastream-json (or json: Datastream events), debezium-json (Debezium's envelope;"
                        + " kafka only) or avro (container files, Avro binary records in kafka,"
                        + " a message's data in pubsub); default datastream-json");
        FLAGS.put(
                "old-values",
                "include or omit: write each change's old values (old_values) where the stream"
                        + " captures them, or leave them out (default include)");
        FLAGS.put(
                "order",
                "source (each file holds a row's changes in commit order) or commit (rows keyed"
                        + " and released in commit order on the watermark, so a row's changes"
                        + " reach one writer in order; default source; kafka and pubsub: always"
                        + " commit)");
        FLAGS.put("bootstrap-servers", "host:port,... of the Kafka cluster (required with kafka)");
        FLAGS.put(
                "topic",
                "topic PATTERN with {database} and {table} (default "
                        + DEFAULT_TOPIC
                        + "); characters Kafka forbids become _");
        FLAGS.put(
                "delivery-guarantee",
                "exactly-once (Kafka transactions committed on checkpoints; consumers read with"
                        + " isolation.level=read_committed) or at-least-once; default"
                        + " exactly-once");
        FLAGS.put(
                "transactional-id-prefix",
                "prefix of the Kafka transactional ids; must be unique per job and stable across"
                        + " restarts (default spanner-cdc.<project>.<instance>.<database>"
                        + ".<change-stream>)");
        FLAGS.put(
                KAFKA_PROPERTY,
                "KEY=VALUE for the Kafka producer, e.g. security.protocol=SASL_SSL; repeat for"
                        + " more; values are never printed");
        FLAGS.putAll(io.spannercs.job.pubsub.PubSubOptions.FLAGS);
        FLAGS.put("tables", "table RULES, e.g. -/.*_audit,Orders(Customer Amount),/Inv.*");
        FLAGS.put("parallelism", "N source subtasks (default: the cluster's)");
        FLAGS.put(
                "checkpoint-interval",
                "DURATION between checkpoints; files and Kafka transactions commit on them"
                        + " (10s)");
        FLAGS.put(
                "name-check-timeout",
                "DURATION the check that --database and --change-stream exist waits for Spanner"
                        + " before submitting; 0s skips the check (default 20s)");
        FLAGS.put(
                "unknown-values",
                "fail or raw: column or mod types newer than the job fail it, or pass as text"
                        + " (default fail)");
    }

    final String project;
    final String instance;
    final String database;
    final String changeStream;
    final String emulatorHost;
    final String credentials;
    final String databaseRole;

    /** Null: not set, Spanner's default. */
    final SpannerSourceConfig.RpcPriority rpcPriority;

    /** Null: not set, the source's default. */
    final Duration heartbeatInterval;

    final Instant start;
    final io.spannercs.flink.source.StartupMode startupMode;
    final Instant end;
    final String output;
    final Format format;

    /** {@code --old-values include}: events carry {@code old_values}. */
    final boolean includeOldValues;

    /** As given; {@link Order#COMMIT} always with {@code --sink kafka}. */
    final Order order;

    final ChangeFilter tables;
    final Integer parallelism;
    final Duration checkpointInterval;
    final UnknownValueHandling unknownValues;

    /** How long the names are checked before submitting; zero: not checked. */
    final Duration nameCheckTimeout;

    final Sink sink;

    /** With {@code --sink kafka}; else null, as are the Kafka fields below. */
    final String bootstrapServers;

    final String topic;
    final DeliveryGuarantee deliveryGuarantee;
    final String transactionalIdPrefix;

    /** {@code --kafka-property} in the order given; empty without. Values are secret. */
    final Map<String, String> kafkaProperties;

    /** With {@code --sink pubsub}; else null. */
    final io.spannercs.job.pubsub.PubSubOptions pubsub;

    private JobOptions(
            Map<String, String> v, List<String> kafkaPropertyArgs, List<String> problems) {
        project = required(v, "project", problems);
        instance = required(v, "instance", problems);
        database = required(v, "database", problems);
        changeStream = required(v, "change-stream", problems);
        sink = sink(v.getOrDefault("sink", "files"), problems);
        if (sink == Sink.KAFKA || sink == Sink.PUBSUB) {
            if (v.containsKey("output")) {
                problems.add(
                        "--output is for --sink files: drop it with --sink "
                                + sink.name().toLowerCase(java.util.Locale.ROOT));
            }
            output = null;
        } else {
            output = required(v, "output", problems);
        }
        emulatorHost = v.get("emulator-host");
        credentials = v.get("credentials");
        databaseRole = v.get("database-role");
        if (databaseRole != null && databaseRole.isBlank()) {
            problems.add("--database-role needs a role name");
        }
        rpcPriority = rpcPriority(v.get("rpc-priority"), problems);
        heartbeatInterval = heartbeatInterval(v.get("heartbeat-interval"), problems);
        start = instant(v, "start-timestamp", problems);
        startupMode = startupMode(v.get("startup-mode"), start, problems);
        end = instant(v, "end-timestamp", problems);
        if (end != null
                && startupMode != null
                && startupMode.kind() == io.spannercs.flink.source.StartupMode.Kind.SNAPSHOT_ONLY) {
            problems.add("--startup-mode snapshot ends with the snapshot: drop --end-timestamp");
        }
        format = format(v.getOrDefault("format", "datastream-json"), problems);
        if (format == Format.DEBEZIUM_JSON && sink != Sink.KAFKA) {
            problems.add(
                    "--format debezium-json is for --sink kafka: files and pubsub take"
                            + " datastream-json or avro");
        }
        includeOldValues = includeOldValues(v.getOrDefault("old-values", "include"), problems);
        Order givenOrder = order(v.getOrDefault("order", "source"), problems);
        tables = tables(v.get("tables"), problems);
        parallelism = positiveInt(v, "parallelism", problems);
        checkpointInterval =
                duration(
                        "checkpoint-interval",
                        v.getOrDefault("checkpoint-interval", "10s"),
                        problems);
        unknownValues = unknownValues(v.getOrDefault("unknown-values", "fail"), problems);
        nameCheckTimeout = nameCheckTimeout(v.getOrDefault("name-check-timeout", "20s"), problems);
        // Pub/Sub: like Kafka, each row's changes in commit order (the same keyed reorder).
        if (sink == Sink.PUBSUB) {
            if (givenOrder == Order.SOURCE && v.containsKey("order")) {
                problems.add(
                        "--sink pubsub always orders each row's changes by commit: drop --order");
            }
            pubsub =
                    io.spannercs.job.pubsub.PubSubOptions.parse(
                            v,
                            project,
                            credentials,
                            (f, s) -> duration(f.substring(2), s, problems),
                            problems);
        } else {
            io.spannercs.job.pubsub.PubSubOptions.rejectWithOtherSink(v, problems);
            pubsub = null;
        }
        if (sink != Sink.KAFKA) {
            order = sink == Sink.PUBSUB ? Order.COMMIT : givenOrder;
            for (String flag : KAFKA_FLAGS) {
                if (v.containsKey(flag)
                        || (flag.equals(KAFKA_PROPERTY) && !kafkaPropertyArgs.isEmpty())) {
                    problems.add("--" + flag + " is for --sink kafka");
                }
            }
            bootstrapServers = null;
            topic = null;
            deliveryGuarantee = null;
            transactionalIdPrefix = null;
            kafkaProperties = Map.of();
            return;
        }
        // Kafka gets each row's changes in commit order: a row's partition must see them so
        // even when the row's key range moved from one source reader to another.
        order = Order.COMMIT;
        if (givenOrder == Order.SOURCE && v.containsKey("order")) {
            problems.add("--sink kafka always orders each row's changes by commit: drop --order");
        }
        bootstrapServers = required(v, "bootstrap-servers", problems);
        topic = topic(v.getOrDefault("topic", DEFAULT_TOPIC), problems);
        deliveryGuarantee =
                deliveryGuarantee(v.getOrDefault("delivery-guarantee", "exactly-once"), problems);
        transactionalIdPrefix =
                v.getOrDefault(
                        "transactional-id-prefix",
                        String.join(".", "spanner-cdc", project, instance, database, changeStream));
        if (transactionalIdPrefix.isBlank()) {
            problems.add("--transactional-id-prefix needs a prefix");
        }
        kafkaProperties = kafkaProperties(kafkaPropertyArgs, checkpointInterval, problems);
    }

    /**
     * @throws IllegalArgumentException naming every unknown, missing or malformed flag
     */
    public static JobOptions parse(String[] args) {
        Map<String, String> values = new LinkedHashMap<>();
        List<String> kafkaProperties = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (FlagArgs.Flag flag : FlagArgs.split(args, FLAGS::containsKey, problems)) {
            if (flag.name().equals(KAFKA_PROPERTY)) {
                kafkaProperties.add(flag.value());
            } else {
                values.put(flag.name(), flag.value());
            }
        }
        JobOptions options = new JobOptions(values, kafkaProperties, problems);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(
                    String.join("; ", problems) + " (--help lists the flags)");
        }
        return options;
    }

    /** What {@code --help} prints. */
    public static String usage() {
        StringBuilder sb =
                new StringBuilder(
                        "Reads a Spanner change stream and writes change events (Datastream JSON,"
                                + " Debezium JSON or Avro): a folder of files or a Kafka topic per"
                                + " table, exactly once, or Pub/Sub topics, at least once.\n\n"
                                + "Without --project it runs the demo: an"
                                + " embedded emulator with a live workload and partition churn, the"
                                + " job in a local Flink, progress every 2 s (demo flags: --duration"
                                + " DURATION, --output DIR).\n\nFlags:\n");
        FLAGS.forEach((n, d) -> sb.append(String.format("  --%-22s %s%n", n, d)));
        sb.append("\nDURATION: " + DurationFlag.FORMS + "; a number without a unit is an error.\n");
        return sb.toString();
    }

    private static String required(Map<String, String> v, String name, List<String> problems) {
        String s = v.get(name);
        if (s == null || s.isBlank()) {
            problems.add("--" + name + " is required");
        }
        return s;
    }

    private static Instant instant(Map<String, String> v, String name, List<String> problems) {
        String s = v.get(name);
        if (s == null) {
            return null;
        }
        try {
            return Instant.parse(s);
        } catch (DateTimeParseException e) {
            problems.add(
                    "--" + name + " '" + s + "' is not an RFC 3339 time like 2026-01-02T03:04:05Z");
            return null;
        }
    }

    private static Format format(String s, List<String> problems) {
        switch (s.toLowerCase(java.util.Locale.ROOT)) {
            case "datastream-json":
            case "json":
                return Format.JSON;
            case "debezium-json":
                return Format.DEBEZIUM_JSON;
            case "avro":
                return Format.AVRO;
            default:
                problems.add(
                        "--format must be datastream-json, debezium-json or avro, got '" + s + "'");
                return null;
        }
    }

    private static boolean includeOldValues(String s, List<String> problems) {
        switch (s.toLowerCase(java.util.Locale.ROOT)) {
            case "include":
                return true;
            case "omit":
                return false;
            default:
                problems.add("--old-values must be include or omit, got '" + s + "'");
                return true;
        }
    }

    private static Sink sink(String s, List<String> problems) {
        try {
            return Sink.valueOf(s.toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            problems.add("--sink must be files, kafka or pubsub, got '" + s + "'");
            return null;
        }
    }

    private static DeliveryGuarantee deliveryGuarantee(String s, List<String> problems) {
        try {
            return DeliveryGuarantee.valueOf(
                    s.toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            problems.add(
                    "--delivery-guarantee must be exactly-once or at-least-once, got '" + s + "'");
            return null;
        }
    }

    /**
     * Checks the pattern's own text: its placeholders, and that what is not a placeholder is a
     * legal topic name part (the values put in are made legal where they are put in).
     */
    private static String topic(String pattern, List<String> problems) {
        String rest = pattern.replace("{database}", "").replace("{table}", "");
        if (!pattern.contains("{table}")) {
            problems.add(
                    "--topic '" + pattern + "' needs {table}: the job writes a topic per table");
        } else if (rest.contains("{") || rest.contains("}")) {
            problems.add(
                    "--topic '"
                            + pattern
                            + "' has an unknown placeholder: only {database} and {table}");
        } else if (!DatastreamJsonKafka.isLegal(rest)) {
            problems.add(
                    "--topic '"
                            + pattern
                            + "' has characters Kafka forbids in topic names: use letters,"
                            + " digits, '.', '_' and '-'");
        } else {
            return pattern;
        }
        return null;
    }

    /**
     * {@code KEY=VALUE} pairs. Problems name the key, never the value, which may be a password; a
     * pair without '=' is not echoed at all.
     */
    private static Map<String, String> kafkaProperties(
            List<String> pairs, Duration checkpointInterval, List<String> problems) {
        Map<String, String> properties = new LinkedHashMap<>();
        for (int i = 0; i < pairs.size(); i++) {
            String pair = pairs.get(i);
            int eq = pair.indexOf('=');
            String key = eq < 0 ? "" : pair.substring(0, eq).trim();
            if (key.isEmpty()) {
                problems.add(
                        "--kafka-property number "
                                + (i + 1)
                                + " must be KEY=VALUE (not printed: it may hold a secret)");
            } else if (RESERVED_KAFKA_PROPERTIES.containsKey(key)) {
                problems.add(
                        "--kafka-property "
                                + key
                                + " is set by the job: "
                                + RESERVED_KAFKA_PROPERTIES.get(key));
            } else if (properties.containsKey(key)) {
                problems.add("--kafka-property " + key + " is given twice");
            } else {
                properties.put(key, pair.substring(eq + 1));
            }
        }
        String timeout = properties.get(DatastreamJsonKafka.TRANSACTION_TIMEOUT);
        if (timeout != null && checkpointInterval != null) {
            long ms;
            try {
                ms = Long.parseLong(timeout.trim());
            } catch (NumberFormatException e) {
                ms = -1;
            }
            if (ms <= checkpointInterval.toMillis()) {
                problems.add(
                        "--kafka-property "
                                + DatastreamJsonKafka.TRANSACTION_TIMEOUT
                                + " must be milliseconds, longer than --checkpoint-interval ("
                                + checkpointInterval.toMillis()
                                + " ms): a transaction stays open from one checkpoint to the"
                                + " next");
            }
        }
        return java.util.Collections.unmodifiableMap(properties);
    }

    private static Order order(String s, List<String> problems) {
        try {
            return Order.valueOf(s.toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            problems.add("--order must be source or commit, got '" + s + "'");
            return null;
        }
    }

    private static io.spannercs.flink.source.StartupMode startupMode(
            String s, Instant start, List<String> problems) {
        String mode = s == null ? (start == null ? "latest" : "timestamp") : s;
        switch (mode.toLowerCase(java.util.Locale.ROOT)) {
            case "latest":
                if (start != null) {
                    problems.add("--startup-mode latest takes no --start-timestamp");
                }
                return io.spannercs.flink.source.StartupMode.latest();
            case "timestamp":
                if (start == null) {
                    problems.add("--startup-mode timestamp needs --start-timestamp");
                    return null;
                }
                return io.spannercs.flink.source.StartupMode.timestamp(start);
            case "initial":
                return start == null
                        ? io.spannercs.flink.source.StartupMode.snapshotThenStream()
                        : io.spannercs.flink.source.StartupMode.snapshotThenStream(start);
            case "snapshot":
                return start == null
                        ? io.spannercs.flink.source.StartupMode.snapshotOnly()
                        : io.spannercs.flink.source.StartupMode.snapshotOnly(start);
            default:
                problems.add(
                        "--startup-mode must be latest, timestamp, initial or snapshot, got '"
                                + s
                                + "'");
                return null;
        }
    }

    private static SpannerSourceConfig.RpcPriority rpcPriority(String s, List<String> problems) {
        if (s == null) {
            return null;
        }
        try {
            return SpannerSourceConfig.RpcPriority.valueOf(s.toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            problems.add("--rpc-priority must be low, medium or high, got '" + s + "'");
            return null;
        }
    }

    private static Duration heartbeatInterval(String s, List<String> problems) {
        if (s == null) {
            return null;
        }
        Duration d = duration("heartbeat-interval", s, problems);
        // The range Spanner accepts for heartbeat_milliseconds, as the source checks it.
        if (d != null && (d.compareTo(MIN_HEARTBEAT) < 0 || d.compareTo(MAX_HEARTBEAT) > 0)) {
            problems.add(
                    "--heartbeat-interval must be a duration from 100ms to 300s like 1s, got '"
                            + s
                            + "'");
            return null;
        }
        return d;
    }

    private static UnknownValueHandling unknownValues(String s, List<String> problems) {
        try {
            return UnknownValueHandling.valueOf(s.toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            problems.add("--unknown-values must be fail or raw, got '" + s + "'");
            return null;
        }
    }

    private static ChangeFilter tables(String s, List<String> problems) {
        try {
            return ChangeFilter.parse(s);
        } catch (IllegalArgumentException e) {
            problems.add("--tables: " + e.getMessage());
            return null;
        }
    }

    private static Integer positiveInt(Map<String, String> v, String name, List<String> problems) {
        String s = v.get(name);
        if (s == null) {
            return null;
        }
        try {
            int n = Integer.parseInt(s);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        problems.add("--" + name + " must be a positive number, got '" + s + "'");
        return null;
    }

    private static Duration nameCheckTimeout(String s, List<String> problems) {
        return duration("name-check-timeout", s, true, problems);
    }

    private static Duration duration(String name, String s, List<String> problems) {
        return duration(name, s, false, problems);
    }

    /** The shared duration syntax: a unit is required, so {@code 10} is not read as 10 ms. */
    private static Duration duration(
            String name, String s, boolean zeroAllowed, List<String> problems) {
        try {
            return DurationFlag.parse("--" + name, s, zeroAllowed);
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
            return null;
        }
    }
}
