package io.spannercs.flink.source.spanner;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Dialect;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.Value;
import io.spannercs.flink.source.NonRecoverableSourceException;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.config.SpannerSourceConfig.PartitionMode;
import java.util.regex.Pattern;
import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change stream query of one stream, in the database's dialect: GoogleSQL {@code READ_<stream>}
 * with named arguments (both partition modes), or PostgreSQL {@code spanner.read_json_<stream>}
 * (IMMUTABLE_KEY_RANGE) / {@code spanner.read_proto_bytes_<stream>} (MUTABLE_KEY_RANGE) with
 * positional ones. Dialect and partition mode come from the options when given, else from the
 * database.
 */
@Internal
public final class ChangeStreamQuery {
    private static final Logger LOG = LoggerFactory.getLogger(ChangeStreamQuery.class);
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final String changeStream;
    private final Dialect dialect;
    private final PartitionMode partitionMode;
    private final String sql;

    public ChangeStreamQuery(String changeStream, Dialect dialect, PartitionMode partitionMode) {
        requireIdentifier(changeStream);
        this.changeStream = changeStream;
        this.dialect = dialect;
        this.partitionMode = partitionMode;
        this.sql = sql(changeStream, dialect, partitionMode);
    }

    /**
     * @throws IllegalArgumentException if the name is not an identifier (it becomes part of the SQL
     *     text)
     */
    public static void requireIdentifier(String changeStream) {
        if (changeStream == null || !IDENTIFIER.matcher(changeStream).matches()) {
            throw new IllegalArgumentException(
                    "Invalid change stream name '"
                            + changeStream
                            + "': expected letters, digits and underscores, not starting with a"
                            + " digit");
        }
    }

    /**
     * Asks the database for whatever the configuration leaves open.
     *
     * @throws io.spannercs.flink.source.NonRecoverableSourceException if the database or the change
     *     stream does not exist, or the credentials are refused: a restart cannot fix that
     */
    public static ChangeStreamQuery detect(DatabaseClient client, SpannerSourceConfig config) {
        Dialect dialect = config.dialect() != null ? config.dialect() : dialect(client, config);
        PartitionMode mode =
                config.partitionMode() != null
                        ? config.partitionMode()
                        : detectPartitionMode(client, dialect, config);
        LOG.info(
                "Change stream {} of {}: {} dialect, {}{}",
                config.changeStream(),
                config.databaseName(),
                dialect,
                mode,
                config.partitionMode() != null ? " (as configured)" : "");
        return new ChangeStreamQuery(config.changeStream(), dialect, mode);
    }

    private static Dialect dialect(DatabaseClient client, SpannerSourceConfig config) {
        try {
            return client.getDialect();
        } catch (SpannerException e) {
            throw SpannerErrors.failure(
                    "Cannot read the dialect of database "
                            + config.databaseName()
                            + " (change stream "
                            + config.changeStream()
                            + "): "
                            + SpannerErrors.explain(e, config),
                    e);
        }
    }

    private static PartitionMode detectPartitionMode(
            DatabaseClient client, Dialect dialect, SpannerSourceConfig config) {
        try (ResultSet rs =
                client.singleUse()
                        .executeQuery(
                                byName(
                                        dialect,
                                        "SELECT option_value FROM"
                                                + " information_schema.change_stream_options WHERE"
                                                + " change_stream_name = ? AND option_name ="
                                                + " 'partition_mode'",
                                        config.changeStream()))) {
            if (!rs.next()) {
                // Streams created without the option use Spanner's default, if the stream exists.
                requireStream(client, dialect, config);
                return PartitionMode.IMMUTABLE_KEY_RANGE;
            }
            String value = rs.getString(0);
            try {
                return PartitionMode.valueOf(value.trim().toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new NonRecoverableSourceException(
                        "Change stream "
                                + config.changeStream()
                                + " has partition_mode '"
                                + value
                                + "', which this source does not know; set setPartitionMode(...)"
                                + " to read it as one of MUTABLE_KEY_RANGE, IMMUTABLE_KEY_RANGE");
            }
        } catch (SpannerException e) {
            if (SpannerErrors.isPermanent(e) && e.getErrorCode() != ErrorCode.PERMISSION_DENIED) {
                // A database that does not exist, credentials refused. (A database role may be
                // denied the information schema but not the stream: the query tells.)
                throw SpannerErrors.failure(
                        "Cannot read the partition mode of change stream "
                                + config.changeStream()
                                + " of database "
                                + config.databaseName()
                                + ": "
                                + SpannerErrors.explain(e, config),
                        e);
            }
            if (dialect == Dialect.POSTGRESQL) {
                throw new IllegalStateException(
                        "Cannot read the partition mode of change stream "
                                + config.changeStream()
                                + " from information_schema.change_stream_options ("
                                + SpannerErrors.describe(e)
                                + "); PostgreSQL databases need it to choose the query function:"
                                + " set setPartitionMode(...)",
                        SpannerErrors.forUsers(e));
            }
            // GoogleSQL reads both modes with the same function, and the records say which.
            LOG.warn(
                    "Cannot read the partition mode of change stream {} ({}); reading it with"
                            + " READ_{}, which serves both modes",
                    config.changeStream(),
                    e.getErrorCode(),
                    config.changeStream());
            return PartitionMode.IMMUTABLE_KEY_RANGE;
        }
    }

    /**
     * Fails once if {@code information_schema.change_streams} does not list the stream (asked only
     * for streams without a {@code partition_mode} option, which {@code change_stream_options} has
     * no row for). GoogleSQL names match in any case, as Spanner resolves them; PostgreSQL's query
     * quotes the name, so there the case must match. A database role sees only the streams it may
     * read.
     */
    private static void requireStream(
            DatabaseClient client, Dialect dialect, SpannerSourceConfig config) {
        java.util.List<String> streams = ChangeStreamNames.list(client);
        for (String name : streams) {
            if (dialect == Dialect.POSTGRESQL
                    ? name.equals(config.changeStream())
                    : name.equalsIgnoreCase(config.changeStream())) {
                return;
            }
        }
        throw new NonRecoverableSourceException(
                SpannerErrors.changeStreamMissing(config)
                        + " ("
                        + (streams.isEmpty()
                                ? "it has none"
                                : "it has "
                                        + String.join(
                                                ", ",
                                                streams.subList(0, Math.min(10, streams.size())))
                                        + (streams.size() > 10 ? ", ..." : ""))
                        + (config.databaseRole() != null
                                ? " that database role " + config.databaseRole() + " may see"
                                : "")
                        + "): check its name ("
                        + SpannerErrors.options(
                                "setChangeStream(...)", "'change-stream'", "--change-stream")
                        + ").");
    }

    /** The statement with its one {@code ?} bound to {@code name}, in the dialect's syntax. */
    private static Statement byName(Dialect dialect, String sql, String name) {
        if (dialect == Dialect.POSTGRESQL) {
            return Statement.newBuilder(sql.replace("?", "$1")).bind("p1").to(name).build();
        }
        return Statement.newBuilder(sql.replace("?", "@name")).bind("name").to(name).build();
    }

    private static String sql(String stream, Dialect dialect, PartitionMode mode) {
        if (dialect == Dialect.POSTGRESQL) {
            String function =
                    mode == PartitionMode.MUTABLE_KEY_RANGE ? "read_proto_bytes_" : "read_json_";
            return "SELECT * FROM \"spanner\".\"" + function + stream + "\"($1, $2, $3, $4, null)";
        }
        return "SELECT ChangeRecord FROM READ_"
                + stream
                + "(start_timestamp => @start, end_timestamp => @end,"
                + " partition_token => @token, heartbeat_milliseconds => @heartbeat)";
    }

    /**
     * The query of one partition, or with a null token the root query that lists the first
     * partitions.
     */
    public Statement statement(
            String partitionToken, long startMicros, long endMicros, long heartbeatMillis) {
        Value start = Value.timestamp(Timestamp.ofTimeMicroseconds(startMicros));
        Value end = Value.timestamp(Timestamp.ofTimeMicroseconds(endMicros));
        Value token = Value.string(partitionToken);
        Value heartbeat = Value.int64(heartbeatMillis);
        Statement.Builder b = Statement.newBuilder(sql);
        if (dialect == Dialect.POSTGRESQL) {
            return b.bind("p1")
                    .to(start)
                    .bind("p2")
                    .to(end)
                    .bind("p3")
                    .to(token)
                    .bind("p4")
                    .to(heartbeat)
                    .build();
        }
        return b.bind("start")
                .to(start)
                .bind("end")
                .to(end)
                .bind("token")
                .to(token)
                .bind("heartbeat")
                .to(heartbeat)
                .build();
    }

    public String changeStream() {
        return changeStream;
    }

    public Dialect dialect() {
        return dialect;
    }

    public PartitionMode partitionMode() {
        return partitionMode;
    }

    @Override
    public String toString() {
        return sql;
    }
}
