package io.spannercs.emulator.grpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.Empty;
import com.google.protobuf.ListValue;
import com.google.protobuf.Value;
import com.google.spanner.v1.BatchCreateSessionsRequest;
import com.google.spanner.v1.BatchCreateSessionsResponse;
import com.google.spanner.v1.BeginTransactionRequest;
import com.google.spanner.v1.CommitRequest;
import com.google.spanner.v1.CommitResponse;
import com.google.spanner.v1.CreateSessionRequest;
import com.google.spanner.v1.DeleteSessionRequest;
import com.google.spanner.v1.ExecuteSqlRequest;
import com.google.spanner.v1.GetSessionRequest;
import com.google.spanner.v1.ListSessionsRequest;
import com.google.spanner.v1.ListSessionsResponse;
import com.google.spanner.v1.PartialResultSet;
import com.google.spanner.v1.PartitionQueryRequest;
import com.google.spanner.v1.PartitionReadRequest;
import com.google.spanner.v1.PartitionResponse;
import com.google.spanner.v1.ReadRequest;
import com.google.spanner.v1.ResultSet;
import com.google.spanner.v1.ResultSetMetadata;
import com.google.spanner.v1.RollbackRequest;
import com.google.spanner.v1.Session;
import com.google.spanner.v1.SpannerGrpc;
import com.google.spanner.v1.StructType;
import com.google.spanner.v1.Transaction;
import com.google.spanner.v1.TransactionSelector;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.spannercs.emulator.EmulatedDatabase;
import io.spannercs.emulator.changestream.ChangeStreamQuery;
import io.spannercs.emulator.changestream.EdgeRuntime;
import io.spannercs.emulator.changestream.FaultInjector;
import io.spannercs.emulator.schema.ColumnDef;
import io.spannercs.emulator.schema.Dialect;
import io.spannercs.emulator.schema.TableDef;
import io.spannercs.emulator.sql.InformationSchema;
import io.spannercs.emulator.sql.SqlParser;
import io.spannercs.emulator.sql.SqlStatement;
import io.spannercs.emulator.sql.VirtualTable;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.emulator.storage.Timestamps;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The part of {@code google.spanner.v1.Spanner} the official client needs for this product:
 * sessions, queries (change stream reads, table and {@code information_schema} selects), the Read
 * API, partitioned reads and queries, transactions and commits with mutations. DML is not served.
 */
public final class SpannerService extends SpannerGrpc.SpannerImplBase {
    private static final Logger LOG = LoggerFactory.getLogger(SpannerService.class);

    private static final String SINGLE_USE_HINT =
            "Change stream queries must be strong reads executed via single use transactions using"
                    + " the ExecuteStreamingSql API.";

    private final Sessions sessions;
    private final ChangeStreamRequests changeStreamRequests;
    private final TableReads reads;
    private final FaultInjector faults;
    private final ScheduledExecutorService scheduler;

    public SpannerService(
            Function<String, EmulatedDatabase> databases,
            ScheduledExecutorService scheduler,
            FaultInjector faults) {
        this(databases, scheduler, faults, EdgeRuntime.none());
    }

    public SpannerService(
            Function<String, EmulatedDatabase> databases,
            ScheduledExecutorService scheduler,
            FaultInjector faults,
            EdgeRuntime edges) {
        this.sessions = new Sessions(databases);
        this.changeStreamRequests = new ChangeStreamRequests(scheduler, faults, edges);
        this.reads = new TableReads(sessions);
        this.faults = faults;
        this.scheduler = scheduler;
    }

    private interface Call<T> {
        T run();
    }

    private static <T> void unary(StreamObserver<T> observer, Call<T> call) {
        T result;
        try {
            result = call.run();
        } catch (StatusRuntimeException e) {
            observer.onError(e);
            return;
        } catch (RuntimeException e) {
            LOG.warn("Emulator failed a request", e);
            observer.onError(
                    Status.INTERNAL
                            .withDescription("Emulator error: " + e)
                            .withCause(e)
                            .asRuntimeException());
            return;
        }
        observer.onNext(result);
        observer.onCompleted();
    }

    // ---- sessions -------------------------------------------------------------------------

    @Override
    public void createSession(CreateSessionRequest request, StreamObserver<Session> observer) {
        unary(observer, () -> sessions.create(request.getDatabase(), request.getSession()));
    }

    @Override
    public void batchCreateSessions(
            BatchCreateSessionsRequest request,
            StreamObserver<BatchCreateSessionsResponse> observer) {
        unary(
                observer,
                () -> {
                    BatchCreateSessionsResponse.Builder b =
                            BatchCreateSessionsResponse.newBuilder();
                    for (int i = 0; i < Math.max(1, request.getSessionCount()); i++) {
                        b.addSession(
                                sessions.create(
                                        request.getDatabase(), request.getSessionTemplate()));
                    }
                    return b.build();
                });
    }

    @Override
    public void getSession(GetSessionRequest request, StreamObserver<Session> observer) {
        unary(observer, () -> sessions.get(request.getName()).session());
    }

    @Override
    public void listSessions(
            ListSessionsRequest request, StreamObserver<ListSessionsResponse> observer) {
        unary(
                observer,
                () -> {
                    ListSessionsResponse.Builder b = ListSessionsResponse.newBuilder();
                    for (Sessions.SessionState s : sessions.all()) {
                        if (s.database().name().equals(request.getDatabase())) {
                            b.addSessions(s.session());
                        }
                    }
                    return b.build();
                });
    }

    @Override
    public void deleteSession(DeleteSessionRequest request, StreamObserver<Empty> observer) {
        unary(
                observer,
                () -> {
                    sessions.delete(request.getName());
                    return Empty.getDefaultInstance();
                });
    }

    // ---- transactions ---------------------------------------------------------------------

    @Override
    public void beginTransaction(
            BeginTransactionRequest request, StreamObserver<Transaction> observer) {
        unary(
                observer,
                () -> {
                    Sessions.SessionState session = sessions.get(request.getSession());
                    Sessions.TransactionState txn =
                            sessions.begin(
                                    session,
                                    request.getOptions(),
                                    request.getRequestOptions().getTransactionTag());
                    return toProto(txn);
                });
    }

    private static Transaction toProto(Sessions.TransactionState txn) {
        return Sessions.toProto(txn);
    }

    @Override
    public void commit(CommitRequest request, StreamObserver<CommitResponse> observer) {
        unary(
                observer,
                () -> {
                    Sessions.SessionState session = sessions.get(request.getSession());
                    String tag = request.getRequestOptions().getTransactionTag();
                    if (request.hasTransactionId()) {
                        Sessions.TransactionState txn =
                                sessions.transaction(request.getTransactionId());
                        if (txn.readOnly) {
                            throw Status.FAILED_PRECONDITION
                                    .withDescription("Cannot commit a read-only transaction")
                                    .asRuntimeException();
                        }
                        if (tag.isEmpty() && txn.tag != null) {
                            tag = txn.tag;
                        }
                        sessions.end(request.getTransactionId());
                    } else if (!request.hasSingleUseTransaction()
                            || !request.getSingleUseTransaction().hasReadWrite()) {
                        throw Status.INVALID_ARGUMENT
                                .withDescription("Commit needs a read-write transaction")
                                .asRuntimeException();
                    }
                    faults.checkCommit();
                    CommittedTransaction committed =
                            session.database().commit(request.getMutationsList(), tag);
                    CommitResponse.Builder b =
                            CommitResponse.newBuilder()
                                    .setCommitTimestamp(
                                            Timestamps.toProto(committed.commitMicros()));
                    if (request.getReturnCommitStats()) {
                        b.setCommitStats(
                                CommitResponse.CommitStats.newBuilder()
                                        .setMutationCount(request.getMutationsCount()));
                    }
                    return b.build();
                });
    }

    @Override
    public void rollback(RollbackRequest request, StreamObserver<Empty> observer) {
        unary(
                observer,
                () -> {
                    sessions.end(request.getTransactionId());
                    return Empty.getDefaultInstance();
                });
    }

    // ---- reads ----------------------------------------------------------------------------

    @Override
    public void read(ReadRequest request, StreamObserver<ResultSet> observer) {
        unary(
                observer,
                () -> {
                    TableReads.Prepared p = reads.prepareRead(request);
                    ResultSet.Builder b = ResultSet.newBuilder().setMetadata(p.metadata());
                    for (List<Value> row : p.rows()) {
                        b.addRows(ListValue.newBuilder().addAllValues(row));
                    }
                    return b.build();
                });
    }

    @Override
    public void streamingRead(ReadRequest request, StreamObserver<PartialResultSet> observer) {
        ServerCallStreamObserver<PartialResultSet> call =
                (ServerCallStreamObserver<PartialResultSet>) observer;
        try {
            TableReads.Prepared p = reads.prepareRead(request);
            new RowStream(
                            call,
                            p.metadata(),
                            p.rows(),
                            p.readMicros(),
                            p.alreadySent(),
                            p.table(),
                            faults,
                            scheduler)
                    .start();
        } catch (StatusRuntimeException e) {
            call.onError(e);
        } catch (RuntimeException e) {
            LOG.warn("Emulator failed a read", e);
            call.onError(
                    Status.INTERNAL.withDescription("Emulator error: " + e).asRuntimeException());
        }
    }

    @Override
    public void partitionRead(
            PartitionReadRequest request, StreamObserver<PartitionResponse> observer) {
        unary(observer, () -> reads.partitionRead(request));
    }

    @Override
    public void partitionQuery(
            PartitionQueryRequest request, StreamObserver<PartitionResponse> observer) {
        unary(observer, () -> reads.partitionQuery(request));
    }

    // ---- queries --------------------------------------------------------------------------

    @Override
    public void executeSql(ExecuteSqlRequest request, StreamObserver<ResultSet> observer) {
        unary(
                observer,
                () -> {
                    Sessions.SessionState session = sessions.get(request.getSession());
                    SqlStatement statement = parse(request.getSql(), session.database().dialect());
                    if (statement instanceof SqlStatement.ChangeStreamRead) {
                        throw Status.INVALID_ARGUMENT
                                .withDescription(
                                        "Change stream queries are not supported for the ExecuteSql API. "
                                                + SINGLE_USE_HINT)
                                .asRuntimeException();
                    }
                    QueryResult result = runQuery(session, request, statement);
                    ResultSet.Builder b = ResultSet.newBuilder().setMetadata(result.metadata);
                    for (List<Value> row : result.rows()) {
                        b.addRows(ListValue.newBuilder().addAllValues(row));
                    }
                    return b.build();
                });
    }

    @Override
    public void executeStreamingSql(
            ExecuteSqlRequest request, StreamObserver<PartialResultSet> observer) {
        ServerCallStreamObserver<PartialResultSet> call =
                (ServerCallStreamObserver<PartialResultSet>) observer;
        try {
            Sessions.SessionState session = sessions.get(request.getSession());
            SqlStatement statement = parse(request.getSql(), session.database().dialect());
            if (statement instanceof SqlStatement.ChangeStreamRead read) {
                requireSingleUseStrong(request.getTransaction());
                ChangeStreamQuery query =
                        changeStreamRequests.create(session.database(), read, request, call);
                query.start();
                return;
            }
            QueryResult result = runQuery(session, request, statement);
            new RowStream(
                            call,
                            result.metadata,
                            result.rows(),
                            result.readMicros,
                            result.alreadySent,
                            result.faultTable,
                            faults,
                            scheduler)
                    .start();
        } catch (StatusRuntimeException e) {
            call.onError(e);
        } catch (RuntimeException e) {
            LOG.warn("Emulator failed a query", e);
            call.onError(
                    Status.INTERNAL.withDescription("Emulator error: " + e).asRuntimeException());
        }
    }

    private static SqlStatement parse(String sql, Dialect dialect) {
        try {
            return SqlParser.parse(sql, dialect);
        } catch (io.spannercs.emulator.sql.CombinedChangeStreamQueryException e) {
            throw Status.UNIMPLEMENTED.withDescription(e.getMessage()).asRuntimeException();
        } catch (IllegalArgumentException e) {
            throw Status.INVALID_ARGUMENT
                    .withDescription(
                            e.getMessage() + " [emulator: unsupported or invalid SQL: " + sql + "]")
                    .asRuntimeException();
        }
    }

    private static void requireSingleUseStrong(TransactionSelector selector) {
        boolean ok;
        switch (selector.getSelectorCase()) {
            case SELECTOR_NOT_SET:
                ok = true;
                break;
            case SINGLE_USE:
                ok =
                        selector.getSingleUse().hasReadOnly()
                                && ReadTimestamps.isStrong(selector.getSingleUse().getReadOnly());
                break;
            default:
                ok = false;
        }
        if (!ok) {
            throw Status.INVALID_ARGUMENT
                    .withDescription(
                            "Change stream queries are not supported for multi use transactions. "
                                    + SINGLE_USE_HINT)
                    .asRuntimeException();
        }
    }

    /**
     * A query's result: metadata, its rows at the read timestamp, the rows a resume token says were
     * sent already, and the user table it reads (for read faults; null otherwise).
     */
    private record QueryResult(
            ResultSetMetadata metadata,
            VirtualTable table,
            long readMicros,
            int alreadySent,
            String faultTable) {
        /** The rows still to send. */
        List<List<Value>> rows() {
            List<List<Value>> all = table.rows();
            return all.subList(Math.min(alreadySent, all.size()), all.size());
        }
    }

    private QueryResult runQuery(
            Sessions.SessionState session, ExecuteSqlRequest request, SqlStatement statement) {
        ResultSetMetadata.Builder metadata = ResultSetMetadata.newBuilder();
        EmulatedDatabase db = session.database();
        Tokens.PartitionSpec partition =
                request.getPartitionToken().isEmpty() ? null : reads.queryPartition(request);
        long readMicros;
        int alreadySent = 0;
        if (!request.getResumeToken().isEmpty()) {
            Tokens.ResumePosition pos = Tokens.parseResumeToken(request.getResumeToken());
            readMicros = pos.readMicros();
            alreadySent = pos.rowsSent();
            ReadTimestamps.checkReadable(readMicros, db.database());
        } else {
            readMicros = sessions.readMicros(session, request.getTransaction(), metadata);
        }
        String faultTable = null;
        VirtualTable table;
        try {
            if (statement instanceof SqlStatement.SelectLiteral literal) {
                Value v = Params.bind(literal.value(), request);
                table =
                        new VirtualTable(
                                List.of(
                                        VirtualTable.field(
                                                "", Params.typeOf(literal.value(), request))),
                                List.of(List.of(v)));
            } else {
                SqlStatement.Select select = (SqlStatement.Select) statement;
                Map<String, Value> equalities = new LinkedHashMap<>();
                select.equalities().forEach((k, v) -> equalities.put(k, Params.bind(v, request)));
                Map<String, List<Value>> memberships = new LinkedHashMap<>();
                select.memberships()
                        .forEach(
                                (k, list) -> {
                                    List<Value> values = new ArrayList<>();
                                    list.forEach(v -> values.add(Params.bind(v, request)));
                                    memberships.put(k, values);
                                });
                VirtualTable source;
                if (select.schemaName().equalsIgnoreCase("information_schema")) {
                    source =
                            InformationSchema.view(
                                    db.schema(), select.table(), db.versionRetention());
                } else if (!select.schemaName().isEmpty() && !isPgPublic(db, select)) {
                    throw new IllegalArgumentException(
                            "Table not found: " + select.schemaName() + "." + select.table());
                } else {
                    source = tableAt(db, select.table(), readMicros, partition);
                    faultTable = db.schema().table(select.table()).get().name();
                }
                table = source.select(select.table(), select.columns(), equalities, memberships);
            }
        } catch (IllegalArgumentException e) {
            throw Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException();
        }
        metadata.setRowType(StructType.newBuilder().addAllFields(table.columns()));
        return new QueryResult(metadata.build(), table, readMicros, alreadySent, faultTable);
    }

    /** PostgreSQL's default schema {@code public} holds the user tables. */
    private static boolean isPgPublic(EmulatedDatabase db, SqlStatement.Select select) {
        return db.dialect() == Dialect.POSTGRESQL && select.schemaName().equals("public");
    }

    /** The table's rows at the timestamp, only those of the partition's key range if given. */
    private static VirtualTable tableAt(
            EmulatedDatabase db, String name, long readMicros, Tokens.PartitionSpec partition) {
        TableDef def =
                db.schema()
                        .table(name)
                        .orElseThrow(
                                () -> new IllegalArgumentException("Table not found: " + name));
        List<StructType.Field> fields = new ArrayList<>();
        for (ColumnDef c : def.columns()) {
            fields.add(VirtualTable.field(c.name(), c.type()));
        }
        List<List<Value>> rows = ReadTimestamps.rowsAt(db.database(), def.name(), readMicros);
        if (partition != null) {
            int[] keyIndexes = TableReads.keyIndexes(def);
            java.util.Comparator<List<Value>> order =
                    io.spannercs.emulator.storage.KeySetMatcher.keyOrder(def);
            List<List<Value>> in = new ArrayList<>();
            for (List<Value> row : rows) {
                if (TableReads.inPartition(TableReads.pick(row, keyIndexes), partition, order)) {
                    in.add(row);
                }
            }
            rows = in;
        }
        return new VirtualTable(fields, rows);
    }

    static ByteString empty() {
        return ByteString.EMPTY;
    }
}
