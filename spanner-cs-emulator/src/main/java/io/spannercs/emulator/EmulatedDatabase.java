package io.spannercs.emulator;

import com.google.spanner.v1.Mutation;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.changestream.EdgeRuntime;
import io.spannercs.emulator.schema.ChangeStreamDef;
import io.spannercs.emulator.schema.Dialect;
import io.spannercs.emulator.schema.Schema;
import io.spannercs.emulator.schema.VersionRetention;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.emulator.storage.Database;
import io.spannercs.emulator.storage.Timestamps;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A database served by the emulator together with its change streams. */
public final class EmulatedDatabase {
    private final Database database;
    private final Map<String, ChangeStream> changeStreams = new LinkedHashMap<>();

    EmulatedDatabase(
            String name, Schema schema, int initialPartitions, int maxPartitions, long seed) {
        this(
                name,
                schema,
                initialPartitions,
                maxPartitions,
                seed,
                EdgeRuntime.none(),
                VersionRetention.DEFAULT);
    }

    EmulatedDatabase(
            String name,
            Schema schema,
            int initialPartitions,
            int maxPartitions,
            long seed,
            EdgeRuntime edges,
            VersionRetention retention) {
        this.database = new Database(name, schema, retention);
        if (edges.on(EdgeCase.SHARED_TIMESTAMPS)) {
            database.shareTimestamps(seed, () -> edges.fired(EdgeCase.SHARED_TIMESTAMPS));
        }
        for (ChangeStreamDef def : schema.changeStreams()) {
            changeStreams.put(
                    def.name().toLowerCase(Locale.ROOT),
                    new ChangeStream(def, database, initialPartitions, maxPartitions, seed, edges));
        }
    }

    /** Full name, {@code projects/P/instances/I/databases/D}. */
    public String name() {
        return database.name();
    }

    public Database database() {
        return database;
    }

    public Schema schema() {
        return database.schema();
    }

    /** The database's dialect, from its schema. */
    public Dialect dialect() {
        return database.schema().dialect();
    }

    /** The change stream, or null if the schema has none of that name. */
    public ChangeStream changeStream(String name) {
        return changeStreams.get(name.toLowerCase(Locale.ROOT));
    }

    public List<ChangeStream> changeStreams() {
        return new ArrayList<>(changeStreams.values());
    }

    /** Commits mutations directly, as a client transaction would. */
    public CommittedTransaction commit(List<Mutation> mutations, String transactionTag) {
        return database.commit(mutations, transactionTag, false);
    }

    /**
     * Commits a system transaction, as Spanner's TTL deletes are: recorded with {@code
     * is_system_transaction = true} and left out of streams with {@code exclude_ttl_deletes}.
     */
    public CommittedTransaction commitSystemTransaction(List<Mutation> mutations) {
        return database.commit(mutations, "", true);
    }

    /**
     * The table's rows at a timestamp, as a read at that timestamp returns them: columns in table
     * order, rows in key order, values in canonical wire form (see {@link Database#read}). The
     * ground truth for snapshot reads: exact for deletes and for several transactions that share
     * one commit timestamp.
     *
     * @throws IllegalArgumentException for a timestamp older than the kept row versions
     */
    public List<List<com.google.protobuf.Value>> rowsAt(String table, Instant at) {
        return database.read(table, Timestamps.toMicros(at));
    }

    /** Like {@link #rowsAt(String, Instant)}, with microseconds since the epoch. */
    public List<List<com.google.protobuf.Value>> rowsAt(String table, long atMicros) {
        return database.read(table, atMicros);
    }

    /** The database's {@code version_retention_period}. */
    public VersionRetention versionRetention() {
        return database.versionRetention();
    }

    /** Spanner's {@code earliest_version_time}: the oldest timestamp a read may use now. */
    public Instant earliestVersionTime() {
        return Timestamps.toInstant(database.earliestVersionMicros());
    }

    /** Every committed transaction with at least one row change, in commit order. */
    public List<CommittedTransaction> groundTruth() {
        return database.groundTruth();
    }
}
