package io.spannercs.flink.source.config;

import com.google.cloud.spanner.Dialect;
import io.spannercs.flink.source.UnknownValueHandling;
import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import org.apache.flink.annotation.Internal;

/**
 * Everything a source needs to connect and read, validated by the builder. Timestamps are in
 * microseconds since the epoch; {@link #NO_END} means an unbounded source.
 */
@Internal
public final class SpannerSourceConfig implements Serializable {
    private static final long serialVersionUID = 1L;

    /** End timestamp of an unbounded source. */
    public static final long NO_END = Long.MAX_VALUE;

    /** Snapshot timestamp of a source that starts without a snapshot. */
    public static final long NO_SNAPSHOT = Long.MIN_VALUE;

    /** Rows per snapshot split, unless configured. */
    public static final int DEFAULT_SNAPSHOT_CHUNK_ROWS = 10_000;

    private final String projectId;
    private final String instanceId;
    private final String databaseId;
    private final String changeStream;
    private final long startMicros;
    private final long endMicros;
    private final Duration heartbeatInterval;
    private final String emulatorHost;
    private final String credentialsFile;
    private final String databaseRole;
    private final RpcPriority rpcPriority;
    private final boolean perKeyOrdering;
    private final Duration barrierTimeout;
    private final int maxConcurrentPartitionsPerReader;
    private final Duration queryWindow;
    private final boolean lowWatermarkCap;
    private final int bufferedRecordsPerPartition;
    private final Duration progressInterval;
    private final PartitionMode partitionMode;
    private final Dialect dialect;
    private final UnknownValueHandling unknownValueHandling;
    private final long snapshotMicros;
    private final boolean streams;
    private final int snapshotChunkRows;
    private final boolean streamAfterSnapshot;
    // Not final: set by withReadAhead on a copy.
    private boolean readAhead = true;

    /** How a change stream partitions its key space (its {@code partition_mode} option). */
    public enum PartitionMode {
        /** Partitions own key ranges that move between them: protobuf records, move-in barriers. */
        MUTABLE_KEY_RANGE,
        /** Partitions split and merge into child partitions: STRUCT (or JSONB) records. */
        IMMUTABLE_KEY_RANGE
    }

    /** Priority of the change stream queries, as Spanner's request priority. */
    public enum RpcPriority {
        LOW,
        MEDIUM,
        HIGH
    }

    public SpannerSourceConfig(
            String projectId,
            String instanceId,
            String databaseId,
            String changeStream,
            long startMicros,
            long endMicros,
            Duration heartbeatInterval,
            String emulatorHost,
            String credentialsFile,
            String databaseRole,
            RpcPriority rpcPriority,
            boolean perKeyOrdering,
            Duration barrierTimeout,
            int maxConcurrentPartitionsPerReader,
            Duration queryWindow,
            boolean lowWatermarkCap,
            int bufferedRecordsPerPartition,
            Duration progressInterval,
            PartitionMode partitionMode,
            Dialect dialect,
            UnknownValueHandling unknownValueHandling) {
        this.projectId = Objects.requireNonNull(projectId);
        this.instanceId = Objects.requireNonNull(instanceId);
        this.databaseId = Objects.requireNonNull(databaseId);
        this.changeStream = Objects.requireNonNull(changeStream);
        this.startMicros = startMicros;
        this.endMicros = endMicros;
        this.heartbeatInterval = Objects.requireNonNull(heartbeatInterval);
        this.emulatorHost = emulatorHost;
        this.credentialsFile = credentialsFile;
        this.databaseRole = databaseRole;
        this.rpcPriority = rpcPriority;
        this.perKeyOrdering = perKeyOrdering;
        this.barrierTimeout = Objects.requireNonNull(barrierTimeout);
        this.maxConcurrentPartitionsPerReader = maxConcurrentPartitionsPerReader;
        this.queryWindow = Objects.requireNonNull(queryWindow);
        this.lowWatermarkCap = lowWatermarkCap;
        this.bufferedRecordsPerPartition = bufferedRecordsPerPartition;
        this.progressInterval = Objects.requireNonNull(progressInterval);
        this.partitionMode = partitionMode;
        this.dialect = dialect;
        this.unknownValueHandling = Objects.requireNonNull(unknownValueHandling);
        this.snapshotMicros = NO_SNAPSHOT;
        this.streams = true;
        this.snapshotChunkRows = DEFAULT_SNAPSHOT_CHUNK_ROWS;
        this.streamAfterSnapshot = true;
    }

    private SpannerSourceConfig(
            SpannerSourceConfig c,
            long snapshotMicros,
            boolean streams,
            int snapshotChunkRows,
            boolean streamAfterSnapshot) {
        this.projectId = c.projectId;
        this.instanceId = c.instanceId;
        this.databaseId = c.databaseId;
        this.changeStream = c.changeStream;
        this.startMicros = c.startMicros;
        this.endMicros = c.endMicros;
        this.heartbeatInterval = c.heartbeatInterval;
        this.emulatorHost = c.emulatorHost;
        this.credentialsFile = c.credentialsFile;
        this.databaseRole = c.databaseRole;
        this.rpcPriority = c.rpcPriority;
        this.perKeyOrdering = c.perKeyOrdering;
        this.barrierTimeout = c.barrierTimeout;
        this.maxConcurrentPartitionsPerReader = c.maxConcurrentPartitionsPerReader;
        this.queryWindow = c.queryWindow;
        this.lowWatermarkCap = c.lowWatermarkCap;
        this.bufferedRecordsPerPartition = c.bufferedRecordsPerPartition;
        this.progressInterval = c.progressInterval;
        this.partitionMode = c.partitionMode;
        this.dialect = c.dialect;
        this.unknownValueHandling = c.unknownValueHandling;
        this.snapshotMicros = snapshotMicros;
        this.streams = streams;
        this.snapshotChunkRows = snapshotChunkRows;
        this.streamAfterSnapshot = streamAfterSnapshot;
        this.readAhead = c.readAhead;
    }

    /**
     * This configuration with readers starting the queries of partitions they announced before the
     * enumerator assigns them (default) or not.
     */
    public SpannerSourceConfig withReadAhead(boolean readAhead) {
        SpannerSourceConfig copy =
                new SpannerSourceConfig(
                        this, snapshotMicros, streams, snapshotChunkRows, streamAfterSnapshot);
        copy.readAhead = readAhead;
        return copy;
    }

    /** Whether readers start the queries of partitions they announced before their assignment. */
    public boolean readAhead() {
        return readAhead;
    }

    /**
     * This configuration starting with a snapshot of the tracked tables at {@code snapshotMicros}:
     * the stream (if {@code streams}) starts one microsecond later, else the source ends with the
     * snapshot.
     */
    public SpannerSourceConfig withSnapshot(
            long snapshotMicros,
            boolean streams,
            int snapshotChunkRows,
            boolean streamAfterSnapshot) {
        return new SpannerSourceConfig(
                this, snapshotMicros, streams, snapshotChunkRows, streamAfterSnapshot);
    }

    /**
     * Whether the stream starts only after the snapshot (default true); false exists for tests that
     * show why.
     */
    public boolean streamAfterSnapshot() {
        return streamAfterSnapshot;
    }

    /** The snapshot timestamp, or {@link #NO_SNAPSHOT}. */
    public long snapshotMicros() {
        return snapshotMicros;
    }

    public boolean snapshots() {
        return snapshotMicros != NO_SNAPSHOT;
    }

    /** Whether the change stream is read (false for a snapshot only). */
    public boolean streams() {
        return streams;
    }

    /** Rows per snapshot split. */
    public int snapshotChunkRows() {
        return snapshotChunkRows;
    }

    public String projectId() {
        return projectId;
    }

    public String instanceId() {
        return instanceId;
    }

    public String databaseId() {
        return databaseId;
    }

    public String changeStream() {
        return changeStream;
    }

    public long startMicros() {
        return startMicros;
    }

    /** {@link #NO_END} for an unbounded source. */
    public long endMicros() {
        return endMicros;
    }

    public boolean bounded() {
        return endMicros != NO_END;
    }

    public Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    /** {@code host:port} of an emulator, or null for Spanner. */
    public String emulatorHost() {
        return emulatorHost;
    }

    /** Path of a service account key file, or null for application default credentials. */
    public String credentialsFile() {
        return credentialsFile;
    }

    public String databaseRole() {
        return databaseRole;
    }

    /** Null for Spanner's default. */
    public RpcPriority rpcPriority() {
        return rpcPriority;
    }

    /** The partition mode given by the user, or null to detect it. */
    public PartitionMode partitionMode() {
        return partitionMode;
    }

    /** The database dialect given by the user, or null to detect it. */
    public Dialect dialect() {
        return dialect;
    }

    /** What happens to column types and mod types this connector does not know. */
    public UnknownValueHandling unknownValueHandling() {
        return unknownValueHandling;
    }

    public boolean perKeyOrdering() {
        return perKeyOrdering;
    }

    public Duration barrierTimeout() {
        return barrierTimeout;
    }

    public int maxConcurrentPartitionsPerReader() {
        return maxConcurrentPartitionsPerReader;
    }

    public Duration queryWindow() {
        return queryWindow;
    }

    /** Whether readers cap their watermarks at the enumerator's low watermark (default true). */
    public boolean lowWatermarkCap() {
        return lowWatermarkCap;
    }

    public int bufferedRecordsPerPartition() {
        return bufferedRecordsPerPartition;
    }

    /** How often readers report partition progress to the enumerator. */
    public Duration progressInterval() {
        return progressInterval;
    }

    /** {@code projects/P/instances/I/databases/D}, for messages. */
    public String databaseName() {
        return "projects/" + projectId + "/instances/" + instanceId + "/databases/" + databaseId;
    }
}
