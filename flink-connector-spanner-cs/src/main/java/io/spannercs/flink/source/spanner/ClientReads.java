package io.spannercs.flink.source.spanner;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Options;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.TimestampBound;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.record.ChangeRecord;
import io.spannercs.flink.source.record.ChangeRecordDecoder;
import io.spannercs.flink.source.split.SnapshotKey;
import io.spannercs.flink.source.split.SnapshotSplit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.flink.annotation.Internal;

/**
 * A reader's queries with the official client: each runs with the client's blocking {@link
 * ResultSet} on the caller's thread (the reader's query pool). Why not the client's AsyncResultSet:
 * it also occupies one thread of the client's small async pool per streaming query (a change stream
 * query streams for its whole window, so the ninth partition of a reader never got a thread), and
 * it spins while its own buffer is full.
 */
@Internal
public final class ClientReads implements SpannerReads {
    private final DatabaseClient client;
    private final SpannerSourceConfig config;
    private final Options.QueryOption[] queryOptions;

    public ClientReads(DatabaseClient client, SpannerSourceConfig config) {
        this.client = client;
        this.config = config;
        this.queryOptions =
                config.rpcPriority() == null
                        ? new Options.QueryOption[0]
                        : new Options.QueryOption[] {
                            Options.priority(
                                    Options.RpcPriority.valueOf(config.rpcPriority().name()))
                        };
    }

    /** The reads of the owner's client, opening it now if it is not open yet. */
    public static ClientReads of(LazySpannerClient client, SpannerSourceConfig config) {
        return new ClientReads(SpannerClients.databaseClient(client.get(), config), config);
    }

    @Override
    public ChangeStreamQuery detectQuery() {
        return ChangeStreamQuery.detect(client, config);
    }

    @Override
    public RowCursor<List<ChangeRecord>> partitionWindow(
            ChangeStreamQuery query, String token, long startMicros, long endMicros) {
        return open(
                () ->
                        client.singleUse()
                                .executeQuery(
                                        query.statement(
                                                token,
                                                startMicros,
                                                endMicros,
                                                config.heartbeatInterval().toMillis()),
                                        queryOptions),
                new Function<>() {
                    private ChangeRecordDecoder decoder; // by the first row's column type

                    @Override
                    public List<ChangeRecord> apply(ResultSet rs) {
                        if (decoder == null) {
                            decoder = ChangeRecordDecoder.forColumnType(rs.getColumnType(0));
                        }
                        return decoder.decode(rs);
                    }
                });
    }

    @Override
    public RowCursor<SnapshotRow> snapshotRange(SnapshotSplit split, SnapshotKey after) {
        SnapshotColumns columns = new SnapshotColumns(split);
        TimestampBound atSnapshot =
                TimestampBound.ofReadTimestamp(
                        Timestamp.ofTimeMicroseconds(split.snapshotMicros()));
        return open(
                () ->
                        client.singleUse(atSnapshot)
                                .read(split.table(), split.remaining(after), columns.read),
                columns::row);
    }

    private interface Opening {
        ResultSet open();
    }

    private static <T> RowCursor<T> open(Opening opening, Function<ResultSet, T> rows) {
        ResultSet rs;
        try {
            rs = opening.open();
        } catch (SpannerException e) {
            throw new SpannerReadException(e);
        }
        return new RowCursor<>() {
            @Override
            public T next() {
                try {
                    return rs.next() ? rows.apply(rs) : null;
                } catch (SpannerException e) {
                    throw new SpannerReadException(e);
                }
            }

            @Override
            public void close() {
                rs.close();
            }
        };
    }

    /**
     * The columns of a snapshot split's read, and how a row of it becomes a {@link SnapshotRow}.
     */
    private static final class SnapshotColumns {
        private final SnapshotSplit split;

        /** Key columns first, so that the key of a row is its first columns. */
        final List<String> read;

        /** For each column in table order: its position in {@link #read}, and if it is a key. */
        private final int[] readIndex;

        private final boolean[] isKey;
        private Map<String, String> columnTypes; // from the first row, shared by all

        SnapshotColumns(SnapshotSplit split) {
            this.split = split;
            List<String> columns = new ArrayList<>(split.keyColumns());
            for (String c : split.columns()) {
                if (!split.keyColumns().contains(c)) {
                    columns.add(c);
                }
            }
            this.read = List.copyOf(columns);
            this.readIndex = new int[split.columns().size()];
            this.isKey = new boolean[readIndex.length];
            for (int i = 0; i < readIndex.length; i++) {
                readIndex[i] = read.indexOf(split.columns().get(i));
                isKey[i] = split.keyColumns().contains(split.columns().get(i));
            }
        }

        SnapshotRow row(ResultSet rs) {
            if (columnTypes == null) {
                columnTypes = columnTypes(rs);
            }
            int keyCount = split.keyColumns().size();
            Map<String, Object> keys = new LinkedHashMap<>(keyCount * 2);
            Map<String, Object> values = new LinkedHashMap<>(readIndex.length * 2);
            for (int i = 0; i < readIndex.length; i++) {
                (isKey[i] ? keys : values)
                        .put(split.columns().get(i), SnapshotValues.value(rs, readIndex[i]));
            }
            return new SnapshotRow(SnapshotKey.of(rs, keyCount), keys, values, columnTypes);
        }

        /** Type names of the columns in table order. */
        private Map<String, String> columnTypes(ResultSet rs) {
            Map<String, String> byName = new LinkedHashMap<>();
            for (int i = 0; i < read.size(); i++) {
                byName.put(read.get(i), SnapshotValues.typeName(rs.getColumnType(i)));
            }
            Map<String, String> out = new LinkedHashMap<>();
            split.columns().forEach(c -> out.put(c, byName.get(c)));
            return Collections.unmodifiableMap(out);
        }
    }
}
