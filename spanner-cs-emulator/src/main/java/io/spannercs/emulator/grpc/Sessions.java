package io.spannercs.emulator.grpc;

import com.google.protobuf.ByteString;
import com.google.spanner.v1.ResultSetMetadata;
import com.google.spanner.v1.Session;
import com.google.spanner.v1.Transaction;
import com.google.spanner.v1.TransactionOptions;
import com.google.spanner.v1.TransactionSelector;
import io.grpc.Status;
import io.spannercs.emulator.EmulatedDatabase;
import io.spannercs.emulator.storage.Timestamps;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/** Sessions (regular and multiplexed) and open transactions. */
final class Sessions {
    private final Function<String, EmulatedDatabase> databases;
    private final Map<String, SessionState> sessions = new ConcurrentHashMap<>();
    private final Map<ByteString, TransactionState> transactions = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();

    record SessionState(Session session, EmulatedDatabase database) {}

    /** A transaction begun by BeginTransaction or an inline begin. */
    static final class TransactionState {
        final ByteString id;
        final SessionState session;
        final boolean readOnly;
        final long readMicros;
        volatile String tag;

        TransactionState(
                ByteString id,
                SessionState session,
                boolean readOnly,
                long readMicros,
                String tag) {
            this.id = id;
            this.session = session;
            this.readOnly = readOnly;
            this.readMicros = readMicros;
            this.tag = tag;
        }
    }

    Sessions(Function<String, EmulatedDatabase> databases) {
        this.databases = databases;
    }

    Session create(String databaseName, Session template) {
        EmulatedDatabase db = databases.apply(databaseName);
        if (db == null) {
            throw Status.NOT_FOUND
                    .withDescription("Database not found: " + databaseName)
                    .asRuntimeException();
        }
        String name =
                databaseName + "/sessions/" + Long.toString(ids.incrementAndGet(), 36) + "emu";
        long now = Timestamps.nowMicros();
        Session session =
                template.toBuilder()
                        .setName(name)
                        .setCreateTime(Timestamps.toProto(now))
                        .setApproximateLastUseTime(Timestamps.toProto(now))
                        .build();
        sessions.put(name, new SessionState(session, db));
        return session;
    }

    SessionState get(String name) {
        SessionState s = sessions.get(name);
        if (s == null) {
            throw Status.NOT_FOUND
                    .withDescription("Session not found: " + name)
                    .asRuntimeException();
        }
        return s;
    }

    void delete(String name) {
        sessions.remove(name);
    }

    Iterable<SessionState> all() {
        return sessions.values();
    }

    TransactionState begin(SessionState session, TransactionOptions options, String tag) {
        ByteString id = ByteString.copyFrom("txn-" + ids.incrementAndGet(), StandardCharsets.UTF_8);
        boolean readOnly = options.hasReadOnly();
        long readMicros =
                readOnly
                        ? ReadTimestamps.resolve(options.getReadOnly(), session.database(), false)
                        : 0;
        TransactionState txn = new TransactionState(id, session, readOnly, readMicros, tag);
        transactions.put(id, txn);
        return txn;
    }

    TransactionState transaction(ByteString id) {
        TransactionState t = transactions.get(id);
        if (t == null) {
            throw Status.NOT_FOUND
                    .withDescription("Transaction not found or already ended")
                    .asRuntimeException();
        }
        return t;
    }

    void end(ByteString id) {
        transactions.remove(id);
    }

    static Transaction toProto(TransactionState txn) {
        Transaction.Builder b = Transaction.newBuilder().setId(txn.id);
        if (txn.readOnly) {
            b.setReadTimestamp(Timestamps.toProto(txn.readMicros));
        }
        return b.build();
    }

    /**
     * The read timestamp for a read or query; starts a transaction for an inline begin (and puts it
     * in the metadata). A read-only transaction whose timestamp has left the version retention
     * period fails with FAILED_PRECONDITION, as in Spanner.
     */
    long readMicros(
            SessionState session,
            TransactionSelector selector,
            ResultSetMetadata.Builder metadata) {
        switch (selector.getSelectorCase()) {
            case SINGLE_USE:
                {
                    TransactionOptions options = selector.getSingleUse();
                    return options.hasReadOnly()
                            ? ReadTimestamps.resolve(options.getReadOnly(), session.database())
                            : session.database().database().strongReadMicros();
                }
            case ID:
                {
                    TransactionState txn = transaction(selector.getId());
                    if (!txn.readOnly) {
                        return session.database().database().strongReadMicros();
                    }
                    ReadTimestamps.checkReadable(txn.readMicros, session.database().database());
                    return txn.readMicros;
                }
            case BEGIN:
                {
                    TransactionState txn = begin(session, selector.getBegin(), null);
                    metadata.setTransaction(toProto(txn));
                    if (!txn.readOnly) {
                        return session.database().database().strongReadMicros();
                    }
                    ReadTimestamps.checkReadable(txn.readMicros, session.database().database());
                    return txn.readMicros;
                }
            default:
                return session.database().database().strongReadMicros();
        }
    }
}
