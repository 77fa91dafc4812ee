package io.spannercs.emulator.grpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.Value;
import com.google.spanner.v1.ExecuteSqlRequest;
import com.google.spanner.v1.Partition;
import com.google.spanner.v1.PartitionOptions;
import com.google.spanner.v1.PartitionQueryRequest;
import com.google.spanner.v1.PartitionReadRequest;
import com.google.spanner.v1.PartitionResponse;
import com.google.spanner.v1.ReadRequest;
import com.google.spanner.v1.ResultSetMetadata;
import com.google.spanner.v1.StructType;
import com.google.spanner.v1.TransactionSelector;
import com.google.spanner.v1.Type;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.spannercs.emulator.EmulatedDatabase;
import io.spannercs.emulator.schema.ColumnDef;
import io.spannercs.emulator.schema.Dialect;
import io.spannercs.emulator.schema.TableDef;
import io.spannercs.emulator.sql.SqlParser;
import io.spannercs.emulator.sql.SqlStatement;
import io.spannercs.emulator.sql.VirtualTable;
import io.spannercs.emulator.storage.KeySetMatcher;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Read API ({@code Read}, {@code StreamingRead}) and partitioned reads and queries ({@code
 * PartitionRead}, {@code PartitionQuery}, and executing a partition token).
 *
 * <p>Partitions split the table's key space at its rows at the transaction's read timestamp into
 * contiguous key ranges, so their union is exactly the table; each partition's rows come in key
 * order.
 */
final class TableReads {
    /** Partitions made when the request gives no {@code max_partitions} hint. */
    static final int DEFAULT_PARTITIONS = 4;

    /** The most partitions one request gets. */
    static final int MAX_PARTITIONS = 10_000;

    private final Sessions sessions;

    TableReads(Sessions sessions) {
        this.sessions = sessions;
    }

    /**
     * A read ready to send: metadata, the rows still to send (a resumed read leaves out the rows
     * its resume token says were sent), the read timestamp and the table (for read faults).
     */
    record Prepared(
            ResultSetMetadata metadata,
            List<List<Value>> rows,
            long readMicros,
            int alreadySent,
            String table) {}

    /**
     * Checks a {@code Read}/{@code StreamingRead} request and collects its rows at the read
     * timestamp, in key order.
     */
    Prepared prepareRead(ReadRequest r) {
        Sessions.SessionState session = sessions.get(r.getSession());
        EmulatedDatabase db = session.database();
        TableDef def = table(db, r.getTable());
        checkIndex(def, r.getIndex());
        int[] columns = columns(def, r.getColumnsList());
        if (r.getLimit() < 0) {
            throw invalid("limit must not be negative, got " + r.getLimit());
        }
        Tokens.PartitionSpec partition = null;
        if (!r.getPartitionToken().isEmpty()) {
            if (r.getOrderBy() == ReadRequest.OrderBy.ORDER_BY_PRIMARY_KEY) {
                throw invalid(
                        "ORDER_BY_PRIMARY_KEY cannot be used with a partition_token: rows of a"
                                + " partitioned read come in an unspecified order");
            }
            if (r.getLimit() > 0) {
                throw invalid("A limit cannot be specified when partition_token is set");
            }
            partition =
                    checkPartition(
                            r.getPartitionToken(),
                            "read",
                            readFingerprint(
                                    r.getTable(), r.getIndex(), r.getColumnsList(), r.getKeySet()),
                            r.getTransaction());
        } else if (r.getDataBoostEnabled()) {
            throw invalid("data_boost_enabled can only be set together with a partition_token");
        }
        KeySetMatcher keys = new KeySetMatcher(def, r.getKeySet());
        ResultSetMetadata.Builder metadata = ResultSetMetadata.newBuilder();
        long readMicros;
        int alreadySent = 0;
        if (!r.getResumeToken().isEmpty()) {
            Tokens.ResumePosition pos = Tokens.parseResumeToken(r.getResumeToken());
            readMicros = pos.readMicros();
            alreadySent = pos.rowsSent();
            ReadTimestamps.checkReadable(readMicros, db.database());
        } else {
            readMicros = sessions.readMicros(session, r.getTransaction(), metadata);
        }
        List<List<Value>> rows = new ArrayList<>();
        int[] keyIndexes = keyIndexes(def);
        Comparator<List<Value>> order = KeySetMatcher.keyOrder(def);
        for (List<Value> row : ReadTimestamps.rowsAt(db.database(), def.name(), readMicros, keys)) {
            if (partition == null || inPartition(pick(row, keyIndexes), partition, order)) {
                rows.add(pick(row, columns));
            }
        }
        if (r.getLimit() > 0 && rows.size() > r.getLimit()) {
            rows = rows.subList(0, (int) r.getLimit());
        }
        rows = rows.subList(Math.min(alreadySent, rows.size()), rows.size());
        StructType.Builder rowType = StructType.newBuilder();
        for (int c : columns) {
            ColumnDef col = def.columns().get(c);
            rowType.addFields(VirtualTable.field(col.name(), col.type()));
        }
        metadata.setRowType(rowType);
        return new Prepared(metadata.build(), rows, readMicros, alreadySent, def.name());
    }

    /** {@code PartitionRead}: the table's key space at the transaction's timestamp, split. */
    PartitionResponse partitionRead(PartitionReadRequest r) {
        Sessions.SessionState session = sessions.get(r.getSession());
        EmulatedDatabase db = session.database();
        TableDef def = table(db, r.getTable());
        checkIndex(def, r.getIndex());
        columns(def, r.getColumnsList());
        new KeySetMatcher(def, r.getKeySet()); // checks the keys now, as Spanner does
        PartitionResponse.Builder response = PartitionResponse.newBuilder();
        Sessions.TransactionState txn =
                partitionTransaction(session, r.getTransaction(), response, "PartitionRead");
        String fingerprint =
                readFingerprint(r.getTable(), r.getIndex(), r.getColumnsList(), r.getKeySet());
        split(db, def, txn, r.getPartitionOptions(), "read", fingerprint, response);
        return response.build();
    }

    /**
     * {@code PartitionQuery}: queries that read one table, {@code SELECT <columns> FROM <table>
     * [WHERE ...]}, are split like a read of the whole table; {@code SELECT <literal>} makes one
     * partition. Other queries fail with INVALID_ARGUMENT.
     */
    PartitionResponse partitionQuery(PartitionQueryRequest r) {
        Sessions.SessionState session = sessions.get(r.getSession());
        EmulatedDatabase db = session.database();
        SqlStatement statement;
        try {
            statement = SqlParser.parse(r.getSql(), db.dialect());
        } catch (RuntimeException e) {
            throw notPartitionable(r.getSql(), e.getMessage());
        }
        TableDef def = null;
        if (statement instanceof SqlStatement.Select select) {
            if (select.schemaName().equalsIgnoreCase("information_schema")) {
                throw notPartitionable(
                        r.getSql(), "information_schema views cannot be partitioned");
            }
            if (!select.schemaName().isEmpty()
                    && !(db.dialect() == Dialect.POSTGRESQL
                            && select.schemaName().equals("public"))) {
                throw Status.INVALID_ARGUMENT
                        .withDescription(
                                "Table not found: " + select.schemaName() + "." + select.table())
                        .asRuntimeException();
            }
            def =
                    db.schema()
                            .table(select.table())
                            .orElseThrow(
                                    () ->
                                            Status.INVALID_ARGUMENT
                                                    .withDescription(
                                                            "Table not found: " + select.table())
                                                    .asRuntimeException());
        } else if (statement instanceof SqlStatement.ChangeStreamRead) {
            throw notPartitionable(
                    r.getSql(), "change stream queries are read with ExecuteStreamingSql");
        }
        PartitionResponse.Builder response = PartitionResponse.newBuilder();
        Sessions.TransactionState txn =
                partitionTransaction(session, r.getTransaction(), response, "PartitionQuery");
        String fingerprint =
                queryFingerprint(r.getSql(), r.getParams().getFieldsMap(), r.getParamTypesMap());
        if (def == null) {
            response.addPartitions(
                    Partition.newBuilder()
                            .setPartitionToken(
                                    Tokens.partitionToken(
                                            new Tokens.PartitionSpec(
                                                    "query", txn.id, fingerprint, null, null))));
        } else {
            split(db, def, txn, r.getPartitionOptions(), "query", fingerprint, response);
        }
        return response.build();
    }

    /**
     * Checks the partition token of an {@code ExecuteSql}/{@code ExecuteStreamingSql} request.
     *
     * @return the partition's key range
     */
    Tokens.PartitionSpec queryPartition(ExecuteSqlRequest r) {
        if (r.getQueryMode() != ExecuteSqlRequest.QueryMode.NORMAL) {
            throw invalid("A partitioned query cannot be run in " + r.getQueryMode() + " mode");
        }
        return checkPartition(
                r.getPartitionToken(),
                "query",
                queryFingerprint(r.getSql(), r.getParams().getFieldsMap(), r.getParamTypesMap()),
                r.getTransaction());
    }

    /** Whether a full key lies in the partition's key range (always without a partition). */
    static boolean inPartition(
            List<Value> key, Tokens.PartitionSpec p, Comparator<List<Value>> order) {
        if (p == null) {
            return true;
        }
        return (p.lowerExclusive() == null || order.compare(key, p.lowerExclusive()) > 0)
                && (p.upperInclusive() == null || order.compare(key, p.upperInclusive()) <= 0);
    }

    static int[] keyIndexes(TableDef def) {
        int[] out = new int[def.keyColumns().size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = def.indexOf(def.keyColumns().get(i).name());
        }
        return out;
    }

    static List<Value> pick(List<Value> row, int[] indexes) {
        List<Value> out = new ArrayList<>(indexes.length);
        for (int i : indexes) {
            out.add(row.get(i));
        }
        return out;
    }

    // ---- helpers --------------------------------------------------------------------------

    private void split(
            EmulatedDatabase db,
            TableDef def,
            Sessions.TransactionState txn,
            PartitionOptions options,
            String kind,
            String fingerprint,
            PartitionResponse.Builder response) {
        ReadTimestamps.checkReadable(txn.readMicros, db.database());
        int[] keyIndexes = keyIndexes(def);
        List<List<Value>> keys = new ArrayList<>();
        for (List<Value> row : ReadTimestamps.rowsAt(db.database(), def.name(), txn.readMicros)) {
            keys.add(pick(row, keyIndexes));
        }
        long hint =
                options.getMaxPartitions() > 0 ? options.getMaxPartitions() : DEFAULT_PARTITIONS;
        int n = (int) Math.max(1, Math.min(Math.min(hint, MAX_PARTITIONS), keys.size()));
        List<Value> lower = null;
        for (int i = 1; i <= n; i++) {
            List<Value> upper = i == n ? null : keys.get((int) ((long) i * keys.size() / n) - 1);
            response.addPartitions(
                    Partition.newBuilder()
                            .setPartitionToken(
                                    Tokens.partitionToken(
                                            new Tokens.PartitionSpec(
                                                    kind, txn.id, fingerprint, lower, upper))));
            lower = upper;
        }
    }

    /** The read-only transaction a partition request runs in (begun inline if asked). */
    private Sessions.TransactionState partitionTransaction(
            Sessions.SessionState session,
            TransactionSelector selector,
            PartitionResponse.Builder response,
            String rpc) {
        Sessions.TransactionState txn;
        switch (selector.getSelectorCase()) {
            case ID:
                txn = sessions.transaction(selector.getId());
                break;
            case BEGIN:
                if (!selector.getBegin().hasReadOnly()) {
                    throw onlyReadOnly(rpc);
                }
                txn = sessions.begin(session, selector.getBegin(), null);
                response.setTransaction(Sessions.toProto(txn));
                break;
            default:
                throw onlyReadOnly(rpc);
        }
        if (!txn.readOnly) {
            throw onlyReadOnly(rpc);
        }
        return txn;
    }

    private static StatusRuntimeException onlyReadOnly(String rpc) {
        return invalid(
                rpc
                        + " needs a read-only snapshot transaction (begun with BeginTransaction or"
                        + " inline); read-write and single-use transactions are not supported");
    }

    private Tokens.PartitionSpec checkPartition(
            ByteString token, String kind, String fingerprint, TransactionSelector selector) {
        Tokens.PartitionSpec p = Tokens.parsePartitionToken(token);
        if (!p.kind().equals(kind)) {
            throw invalid(
                    "The partition_token was created by Partition"
                            + (p.kind().equals("read") ? "Read" : "Query")
                            + " and cannot be used with this request");
        }
        if (!p.fingerprint().equals(fingerprint)) {
            throw invalid(
                    "The request does not match the one the partition_token was created for: "
                            + (kind.equals("read")
                                    ? "table, index, columns and key_set"
                                    : "sql, params and param_types")
                            + " must be the same");
        }
        if (selector.getSelectorCase() != TransactionSelector.SelectorCase.ID
                || !selector.getId().equals(p.transactionId())) {
            throw invalid(
                    "A partition_token must be used in the read-only transaction that created it");
        }
        Sessions.TransactionState txn = sessions.transaction(p.transactionId());
        if (!txn.readOnly) {
            throw invalid("A partition_token needs a read-only transaction");
        }
        return p;
    }

    static TableDef table(EmulatedDatabase db, String name) {
        return db.schema()
                .table(name)
                .orElseThrow(
                        () ->
                                Status.NOT_FOUND
                                        .withDescription("Table not found: " + name)
                                        .asRuntimeException());
    }

    private static void checkIndex(TableDef def, String index) {
        if (!index.isEmpty()) {
            throw Status.NOT_FOUND
                    .withDescription(
                            "Index not found on table "
                                    + def.name()
                                    + ": "
                                    + index
                                    + " (the emulator has no secondary indexes)")
                    .asRuntimeException();
        }
    }

    private static int[] columns(TableDef def, List<String> names) {
        if (names.isEmpty()) {
            throw invalid("A read needs at least one column of table " + def.name());
        }
        int[] out = new int[names.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = def.indexOf(names.get(i));
            if (out[i] < 0) {
                throw Status.NOT_FOUND
                        .withDescription(
                                "Column not found in table " + def.name() + ": " + names.get(i))
                        .asRuntimeException();
            }
        }
        return out;
    }

    private static String readFingerprint(
            String table, String index, List<String> columns, com.google.spanner.v1.KeySet keys) {
        return Tokens.fingerprint(
                ByteString.copyFromUtf8(table.toLowerCase(Locale.ROOT)),
                ByteString.copyFromUtf8(index),
                ByteString.copyFromUtf8(String.join("\u0000", columns)),
                keys.toByteString());
    }

    private static String queryFingerprint(
            String sql, Map<String, Value> params, Map<String, Type> types) {
        List<ByteString> parts = new ArrayList<>();
        parts.add(ByteString.copyFromUtf8(sql));
        new TreeMap<>(params)
                .forEach(
                        (k, v) -> {
                            parts.add(ByteString.copyFromUtf8(k));
                            parts.add(v.toByteString());
                        });
        new TreeMap<>(types)
                .forEach(
                        (k, v) -> {
                            parts.add(ByteString.copyFromUtf8(k));
                            parts.add(v.toByteString());
                        });
        return Tokens.fingerprint(parts.toArray(new ByteString[0]));
    }

    private static StatusRuntimeException notPartitionable(String sql, String reason) {
        return invalid(
                "Query is not root partitionable: the emulator partitions SELECT <columns> FROM"
                        + " <table> [WHERE <column> = <value> [AND ...]] and SELECT <literal> ("
                        + reason
                        + "): "
                        + sql);
    }

    private static StatusRuntimeException invalid(String message) {
        return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
    }
}
