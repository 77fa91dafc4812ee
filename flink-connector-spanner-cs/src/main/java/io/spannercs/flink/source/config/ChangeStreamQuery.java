package io.spannercs.flink.source.config;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Dialect;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.Value;
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

    /** Asks the database for whatever the configuration leaves open. */
    public static ChangeStreamQuery detect(DatabaseClient client, SpannerSourceConfig config) {
        Dialect dialect = config.dialect() != null ? config.dialect() : client.getDialect();
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

    private static PartitionMode detectPartitionMode(
            DatabaseClient client, Dialect dialect, SpannerSourceConfig config) {
        Statement statement =
                dialect == Dialect.POSTGRESQL
                        ? Statement.newBuilder(
                                        "SELECT option_value FROM"
                                                + " information_schema.change_stream_options WHERE"
                                                + " change_stream_name = $1 AND option_name ="
                                                + " 'partition_mode'")
                                .bind("p1")
                                .to(config.changeStream())
                                .build()
                        : Statement.newBuilder(
                                        "SELECT option_value FROM"
                                                + " information_schema.change_stream_options WHERE"
                                                + " change_stream_name = @name AND option_name ="
                                                + " 'partition_mode'")
                                .bind("name")
                                .to(config.changeStream())
                                .build();
        try (ResultSet rs = client.singleUse().executeQuery(statement)) {
            if (!rs.next()) {
                // Streams created without the option use Spanner's default.
                return PartitionMode.IMMUTABLE_KEY_RANGE;
            }
            String value = rs.getString(0);
            try {
                return PartitionMode.valueOf(value.trim().toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(
                        "Change stream "
                                + config.changeStream()
                                + " has partition_mode '"
                                + value
                                + "', which this source does not know; set setPartitionMode(...)"
                                + " to read it as one of MUTABLE_KEY_RANGE, IMMUTABLE_KEY_RANGE");
            }
        } catch (SpannerException e) {
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
