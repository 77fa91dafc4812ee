package io.spannercs.emulator.storage;

import com.google.protobuf.ListValue;
import com.google.protobuf.Value;
import com.google.spanner.v1.KeyRange;
import com.google.spanner.v1.KeySet;
import com.google.spanner.v1.Mutation;
import io.grpc.Status;
import io.spannercs.emulator.schema.ColumnDef;
import io.spannercs.emulator.schema.Schema;
import io.spannercs.emulator.schema.SpannerTypes;
import io.spannercs.emulator.schema.TableDef;
import io.spannercs.emulator.schema.VersionRetention;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongConsumer;

/**
 * One database: tables, the commit clock and the ground truth. Commits are serialized; every commit
 * timestamp is greater than every timestamp handed out before, including the "safe" timestamps that
 * heartbeats report. With {@link #shareTimestamps shared timestamps} a commit may instead take the
 * previous commit's timestamp, while no safe timestamp at or after it has been published.
 */
public final class Database {
    private final String name;
    private final Schema schema;
    private final Map<String, TableData> tables = new LinkedHashMap<>();
    private final List<CommitListener> listeners = new CopyOnWriteArrayList<>();
    private final List<CommittedTransaction> groundTruth = new ArrayList<>();
    private final long createdMicros;
    private long lastMicros;

    /** How long old row versions are kept for reads in the past. */
    private volatile VersionRetention retention;

    /**
     * The greatest cutoff old versions were pruned at: reads at or after it are exact, reads before
     * it may miss versions (after the retention period was shortened and lengthened again).
     */
    private long prunedBeforeMicros;

    private long nextTransactionId = 1;

    /** The commit timestamp of the commit being applied, as a TIMESTAMP value. */
    private Value pendingCommitTimestamp;

    /** Up to this many transactions share one commit timestamp. */
    static final int MAX_COMMITS_PER_SHARED_TIMESTAMP = 4;

    /** A commit timestamp stays open for sharing this long after its first commit. */
    static final long SHARED_TIMESTAMP_OPEN_NANOS = 5_000_000L;

    /** Seeded coin for sharing; null while timestamps are never shared. */
    private java.util.Random sharing;

    private Runnable onShare;

    /** The timestamp open for sharing (the last commit's), or -1. */
    private long openMicros = -1;

    private long openSinceNanos;
    private int openCommits;

    /** Whether a churn event took the open timestamp: no data commit follows it there. */
    private boolean openClosedForData;

    /** Who took the open timestamp for churn: each change stream at most once. */
    private final Set<Object> openChurnActors = new HashSet<>();

    /** Rows written at the open timestamp: Spanner keeps one version per row and timestamp. */
    private final Set<RowId> openRows = new HashSet<>();

    public Database(String name, Schema schema) {
        this(name, schema, VersionRetention.DEFAULT);
    }

    /**
     * @param retention the version retention period the database starts with; a period the schema's
     *     DDL sets ({@code ALTER DATABASE}) replaces it
     */
    public Database(String name, Schema schema, VersionRetention retention) {
        this.name = name;
        this.schema = schema;
        this.retention = schema.versionRetention().orElse(retention);
        for (TableDef t : schema.tables()) {
            tables.put(t.name().toLowerCase(Locale.ROOT), new TableData(t));
        }
        this.createdMicros = Timestamps.nowMicros();
        this.lastMicros = createdMicros;
    }

    /** Full name, {@code projects/P/instances/I/databases/D}. */
    public String name() {
        return name;
    }

    public Schema schema() {
        return schema;
    }

    public long createdMicros() {
        return createdMicros;
    }

    /** The database's {@code version_retention_period}. */
    public VersionRetention versionRetention() {
        return retention;
    }

    /**
     * Changes the {@code version_retention_period}, as {@code ALTER DATABASE ... SET OPTIONS} does.
     * Versions already dropped stay dropped: after a longer period is set, {@link
     * #earliestVersionMicros()} reaches back only as far as what was kept.
     */
    public synchronized void setVersionRetention(VersionRetention retention) {
        this.retention = java.util.Objects.requireNonNull(retention);
    }

    /**
     * The oldest timestamp a read may use now: the later of the database's creation, now minus the
     * version retention period, and the oldest time old versions are still complete for (Spanner's
     * {@code earliest_version_time}).
     */
    public synchronized long earliestVersionMicros() {
        return Math.max(
                Math.max(createdMicros, Timestamps.nowMicros() - retention.micros()),
                prunedBeforeMicros);
    }

    /** Drops the row versions older than the version retention period needs. */
    public synchronized void pruneVersions() {
        long cutoff = Timestamps.nowMicros() - retention.micros();
        if (cutoff <= prunedBeforeMicros) {
            return;
        }
        prunedBeforeMicros = cutoff;
        for (TableData t : tables.values()) {
            t.prune(cutoff);
        }
    }

    /** Row versions kept in a table (live rows, old versions and deletes not yet pruned). */
    public synchronized int versionCount(String table) {
        return tableData(table).versionCount();
    }

    /**
     * Makes a read at {@code atMicros} repeatable: no later commit takes a timestamp at or before
     * it (an open shared timestamp at or before it is closed). The caller has waited until the
     * clock passed {@code atMicros}.
     */
    public synchronized void publishReadTimestamp(long atMicros) {
        if (openMicros >= 0 && openMicros <= atMicros) {
            openMicros = -1;
        }
        lastMicros = Math.max(lastMicros, atMicros);
    }

    public void addCommitListener(CommitListener listener) {
        listeners.add(listener);
    }

    /**
     * Lets several transactions commit at one timestamp: a commit takes the previous commit's
     * timestamp T (seeded coin) while T is open, that is while no safe timestamp at or after T has
     * been published, fewer than {@value #MAX_COMMITS_PER_SHARED_TIMESTAMP} transactions took T, T
     * is younger than 5 ms, no churn event took T, and the commit writes no row already written at
     * T. Churn events may take an open T after its data commits; no data commit follows them at T.
     * While T is open, {@link #safeMicros()} reports at most T - 1.
     *
     * @param onShare called for each commit or churn event that took a shared timestamp
     */
    public synchronized void shareTimestamps(long seed, Runnable onShare) {
        this.sharing = new java.util.Random(seed ^ 0x5ea7ed71L);
        this.onShare = onShare;
    }

    /**
     * The greatest timestamp at which everything is committed: no later commit gets a timestamp at
     * or below it. While a shared timestamp T is open, T - 1.
     */
    public synchronized long safeMicros() {
        if (sharingOpen()) {
            return openMicros - 1;
        }
        openMicros = -1;
        lastMicros = Math.max(lastMicros, Timestamps.nowMicros());
        return lastMicros;
    }

    /**
     * A timestamp for a strong read: like {@link #safeMicros()}, but it closes an open shared
     * timestamp first, so a read sees every commit made before it (a read publishes its timestamp
     * as a safe one).
     */
    public synchronized long strongReadMicros() {
        openMicros = -1;
        return safeMicros();
    }

    /**
     * Runs an action at a fresh timestamp under the commit lock, as a commit would (partition churn
     * uses it so its events are ordered with the data). With shared timestamps it may take the open
     * timestamp instead, after the data commits there; no data commit follows it at that timestamp.
     */
    public synchronized long atNextTimestamp(LongConsumer action) {
        return atNextTimestamp(new Object(), action);
    }

    /**
     * Like {@link #atNextTimestamp(LongConsumer)}; with shared timestamps, each {@code actor} (a
     * change stream) takes an open timestamp at most once.
     */
    public synchronized long atNextTimestamp(Object actor, LongConsumer action) {
        long ts;
        if (sharingOpen() && !openChurnActors.contains(actor) && sharing.nextBoolean()) {
            ts = openMicros;
            openClosedForData = true; // data commits never follow a churn event at T
            openChurnActors.add(actor);
            onShare.run();
        } else {
            ts = nextTimestamp();
            openMicros = -1;
        }
        action.accept(ts);
        return ts;
    }

    /** Whether a timestamp is open: no safe timestamp at or after it published yet. */
    private boolean sharingOpen() {
        return sharing != null
                && openMicros >= 0
                && openMicros == lastMicros
                && System.nanoTime() - openSinceNanos < SHARED_TIMESTAMP_OPEN_NANOS;
    }

    /** Whether a data commit may take the open timestamp (rows permitting). */
    private boolean dataSharingOpen() {
        return sharingOpen()
                && !openClosedForData
                && openCommits < MAX_COMMITS_PER_SHARED_TIMESTAMP;
    }

    private long nextTimestamp() {
        lastMicros = Math.max(lastMicros + 1, Timestamps.nowMicros());
        return lastMicros;
    }

    /** Every committed transaction so far, in commit order. */
    public synchronized List<CommittedTransaction> groundTruth() {
        return Collections.unmodifiableList(new ArrayList<>(groundTruth));
    }

    /** Number of live rows per table. */
    public synchronized Map<String, Integer> rowCounts() {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (TableData t : tables.values()) {
            out.put(t.table().name(), t.size());
        }
        return out;
    }

    /**
     * Rows of a table at a timestamp (columns in table order), in key order: every commit at or
     * before the timestamp applied, including several transactions that share the timestamp, and
     * deleted rows left out.
     *
     * @throws IllegalArgumentException for a timestamp older than {@link #earliestVersionMicros()}
     *     allows, where old versions may have been dropped
     * @throws io.grpc.StatusRuntimeException NOT_FOUND for an unknown table
     */
    public List<List<Value>> read(String table, long atMicros) {
        return read(table, atMicros, null);
    }

    /**
     * Rows of a table at a timestamp whose keys the key set names (all rows for null), as {@link
     * #read(String, long)}; visits only the rows between the set's first and last key.
     */
    public synchronized List<List<Value>> read(String table, long atMicros, KeySetMatcher keys) {
        if (atMicros < prunedBeforeMicros) {
            throw new IllegalArgumentException(
                    "Cannot read "
                            + table
                            + " at "
                            + Timestamps.toInstant(atMicros)
                            + ": row versions before "
                            + Timestamps.toInstant(prunedBeforeMicros)
                            + " were dropped (version_retention_period "
                            + retention
                            + ")");
        }
        return tableData(table).readAt(atMicros, keys);
    }

    /** Keys of the live rows of a table, in key order. */
    public synchronized List<List<Value>> currentKeys(String table) {
        return tableData(table).currentKeys();
    }

    /**
     * Applies mutations atomically.
     *
     * @throws io.grpc.StatusRuntimeException with Spanner's code for an invalid mutation; nothing
     *     is applied then
     */
    public synchronized CommittedTransaction commit(
            List<Mutation> mutations, String transactionTag, boolean systemTransaction) {
        // The timestamp is chosen first so spanner.commit_timestamp() can be resolved while the
        // mutations are checked (it may be part of a key); a failed commit just skips one.
        long ts = -1;
        Map<RowId, WorkingRow> working = null;
        if (dataSharingOpen() && sharing.nextBoolean()) {
            Map<RowId, WorkingRow> shared = applyAll(mutations, openMicros);
            if (java.util.Collections.disjoint(shared.keySet(), openRows)) {
                ts = openMicros;
                working = shared;
            }
        }
        boolean shared = working != null;
        if (!shared) {
            ts = nextTimestamp();
            working = applyAll(mutations, ts);
        }
        List<RowChange> changes = new ArrayList<>();
        long cutoff = ts - retention.micros();
        if (cutoff > prunedBeforeMicros) {
            prunedBeforeMicros = cutoff;
        }
        for (Map.Entry<RowId, WorkingRow> e : working.entrySet()) {
            WorkingRow w = e.getValue();
            List<Value> after = w.current;
            e.getKey().data.write(e.getKey().key, after, ts, cutoff);
            RowChange change = w.toChange(e.getKey().data.table(), e.getKey().key, after);
            if (change != null) {
                changes.add(change);
            }
        }
        CommittedTransaction txn =
                new CommittedTransaction(
                        Long.toString(nextTransactionId++),
                        ts,
                        transactionTag == null ? "" : transactionTag,
                        systemTransaction,
                        changes);
        if (!changes.isEmpty()) {
            groundTruth.add(txn);
        }
        if (sharing != null) {
            if (shared) {
                openCommits++;
                onShare.run();
            } else {
                openMicros = ts;
                openSinceNanos = System.nanoTime();
                openCommits = 1;
                openRows.clear();
                openClosedForData = false;
                openChurnActors.clear();
            }
            openRows.addAll(working.keySet());
        }
        for (CommitListener l : listeners) {
            l.onCommit(txn);
        }
        return txn;
    }

    /** Applies the mutations to a working copy of the rows they touch, at the timestamp. */
    private Map<RowId, WorkingRow> applyAll(List<Mutation> mutations, long ts) {
        pendingCommitTimestamp =
                SpannerTypes.str(SpannerTypes.formatTimestamp(Timestamps.toInstant(ts)));
        Map<RowId, WorkingRow> working = new LinkedHashMap<>();
        for (Mutation m : mutations) {
            apply(m, working);
        }
        return working;
    }

    private TableData tableData(String table) {
        TableData data = tables.get(table.toLowerCase(Locale.ROOT));
        if (data == null) {
            throw Status.NOT_FOUND
                    .withDescription("Table not found: " + table)
                    .asRuntimeException();
        }
        return data;
    }

    private void apply(Mutation m, Map<RowId, WorkingRow> working) {
        switch (m.getOperationCase()) {
            case INSERT:
                applyWrite(m.getInsert(), WriteKind.INSERT, working);
                break;
            case UPDATE:
                applyWrite(m.getUpdate(), WriteKind.UPDATE, working);
                break;
            case INSERT_OR_UPDATE:
                applyWrite(m.getInsertOrUpdate(), WriteKind.INSERT_OR_UPDATE, working);
                break;
            case REPLACE:
                applyWrite(m.getReplace(), WriteKind.REPLACE, working);
                break;
            case DELETE:
                applyDelete(m.getDelete(), working);
                break;
            default:
                throw Status.INVALID_ARGUMENT
                        .withDescription("Unsupported mutation " + m.getOperationCase())
                        .asRuntimeException();
        }
    }

    private enum WriteKind {
        INSERT,
        UPDATE,
        INSERT_OR_UPDATE,
        REPLACE
    }

    private void applyWrite(Mutation.Write write, WriteKind kind, Map<RowId, WorkingRow> working) {
        TableData data = tableData(write.getTable());
        TableDef table = data.table();
        int[] indexes = new int[write.getColumnsCount()];
        for (int i = 0; i < indexes.length; i++) {
            String col = write.getColumns(i);
            indexes[i] = table.indexOf(col);
            if (indexes[i] < 0) {
                throw Status.NOT_FOUND
                        .withDescription("Column not found in table " + table.name() + ": " + col)
                        .asRuntimeException();
            }
        }
        for (ColumnDef k : table.keyColumns()) {
            if (write.getColumnsList().stream().noneMatch(c -> c.equalsIgnoreCase(k.name()))) {
                throw Status.FAILED_PRECONDITION
                        .withDescription(
                                "Mutation on table "
                                        + table.name()
                                        + " lacks key column "
                                        + k.name())
                        .asRuntimeException();
            }
        }
        for (ListValue values : write.getValuesList()) {
            if (values.getValuesCount() != indexes.length) {
                throw Status.INVALID_ARGUMENT
                        .withDescription(
                                "Mutation on table "
                                        + table.name()
                                        + " has "
                                        + values.getValuesCount()
                                        + " values for "
                                        + indexes.length
                                        + " columns")
                        .asRuntimeException();
            }
            Value[] written = new Value[table.columns().size()];
            for (int i = 0; i < indexes.length; i++) {
                ColumnDef col = table.columns().get(indexes[i]);
                written[indexes[i]] = canonical(table, col, values.getValues(i));
            }
            List<Value> key = new ArrayList<>();
            for (ColumnDef k : table.keyColumns()) {
                key.add(written[table.indexOf(k.name())]);
            }
            RowId id = new RowId(data, key);
            WorkingRow w = working.computeIfAbsent(id, r -> new WorkingRow(data.current(key)));
            boolean exists = w.current != null;
            if (kind == WriteKind.INSERT && exists) {
                throw Status.ALREADY_EXISTS
                        .withDescription(
                                "Row "
                                        + keyText(key)
                                        + " in table "
                                        + table.name()
                                        + " already exists")
                        .asRuntimeException();
            }
            if (kind == WriteKind.UPDATE && !exists) {
                throw Status.NOT_FOUND
                        .withDescription(
                                "Row " + keyText(key) + " not found in table " + table.name())
                        .asRuntimeException();
            }
            boolean wholeRow = !exists || kind == WriteKind.REPLACE || kind == WriteKind.INSERT;
            List<Value> next = new ArrayList<>();
            for (int i = 0; i < written.length; i++) {
                ColumnDef col = table.columns().get(i);
                Value v = written[i];
                if (v == null) {
                    v = wholeRow ? SpannerTypes.NULL : w.current.get(i);
                }
                if (col.notNull() && SpannerTypes.isNull(v)) {
                    throw Status.FAILED_PRECONDITION
                            .withDescription(
                                    table.name()
                                            + "."
                                            + col.name()
                                            + " must not be NULL in table "
                                            + table.name())
                            .asRuntimeException();
                }
                next.add(v);
                if (written[i] != null && !col.primaryKey()) {
                    w.written.add(col.name().toLowerCase(Locale.ROOT));
                }
            }
            if (exists && kind == WriteKind.REPLACE) {
                w.rewritten = true;
            }
            w.current = next;
        }
    }

    private Value canonical(TableDef table, ColumnDef col, Value v) {
        if (col.type().getCode() == com.google.spanner.v1.TypeCode.TIMESTAMP
                && v.hasStringValue()
                && v.getStringValue().equals(SpannerTypes.COMMIT_TIMESTAMP)) {
            return pendingCommitTimestamp;
        }
        try {
            return SpannerTypes.canonicalize(col.type(), v);
        } catch (IllegalArgumentException e) {
            throw Status.FAILED_PRECONDITION
                    .withDescription(
                            e.getMessage() + " (column " + table.name() + "." + col.name() + ")")
                    .asRuntimeException();
        }
    }

    private void applyDelete(Mutation.Delete delete, Map<RowId, WorkingRow> working) {
        TableData data = tableData(delete.getTable());
        TableDef table = data.table();
        KeySet keySet = delete.getKeySet();
        Set<List<Value>> targets = new java.util.LinkedHashSet<>();
        for (ListValue k : keySet.getKeysList()) {
            targets.add(canonicalKey(table, k, false));
        }
        if (keySet.getAll() || keySet.getRangesCount() > 0) {
            // Ranges see the rows as this transaction left them so far.
            Set<List<Value>> candidates = new java.util.TreeSet<>(TableData.keyComparator(table));
            candidates.addAll(data.currentKeys());
            for (RowId id : working.keySet()) {
                if (id.data == data) {
                    candidates.add(id.key);
                }
            }
            for (List<Value> key : candidates) {
                if (keySet.getAll() || inAnyRange(table, key, keySet.getRangesList())) {
                    targets.add(key);
                }
            }
        }
        for (List<Value> key : targets) {
            RowId id = new RowId(data, key);
            WorkingRow w = working.get(id);
            if (w == null) {
                List<Value> current = data.current(key);
                if (current == null) {
                    continue; // deleting an absent row records nothing
                }
                w = new WorkingRow(current);
                working.put(id, w);
            }
            if (w.current != null) {
                w.current = null;
                w.rewritten = true;
            }
        }
    }

    private List<Value> canonicalKey(TableDef table, ListValue values, boolean prefixAllowed) {
        List<ColumnDef> keys = table.keyColumns();
        if (values.getValuesCount() > keys.size()
                || (!prefixAllowed && values.getValuesCount() != keys.size())) {
            throw Status.INVALID_ARGUMENT
                    .withDescription(
                            "Wrong number of key parts for table "
                                    + table.name()
                                    + ": expected "
                                    + keys.size()
                                    + ", got "
                                    + values.getValuesCount())
                    .asRuntimeException();
        }
        List<Value> out = new ArrayList<>();
        for (int i = 0; i < values.getValuesCount(); i++) {
            out.add(canonical(table, keys.get(i), values.getValues(i)));
        }
        return out;
    }

    private boolean inAnyRange(TableDef table, List<Value> key, List<KeyRange> ranges) {
        for (KeyRange r : ranges) {
            boolean lowOk;
            switch (r.getStartKeyTypeCase()) {
                case START_CLOSED:
                    lowOk =
                            comparePrefix(table, key, canonicalKey(table, r.getStartClosed(), true))
                                    >= 0;
                    break;
                case START_OPEN:
                    lowOk =
                            comparePrefix(table, key, canonicalKey(table, r.getStartOpen(), true))
                                    > 0;
                    break;
                default:
                    lowOk = true;
            }
            boolean highOk;
            switch (r.getEndKeyTypeCase()) {
                case END_CLOSED:
                    highOk =
                            comparePrefix(table, key, canonicalKey(table, r.getEndClosed(), true))
                                    <= 0;
                    break;
                case END_OPEN:
                    highOk =
                            comparePrefix(table, key, canonicalKey(table, r.getEndOpen(), true))
                                    < 0;
                    break;
                default:
                    highOk = true;
            }
            if (lowOk && highOk) {
                return true;
            }
        }
        return false;
    }

    /** Compares a full key with a key prefix; 0 means the key starts with the prefix. */
    private static int comparePrefix(TableDef table, List<Value> key, List<Value> prefix) {
        for (int i = 0; i < prefix.size(); i++) {
            int c = table.compareKeyPart(i, key.get(i), prefix.get(i));
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    private static String keyText(List<Value> key) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < key.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            Value v = key.get(i);
            sb.append(v.hasStringValue() ? v.getStringValue() : v.toString().trim());
        }
        return sb.append(']').toString();
    }

    /** A row touched by the transaction being applied. */
    private static final class WorkingRow {
        final List<Value> before;
        List<Value> current;
        final Set<String> written = new HashSet<>();

        /** Deleted or replaced during the transaction: a surviving row is a whole new INSERT. */
        boolean rewritten;

        WorkingRow(List<Value> before) {
            this.before = before;
            this.current = before;
        }

        RowChange toChange(TableDef table, List<Value> key, List<Value> after) {
            if (before == null && after == null) {
                return null;
            }
            if (before == null || (rewritten && after != null)) {
                return new RowChange(table, key, ModType.INSERT, before, after, allColumns(table));
            }
            if (after == null) {
                return new RowChange(table, key, ModType.DELETE, before, null, Set.of());
            }
            return new RowChange(table, key, ModType.UPDATE, before, after, written);
        }

        private static Set<String> allColumns(TableDef table) {
            Set<String> all = new HashSet<>();
            for (ColumnDef c : table.columns()) {
                if (!c.primaryKey()) {
                    all.add(c.name().toLowerCase(Locale.ROOT));
                }
            }
            return all;
        }
    }

    /** Identity of a row: table and canonical key. */
    private record RowId(TableData data, List<Value> key) {}
}
