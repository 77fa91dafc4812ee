package io.spannercs.flink.source;

import com.google.cloud.spanner.Dialect;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import java.io.File;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Builds a {@link SpannerChangeStreamSource}. Project, instance, database, change stream and
 * deserializer are required; {@link #build()} checks every option and names each one that is
 * missing or wrong.
 *
 * @param <T> the type the deserializer produces
 */
@PublicEvolving
public final class SpannerChangeStreamSourceBuilder<T> {
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /** Spanner refuses MUTABLE_KEY_RANGE queries over longer windows. */
    static final Duration MAX_QUERY_WINDOW = Duration.ofMinutes(30);

    private String projectId;
    private String instanceId;
    private String databaseId;
    private String changeStream;
    private Instant startTimestamp;
    private Instant endTimestamp;
    private Duration heartbeatInterval = Duration.ofSeconds(1);
    private String emulatorHost;
    private String credentialsFile;
    private String databaseRole;
    private SpannerSourceConfig.RpcPriority rpcPriority;
    private SpannerSourceConfig.PartitionMode partitionMode;
    private Dialect dialect;
    private boolean perKeyOrdering = true;
    private Duration barrierTimeout = Duration.ofMinutes(5);
    private int maxConcurrentPartitionsPerReader = 1000;
    private Duration queryWindow = MAX_QUERY_WINDOW;
    private boolean lowWatermarkCap = true;
    private int bufferedRecordsPerPartition = 1000;
    private Duration progressInterval = Duration.ofMillis(100);
    private ChangeEventDeserializer<T> deserializer;
    private ChangeFilter filter = ChangeFilter.ALL;
    private UnknownValueHandling unknownValueHandling = UnknownValueHandling.FAIL;
    private StartupMode startupMode;
    private int snapshotChunkRows = SpannerSourceConfig.DEFAULT_SNAPSHOT_CHUNK_ROWS;
    private boolean streamAfterSnapshot = true;
    private boolean readAhead = true;

    SpannerChangeStreamSourceBuilder() {}

    public SpannerChangeStreamSourceBuilder<T> setProjectId(String projectId) {
        this.projectId = projectId;
        return this;
    }

    public SpannerChangeStreamSourceBuilder<T> setInstanceId(String instanceId) {
        this.instanceId = instanceId;
        return this;
    }

    public SpannerChangeStreamSourceBuilder<T> setDatabaseId(String databaseId) {
        this.databaseId = databaseId;
        return this;
    }

    /** Name of the change stream, as in {@code CREATE CHANGE STREAM name}. */
    public SpannerChangeStreamSourceBuilder<T> setChangeStream(String changeStream) {
        this.changeStream = changeStream;
        return this;
    }

    /**
     * Where a new job starts (default {@link StartupMode#latest()}): the change stream from now or
     * a timestamp, or a snapshot of the tracked tables, then the stream. Not together with {@link
     * #setStartTimestamp}, which is {@link StartupMode#timestamp}.
     */
    public SpannerChangeStreamSourceBuilder<T> setStartupMode(StartupMode startupMode) {
        this.startupMode = startupMode;
        return this;
    }

    /**
     * Rows per snapshot split (default 10,000): a table is cut into key ranges of about this many
     * rows, read in parallel by the readers.
     */
    public SpannerChangeStreamSourceBuilder<T> setSnapshotChunkRows(int snapshotChunkRows) {
        this.snapshotChunkRows = snapshotChunkRows;
        return this;
    }

    /**
     * Whether the change stream starts only once the snapshot has finished (default true), which
     * keeps every key's snapshot row before its changes. Turning it off lets changes overtake
     * snapshot rows; it exists for tests that show why the wait is needed.
     */
    public SpannerChangeStreamSourceBuilder<T> setStreamAfterSnapshot(boolean streamAfterSnapshot) {
        this.streamAfterSnapshot = streamAfterSnapshot;
        return this;
    }

    /**
     * Whether a reader starts the query of a partition that one of its partitions announced (a
     * child partition, or a new one in MUTABLE_KEY_RANGE mode) before the enumerator assigns it
     * (default true). The enumerator usually gives it to that reader; the query's first rows then
     * wait in the reader's buffer instead of being asked for after the assignment, which cuts the
     * time every partition generation costs while catching up. Nothing is emitted earlier: order
     * and barriers are unchanged. A read ahead that goes to another reader is closed; off, no query
     * starts before its assignment.
     */
    public SpannerChangeStreamSourceBuilder<T> setReadAhead(boolean readAhead) {
        this.readAhead = readAhead;
        return this;
    }

    /** Where reading starts (inclusive); default: when the job is built. */
    public SpannerChangeStreamSourceBuilder<T> setStartTimestamp(Instant startTimestamp) {
        this.startTimestamp = startTimestamp;
        return this;
    }

    /** Where reading ends (inclusive), making the source bounded; default: never. */
    public SpannerChangeStreamSourceBuilder<T> setEndTimestamp(Instant endTimestamp) {
        this.endTimestamp = endTimestamp;
        return this;
    }

    /**
     * How often idle partitions report progress; drives watermarks. 100 ms to 300 s, default 1 s.
     */
    public SpannerChangeStreamSourceBuilder<T> setHeartbeatInterval(Duration heartbeatInterval) {
        this.heartbeatInterval = heartbeatInterval;
        return this;
    }

    /** Reads from an emulator at {@code host:port} with no credentials. */
    public SpannerChangeStreamSourceBuilder<T> setEmulatorHost(String emulatorHost) {
        this.emulatorHost = emulatorHost;
        return this;
    }

    /**
     * A service account key file; without it (and without an emulator) the application default
     * credentials are used.
     */
    public SpannerChangeStreamSourceBuilder<T> setCredentialsFile(String credentialsFile) {
        this.credentialsFile = credentialsFile;
        return this;
    }

    /** Fine-grained access control role for the queries. */
    public SpannerChangeStreamSourceBuilder<T> setDatabaseRole(String databaseRole) {
        this.databaseRole = databaseRole;
        return this;
    }

    /**
     * The change stream's partition mode. Default: detected from {@code
     * information_schema.change_stream_options} (no {@code partition_mode} option there means
     * IMMUTABLE_KEY_RANGE, Spanner's default). Set it when the database role cannot read the
     * information schema.
     */
    public SpannerChangeStreamSourceBuilder<T> setPartitionMode(
            SpannerSourceConfig.PartitionMode partitionMode) {
        this.partitionMode = partitionMode;
        return this;
    }

    /**
     * The database's SQL dialect, which decides the change stream query (GoogleSQL {@code
     * READ_<stream>} or PostgreSQL {@code spanner.read_json_<stream>} / {@code
     * spanner.read_proto_bytes_<stream>}). Default: asked from the database.
     */
    public SpannerChangeStreamSourceBuilder<T> setDialect(Dialect dialect) {
        this.dialect = dialect;
        return this;
    }

    /** Request priority of the change stream queries; default: Spanner's. */
    public SpannerChangeStreamSourceBuilder<T> setRpcPriority(
            SpannerSourceConfig.RpcPriority rpcPriority) {
        this.rpcPriority = rpcPriority;
        return this;
    }

    /**
     * Whether each key's changes are emitted in commit order across partition moves (default true):
     * a partition is held at a move-in until its sources have caught up, and a legacy child
     * partition starts only once all its parents have ended. Off, partitions never wait for each
     * other, which lowers latency; every change is still emitted exactly once.
     */
    public SpannerChangeStreamSourceBuilder<T> setPerKeyOrdering(boolean perKeyOrdering) {
        this.perKeyOrdering = perKeyOrdering;
        return this;
    }

    /**
     * After this long a waiting barrier is logged with its missing sources and counted; it is never
     * released early. Default 5 minutes.
     */
    public SpannerChangeStreamSourceBuilder<T> setBarrierTimeout(Duration barrierTimeout) {
        this.barrierTimeout = barrierTimeout;
        return this;
    }

    /** Queries one reader runs at once; blocked partitions do not count. Default 1000. */
    public SpannerChangeStreamSourceBuilder<T> setMaxConcurrentPartitionsPerReader(int max) {
        this.maxConcurrentPartitionsPerReader = max;
        return this;
    }

    /** Length of each partition query; at most and by default 30 minutes. */
    public SpannerChangeStreamSourceBuilder<T> setQueryWindow(Duration queryWindow) {
        this.queryWindow = queryWindow;
        return this;
    }

    /** Records buffered per partition before its query is paused (backpressure). Default 1000. */
    public SpannerChangeStreamSourceBuilder<T> setBufferedRecordsPerPartition(int records) {
        this.bufferedRecordsPerPartition = records;
        return this;
    }

    /** How often readers report partition progress to the enumerator. Default 100 ms. */
    public SpannerChangeStreamSourceBuilder<T> setProgressInterval(Duration progressInterval) {
        this.progressInterval = progressInterval;
        return this;
    }

    /**
     * Whether readers cap watermarks at the enumerator's low watermark (default true). Turning it
     * off lets late records happen when partitions are assigned later; it exists for tests that
     * show why the cap is needed.
     */
    public SpannerChangeStreamSourceBuilder<T> setLowWatermarkCap(boolean lowWatermarkCap) {
        this.lowWatermarkCap = lowWatermarkCap;
        return this;
    }

    /**
     * Which tables, columns and transactions to emit (default: everything). Applied before the
     * deserializer: filtered changes cost no conversion. See {@link ChangeFilter}.
     */
    public SpannerChangeStreamSourceBuilder<T> setFilter(ChangeFilter filter) {
        this.filter = filter;
        return this;
    }

    /**
     * What to do with values of column types and mod types this connector does not know (Spanner
     * adds both over time): fail the job with a message naming table, column, partition and commit
     * timestamp (the default), or pass them through raw. See {@link UnknownValueHandling}.
     */
    public SpannerChangeStreamSourceBuilder<T> setUnknownValueHandling(
            UnknownValueHandling unknownValueHandling) {
        this.unknownValueHandling = unknownValueHandling;
        return this;
    }

    public SpannerChangeStreamSourceBuilder<T> setDeserializer(
            ChangeEventDeserializer<T> deserializer) {
        this.deserializer = deserializer;
        return this;
    }

    /**
     * Checks the options and builds the source.
     *
     * @throws IllegalArgumentException naming every missing or invalid option
     */
    public SpannerChangeStreamSource<T> build() {
        List<String> problems = new ArrayList<>();
        required(problems, "projectId", projectId);
        required(problems, "instanceId", instanceId);
        required(problems, "databaseId", databaseId);
        required(problems, "changeStream", changeStream);
        if (changeStream != null && !IDENTIFIER.matcher(changeStream).matches()) {
            problems.add(
                    "changeStream '"
                            + changeStream
                            + "' is not a valid change stream name (letters, digits and '_',"
                            + " not starting with a digit)");
        }
        if (filter == null) {
            problems.add("filter cannot be null (ChangeFilter.ALL lets everything through)");
        }
        if (unknownValueHandling == null) {
            problems.add("unknownValueHandling cannot be null (FAIL or RAW)");
        }
        if (deserializer == null) {
            problems.add("deserializer is required (e.g. ChangeEventDeserializer.changeEvents())");
        }
        if (startupMode != null && startTimestamp != null) {
            problems.add(
                    "startTimestamp and startupMode cannot both be set: use"
                            + " StartupMode.timestamp(start)");
        }
        StartupMode mode =
                startupMode != null
                        ? startupMode
                        : startTimestamp != null
                                ? StartupMode.timestamp(startTimestamp)
                                : StartupMode.latest();
        Instant at = mode.timestamp() == null ? Instant.now() : mode.timestamp();
        // A snapshot at T is followed by the stream from T + 1 microsecond.
        Instant start = mode.snapshots() ? at.plusNanos(1000) : at;
        if (mode.kind() == StartupMode.Kind.SNAPSHOT_ONLY && endTimestamp != null) {
            problems.add(
                    "endTimestamp cannot be set with StartupMode.snapshotOnly(): the source ends"
                            + " with the snapshot");
        }
        if (endTimestamp != null && endTimestamp.isBefore(start)) {
            problems.add(
                    "endTimestamp "
                            + endTimestamp
                            + " is before the "
                            + (mode.snapshots() ? "end of the snapshot " : "startTimestamp ")
                            + start);
        }
        if (snapshotChunkRows < 1) {
            problems.add("snapshotChunkRows must be at least 1, got " + snapshotChunkRows);
        }
        if (heartbeatInterval == null
                || heartbeatInterval.toMillis() < 100
                || heartbeatInterval.toMillis() > 300_000) {
            problems.add(
                    "heartbeatInterval must be between 100 ms and 300 s, got " + heartbeatInterval);
        }
        if (queryWindow == null
                || queryWindow.toMillis() < 1000
                || queryWindow.compareTo(MAX_QUERY_WINDOW) > 0) {
            problems.add("queryWindow must be between 1 s and 30 minutes, got " + queryWindow);
        }
        if (barrierTimeout == null || barrierTimeout.isNegative() || barrierTimeout.isZero()) {
            problems.add("barrierTimeout must be positive, got " + barrierTimeout);
        }
        if (maxConcurrentPartitionsPerReader < 1) {
            problems.add(
                    "maxConcurrentPartitionsPerReader must be at least 1, got "
                            + maxConcurrentPartitionsPerReader);
        }
        if (bufferedRecordsPerPartition < 2) {
            problems.add(
                    "bufferedRecordsPerPartition must be at least 2, got "
                            + bufferedRecordsPerPartition);
        }
        if (progressInterval == null || progressInterval.isNegative()) {
            problems.add("progressInterval must not be negative, got " + progressInterval);
        }
        if (emulatorHost != null && !emulatorHost.matches("[^:/\\s]+:\\d{1,5}")) {
            problems.add("emulatorHost must be host:port, got '" + emulatorHost + "'");
        }
        if (emulatorHost != null && credentialsFile != null) {
            problems.add("credentialsFile cannot be used with emulatorHost (emulators take none)");
        }
        if (credentialsFile != null && !new File(credentialsFile).canRead()) {
            problems.add("credentialsFile " + credentialsFile + " cannot be read");
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(
                    "Invalid Spanner change stream source options: " + String.join("; ", problems));
        }
        SpannerSourceConfig config =
                new SpannerSourceConfig(
                        projectId,
                        instanceId,
                        databaseId,
                        changeStream,
                        toMicros(start),
                        mode.kind() == StartupMode.Kind.SNAPSHOT_ONLY
                                ? toMicros(at)
                                : endTimestamp == null
                                        ? SpannerSourceConfig.NO_END
                                        : toMicros(endTimestamp),
                        heartbeatInterval,
                        emulatorHost,
                        credentialsFile,
                        databaseRole,
                        rpcPriority,
                        perKeyOrdering,
                        barrierTimeout,
                        maxConcurrentPartitionsPerReader,
                        queryWindow,
                        lowWatermarkCap,
                        bufferedRecordsPerPartition,
                        progressInterval,
                        partitionMode,
                        dialect,
                        unknownValueHandling);
        config = config.withReadAhead(readAhead);
        if (mode.snapshots()) {
            config =
                    config.withSnapshot(
                            toMicros(at),
                            mode.kind() == StartupMode.Kind.SNAPSHOT_THEN_STREAM,
                            snapshotChunkRows,
                            streamAfterSnapshot);
        }
        return new SpannerChangeStreamSource<>(config, deserializer, filter);
    }

    private static void required(List<String> problems, String option, String value) {
        if (value == null || value.isBlank()) {
            problems.add(option + " is required");
        }
    }

    private static long toMicros(Instant i) {
        return Math.addExact(
                Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1000);
    }
}
