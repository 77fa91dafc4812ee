package io.spannercs.emulator.grpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.Value;
import com.google.spanner.v1.ExecuteSqlRequest;
import com.google.spanner.v1.PartialResultSet;
import com.google.spanner.v1.ResultSetMetadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.spannercs.emulator.EdgeCase;
import io.spannercs.emulator.EmulatedDatabase;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.changestream.ChangeStreamQuery;
import io.spannercs.emulator.changestream.EdgeRuntime;
import io.spannercs.emulator.changestream.FaultInjector;
import io.spannercs.emulator.changestream.LegacyRecordEncoder;
import io.spannercs.emulator.changestream.MutableRecordEncoder;
import io.spannercs.emulator.changestream.Partition;
import io.spannercs.emulator.changestream.PgBytesRecordEncoder;
import io.spannercs.emulator.changestream.PgJsonRecordEncoder;
import io.spannercs.emulator.changestream.RecordEncoder;
import io.spannercs.emulator.changestream.RowSink;
import io.spannercs.emulator.schema.PartitionMode;
import io.spannercs.emulator.schema.SpannerTypes;
import io.spannercs.emulator.sql.SqlExpr;
import io.spannercs.emulator.sql.SqlParser;
import io.spannercs.emulator.sql.SqlStatement;
import io.spannercs.emulator.storage.Timestamps;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Validates change stream queries the way Spanner does (codes and messages as measured on Google's
 * emulator) and starts them: {@code READ_<stream>} in GoogleSQL, {@code spanner.read_json_<stream>}
 * and {@code spanner.read_proto_bytes_<stream>} in PostgreSQL, which share the GoogleSQL checks and
 * messages.
 */
final class ChangeStreamRequests {
    static final long MIN_HEARTBEAT_MS = 100;
    static final long MAX_HEARTBEAT_MS = 300_000;
    static final Duration MAX_MUTABLE_WINDOW = Duration.ofMinutes(30);

    private final ScheduledExecutorService scheduler;
    private final FaultInjector faults;
    private final EdgeRuntime edges;

    ChangeStreamRequests(
            ScheduledExecutorService scheduler, FaultInjector faults, EdgeRuntime edges) {
        this.scheduler = scheduler;
        this.faults = faults;
        this.edges = edges;
    }

    ChangeStreamQuery create(
            EmulatedDatabase db,
            SqlStatement.ChangeStreamRead read,
            ExecuteSqlRequest request,
            ServerCallStreamObserver<PartialResultSet> call) {
        ChangeStream stream = resolve(db, read, request);
        Value start = argument(read, "start_timestamp", request);
        Value end = argument(read, "end_timestamp", request);
        Value token = argument(read, "partition_token", request);
        Value heartbeat = argument(read, "heartbeat_milliseconds", request);
        if (!SpannerTypes.isNull(argument(read, "read_options", request))) {
            throw invalid("read_options must be NULL: it is reserved for future use.");
        }

        if (SpannerTypes.isNull(start)) {
            throw invalid("start_timestamp must not be null.");
        }
        long startMicros = timestamp(start, "start_timestamp");
        long endMicros =
                SpannerTypes.isNull(end) ? Long.MAX_VALUE : timestamp(end, "end_timestamp");
        if (SpannerTypes.isNull(heartbeat)) {
            throw invalid("heartbeat_milliseconds must not be null.");
        }
        long heartbeatMs = integer(heartbeat, "heartbeat_milliseconds");
        if (heartbeatMs < MIN_HEARTBEAT_MS || heartbeatMs > MAX_HEARTBEAT_MS) {
            throw Status.OUT_OF_RANGE
                    .withDescription(
                            "heartbeat_milliseconds must be within min 100 and max 300000."
                                    + " Received heartbeat_milliseconds: "
                                    + heartbeatMs
                                    + ".")
                    .asRuntimeException();
        }
        if (endMicros < startMicros) {
            throw invalid(
                    "If end_timestamp is specified, start_timestamp must be <= end_timestamp."
                            + " Received start_timestamp: "
                            + forMessage(startMicros)
                            + ", end_timestamp: "
                            + forMessage(endMicros)
                            + ".");
        }
        long safe = db.database().safeMicros();
        long oldest =
                Math.max(
                        stream.createdMicros(),
                        safe - stream.def().retentionPeriod().toNanos() / 1000);
        if (startMicros < oldest) {
            throw Status.OUT_OF_RANGE
                    .withDescription(
                            "Specified start_timestamp is too far in the past. Please specify a"
                                    + " start_timestamp within the earliest read timestamp: "
                                    + forMessage(oldest)
                                    + ". Received start_timestamp: "
                                    + forMessage(startMicros)
                                    + ".")
                    .asRuntimeException();
        }
        boolean mutable = stream.def().partitionMode() == PartitionMode.MUTABLE_KEY_RANGE;
        if (mutable) {
            if (endMicros == Long.MAX_VALUE) {
                throw invalid(
                        "end_timestamp must be specified for change stream "
                                + stream.def().name()
                                + " with partition_mode MUTABLE_KEY_RANGE.");
            }
            long maxWindow = MAX_MUTABLE_WINDOW.toNanos() / 1000;
            boolean oldRuleRejects = endMicros - startMicros > maxWindow;
            if (edges.on(EdgeCase.MUTABLE_END_LIMIT)) {
                // Edge case: the limit is now + 30 minutes on the server's clock, whatever the
                // start (a start in the past may have a longer window, one in the future less).
                long now = Timestamps.nowMicros();
                boolean rejects = endMicros > now + maxWindow;
                if (rejects != oldRuleRejects) {
                    edges.fired(EdgeCase.MUTABLE_END_LIMIT);
                }
                if (rejects) {
                    throw invalid(
                            "end_timestamp must be at most 30 minutes after the current time for"
                                    + " change stream "
                                    + stream.def().name()
                                    + " with partition_mode MUTABLE_KEY_RANGE. Received"
                                    + " end_timestamp: "
                                    + forMessage(endMicros)
                                    + ", current time: "
                                    + forMessage(now)
                                    + ".");
                }
            } else if (oldRuleRejects) {
                throw invalid(
                        "end_timestamp must be at most 30 minutes after start_timestamp for change"
                                + " stream "
                                + stream.def().name()
                                + " with partition_mode MUTABLE_KEY_RANGE.");
            }
        }
        Partition partition = null;
        if (!SpannerTypes.isNull(token)) {
            partition = token.hasStringValue() ? stream.partition(token.getStringValue()) : null;
            if (partition == null) {
                throw invalid(
                        "Specified partition_token is invalid, as it does not belong to the Change"
                                + " Stream associated with the TVF. Received partition_token: "
                                + (token.hasStringValue() ? token.getStringValue() : token)
                                + ".");
            }
        }
        if (partition != null
                && startMicros > partition.endMicros()
                && edges.on(EdgeCase.WINDOW_END_WITHOUT_END_RECORD)) {
            // As Spanner answers a reader that moved past a partition's end it never received.
            throw invalid(
                    "Specified start_timestamp is invalid for the partition. Please specify a"
                            + " start_timestamp within "
                            + forMessage(partition.startMicros())
                            + " and "
                            + forMessage(partition.endMicros())
                            + ". Received start_timestamp: "
                            + forMessage(startMicros)
                            + ".");
        }
        if (partition != null
                && (startMicros < partition.startMicros() || startMicros > partition.endMicros())) {
            throw Status.OUT_OF_RANGE
                    .withDescription(
                            "Specified start_timestamp is invalid for the partition. Please specify a"
                                    + " start_timestamp within "
                                    + forMessage(partition.startMicros())
                                    + " and "
                                    + (partition.endMicros() == Long.MAX_VALUE
                                            ? "its end"
                                            : forMessage(partition.endMicros()))
                                    + ". Received start_timestamp: "
                                    + forMessage(startMicros)
                                    + ".")
                    .asRuntimeException();
        }
        RecordEncoder encoder = encoder(read, mutable);
        RowSink sink =
                new GrpcRowSink(
                        call, ResultSetMetadata.newBuilder().setRowType(encoder.rowType()).build());
        try {
            return new ChangeStreamQuery(
                    stream,
                    partition,
                    startMicros,
                    endMicros,
                    Duration.ofMillis(heartbeatMs),
                    request.getResumeToken(),
                    encoder,
                    sink,
                    scheduler,
                    faults,
                    edges);
        } catch (IllegalArgumentException e) {
            throw invalid("Invalid resume token for this query");
        }
    }

    /**
     * The change stream the function reads. GoogleSQL has one function per stream, {@code
     * READ_<stream>}, for both partition modes. PostgreSQL has {@code spanner.read_json_<stream>}
     * for legacy streams and {@code spanner.read_proto_bytes_<stream>} for MUTABLE_KEY_RANGE ones,
     * and matches the stream's name exactly (it was folded to lower case unless quoted).
     */
    private static ChangeStream resolve(
            EmulatedDatabase db, SqlStatement.ChangeStreamRead read, ExecuteSqlRequest request) {
        ChangeStream stream = db.changeStream(read.streamName());
        if (read.function() == SqlStatement.ReadFunction.READ) {
            if (stream == null) {
                int column = request.getSql().toUpperCase().indexOf("READ_") + 1;
                throw invalid(
                        "Table-valued function not found: READ_"
                                + read.streamName()
                                + " [at 1:"
                                + column
                                + "]");
            }
            return stream;
        }
        String function = SqlParser.PG_FUNCTION_SCHEMA + "." + read.functionName();
        if (stream == null || !stream.def().name().equals(read.streamName())) {
            throw invalid("Table-valued function not found: " + function);
        }
        boolean mutable = stream.def().partitionMode() == PartitionMode.MUTABLE_KEY_RANGE;
        boolean wantsMutable = read.function() == SqlStatement.ReadFunction.READ_PROTO_BYTES;
        if (mutable != wantsMutable) {
            String right =
                    (mutable ? SqlParser.PG_READ_PROTO_BYTES : SqlParser.PG_READ_JSON)
                            + stream.def().name();
            throw invalid(
                    "Table-valued function not found: "
                            + function
                            + " (change stream "
                            + stream.def().name()
                            + " has partition_mode "
                            + stream.def().partitionMode()
                            + "; read it with "
                            + SqlParser.PG_FUNCTION_SCHEMA
                            + "."
                            + right
                            + ")");
        }
        return stream;
    }

    private static RecordEncoder encoder(SqlStatement.ChangeStreamRead read, boolean mutable) {
        switch (read.function()) {
            case READ_JSON:
                return new PgJsonRecordEncoder(read.functionName());
            case READ_PROTO_BYTES:
                return new PgBytesRecordEncoder(read.functionName());
            default:
                return mutable ? MutableRecordEncoder.INSTANCE : LegacyRecordEncoder.INSTANCE;
        }
    }

    private static Value argument(
            SqlStatement.ChangeStreamRead read, String name, ExecuteSqlRequest request) {
        SqlExpr expr = read.arguments().get(name);
        return expr == null ? SpannerTypes.NULL : Params.bind(expr, request);
    }

    private static long timestamp(Value v, String name) {
        if (!v.hasStringValue()) {
            throw invalid("Invalid value for " + name + ": expected a TIMESTAMP.");
        }
        try {
            return Timestamps.toMicros(parseTimestamp(v.getStringValue()));
        } catch (DateTimeParseException e) {
            throw invalid("Invalid TIMESTAMP value for " + name + ": " + v.getStringValue());
        }
    }

    /**
     * RFC 3339 ({@code 2024-01-01T00:00:00Z}, {@code ...+02:00}), and the PostgreSQL literal forms
     * {@code 2024-01-01 00:00:00+00} and {@code 2024-01-01 00:00:00.5+02:30}.
     */
    static Instant parseTimestamp(String text) {
        String t = text.trim();
        if (t.length() > 10 && t.charAt(10) == ' ') {
            t = t.substring(0, 10) + "T" + t.substring(11);
        }
        if (t.matches(".*[+-]\\d\\d$")) {
            t = t + ":00"; // PostgreSQL writes whole-hour offsets as +00
        }
        return OffsetDateTime.parse(t).toInstant();
    }

    private static long integer(Value v, String name) {
        try {
            return v.hasNumberValue()
                    ? (long) v.getNumberValue()
                    : Long.parseLong(v.getStringValue());
        } catch (NumberFormatException e) {
            throw invalid("Invalid INT64 value for " + name + ": " + v.getStringValue());
        }
    }

    private static String forMessage(long micros) {
        return SpannerTypes.formatForMessage(Timestamps.toInstant(micros));
    }

    private static StatusRuntimeException invalid(String message) {
        return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
    }

    /** Sends rows as PartialResultSets, the first one carrying the metadata. */
    private static final class GrpcRowSink implements RowSink {
        private final ServerCallStreamObserver<PartialResultSet> call;
        private final ResultSetMetadata metadata;
        private boolean metadataSent;

        GrpcRowSink(ServerCallStreamObserver<PartialResultSet> call, ResultSetMetadata metadata) {
            this.call = call;
            this.metadata = metadata;
        }

        @Override
        public boolean isReady() {
            return call.isReady() && !call.isCancelled();
        }

        @Override
        public void setOnReady(Runnable onReady) {
            call.setOnReadyHandler(onReady);
        }

        @Override
        public void setOnCancel(Runnable onCancel) {
            call.setOnCancelHandler(onCancel);
        }

        @Override
        public void sendRow(Value row, ByteString resumeToken) {
            PartialResultSet.Builder b =
                    PartialResultSet.newBuilder().addValues(row).setResumeToken(resumeToken);
            if (!metadataSent) {
                b.setMetadata(metadata);
                metadataSent = true;
            }
            call.onNext(b.build());
        }

        @Override
        public void complete() {
            if (!metadataSent) {
                call.onNext(PartialResultSet.newBuilder().setMetadata(metadata).build());
                metadataSent = true;
            }
            call.onCompleted();
        }

        @Override
        public void fail(StatusRuntimeException error) {
            call.onError(error);
        }
    }
}
