package io.spannercs.emulator.workload;

import com.google.protobuf.ListValue;
import com.google.protobuf.Value;
import com.google.spanner.v1.KeySet;
import com.google.spanner.v1.Mutation;
import com.google.spanner.v1.TypeCode;
import io.spannercs.emulator.EmulatedDatabase;
import io.spannercs.emulator.schema.ColumnDef;
import io.spannercs.emulator.schema.SpannerTypes;
import io.spannercs.emulator.schema.TableDef;
import io.spannercs.emulator.storage.CommittedTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes transactions of inserts, updates and deletes into an {@link EmulatedDatabase}, as a client
 * would with mutations: at a steady rate in the background ({@link #start()}) or a given number as
 * fast as possible ({@link #runTransactions(int)}, {@link #preload(int)}).
 *
 * <p>Each table has a key space of {@link WorkloadConfig#keySpace(String)} distinct keys. The
 * generator keeps the set of live keys (read from the database when it is created and after a
 * failed commit), so inserts take free keys and updates and deletes hit existing rows; a
 * transaction touches each row at most once. Inserts write the keys, every NOT NULL column and a
 * random subset of the others; updates write a random non-empty subset of the non-key columns.
 * Values are valid and canonical for every column type the emulator supports. With the same seed,
 * configuration and starting rows the generator produces the same mutations.
 *
 * <p>Failed commits (another writer got there first, injected faults) are logged and counted, never
 * thrown out of the background task.
 */
public final class WorkloadGenerator {
    private static final Logger LOG = LoggerFactory.getLogger(WorkloadGenerator.class);
    private static final long TICK_MILLIS = 10;
    private static final int PROBES = 16;
    private static final long MAX_SCAN = 100_000;

    /**
     * Told about every transaction the generator commits or fails to commit, on the thread that ran
     * it; exceptions it throws are logged and ignored.
     */
    public interface Listener {
        void committed(List<Mutation> mutations, CommittedTransaction transaction);

        default void failed(List<Mutation> mutations, RuntimeException error) {}
    }

    /** Counters since the generator was created. */
    public record Stats(
            long committedTransactions,
            long failedTransactions,
            long rowChanges,
            long inserts,
            long updates,
            long deletes) {}

    /** What one synchronous run did. */
    public record RunResult(
            long committedTransactions,
            long failedTransactions,
            long rowChanges,
            Duration elapsed) {
        /** Committed row changes per second of the run. */
        public double changesPerSecond() {
            double s = elapsed.toNanos() / 1e9;
            return s <= 0 ? 0 : rowChanges / s;
        }
    }

    private enum Kind {
        INSERT,
        UPDATE,
        DELETE
    }

    private record Op(TableState table, Kind kind, List<Value> key) {}

    private final EmulatedDatabase db;
    private final WorkloadConfig config;
    private final Random random;
    private final List<TableState> tables = new ArrayList<>();
    private final Map<String, TableState> byName = new HashMap<>();
    private final RowValues rowValues;
    private final int totalTableWeight;

    private final AtomicLong committed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong rowChanges = new AtomicLong();
    private final AtomicLong inserts = new AtomicLong();
    private final AtomicLong updates = new AtomicLong();
    private final AtomicLong deletes = new AtomicLong();

    private volatile Listener listener;
    private volatile boolean running;
    private ScheduledExecutorService ownExecutor;
    private ScheduledFuture<?> task;
    private long startNanos;
    private long issued;

    /**
     * @throws IllegalArgumentException for an unknown table, or a NOT NULL column of a type the
     *     generator cannot make values of
     */
    public WorkloadGenerator(EmulatedDatabase db, WorkloadConfig config) {
        this.db = Objects.requireNonNull(db);
        this.config = Objects.requireNonNull(config);
        this.random = new Random(config.seed());
        List<TableDef> defs = new ArrayList<>();
        if (config.tables().isEmpty()) {
            defs.addAll(db.schema().tables());
        } else {
            for (String name : config.tables()) {
                defs.add(
                        db.schema()
                                .table(name)
                                .orElseThrow(
                                        () ->
                                                new IllegalArgumentException(
                                                        "Workload table not in the schema: "
                                                                + name)));
            }
        }
        int weights = 0;
        for (TableDef def : defs) {
            TableState t = new TableState(def, config);
            weights += t.weight;
            tables.add(t);
            byName.put(def.name().toLowerCase(Locale.ROOT), t);
        }
        if (tables.isEmpty() || weights == 0) {
            throw new IllegalArgumentException("The workload has no table to write");
        }
        this.totalTableWeight = weights;
        this.rowValues =
                config.preset() == WorkloadConfig.Preset.DEMO
                        ? new DemoRowValues(
                                config.nullProbability(), config.clock(), this::randomLiveKey)
                        : new RowValues.RandomRowValues(config.nullProbability());
        for (TableState t : tables) {
            t.resync(db);
        }
    }

    public WorkloadConfig config() {
        return config;
    }

    /** Called for every transaction from now on; null for none. */
    public void setListener(Listener listener) {
        this.listener = listener;
    }

    public Stats stats() {
        return new Stats(
                committed.get(),
                failed.get(),
                rowChanges.get(),
                inserts.get(),
                updates.get(),
                deletes.get());
    }

    public long committedTransactions() {
        return committed.get();
    }

    public long failedTransactions() {
        return failed.get();
    }

    /** Row changes of committed transactions (inserts, updates and deletes). */
    public long rowChanges() {
        return rowChanges.get();
    }

    // ---- running ---------------------------------------------------------------------------

    /** Runs {@code n} transactions now, as fast as possible, on the calling thread. */
    public RunResult runTransactions(int n) {
        long c0 = committed.get();
        long f0 = failed.get();
        long r0 = rowChanges.get();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            runOne();
        }
        return new RunResult(
                committed.get() - c0,
                failed.get() - f0,
                rowChanges.get() - r0,
                Duration.ofNanos(System.nanoTime() - t0));
    }

    /**
     * Inserts rows as fast as possible until every table of the workload (with a weight above 0)
     * holds {@code rowsPerTable} rows or its key space is full, in transactions of the configured
     * size. For benchmarks that need data before they start.
     */
    public RunResult preload(int rowsPerTable) {
        long c0 = committed.get();
        long f0 = failed.get();
        long r0 = rowChanges.get();
        long t0 = System.nanoTime();
        int failuresInARow = 0;
        while (failuresInARow < 100) {
            List<TableState> wanting = new ArrayList<>();
            synchronized (this) {
                for (TableState t : tables) {
                    if (t.weight > 0 && t.live.size() < Math.min(rowsPerTable, t.keySpace)) {
                        wanting.add(t);
                    }
                }
            }
            if (wanting.isEmpty()) {
                break;
            }
            boolean ok = runOne(wanting, Kind.INSERT);
            failuresInARow = ok ? 0 : failuresInARow + 1;
        }
        return new RunResult(
                committed.get() - c0,
                failed.get() - f0,
                rowChanges.get() - r0,
                Duration.ofNanos(System.nanoTime() - t0));
    }

    /** Starts writing at the configured rate on a thread of its own. */
    public synchronized void start() {
        if (running) {
            throw new IllegalStateException("The workload is already running");
        }
        ScheduledExecutorService executor =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, "spanner-cs-workload");
                            t.setDaemon(true);
                            return t;
                        });
        start(executor);
        ownExecutor = executor;
    }

    /** Starts writing at the configured rate on the given scheduler (e.g. the emulator's). */
    public synchronized void start(ScheduledExecutorService scheduler) {
        if (running) {
            throw new IllegalStateException("The workload is already running");
        }
        running = true;
        startNanos = System.nanoTime();
        issued = 0;
        task = scheduler.scheduleWithFixedDelay(this::tick, 0, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Stops the background writing; returns once no transaction of it is running. */
    public void stop() {
        ScheduledExecutorService executor;
        synchronized (this) {
            running = false;
            if (task != null) {
                task.cancel(false);
                task = null;
            }
            executor = ownExecutor;
            ownExecutor = null;
        }
        if (executor != null) {
            executor.shutdown();
            try {
                executor.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public boolean isRunning() {
        return running;
    }

    /** Runs the transactions due by now; at most one second of backlog is caught up. */
    private void tick() {
        try {
            double rate = config.transactionsPerSecond();
            long due = (long) ((System.nanoTime() - startNanos) / 1e9 * rate);
            long maxBacklog = Math.max(1, (long) rate);
            if (due - issued > maxBacklog) {
                issued = due - maxBacklog;
            }
            while (issued < due && runIfRunning()) {
                issued++;
            }
        } catch (Throwable t) {
            // Never let an exception cancel the schedule.
            failed.incrementAndGet();
            LOG.error("Workload tick failed", t);
        }
    }

    // ---- one transaction --------------------------------------------------------------------

    private boolean runOne() {
        return runOne(tables, null);
    }

    /** One transaction unless stopped; false when stopped. */
    private synchronized boolean runIfRunning() {
        if (!running) {
            return false;
        }
        runOne();
        return true;
    }

    /** Plans and commits one transaction; false when it failed or had nothing to do. */
    private synchronized boolean runOne(List<TableState> candidates, Kind onlyKind) {
        List<Op> ops = new ArrayList<>();
        List<Mutation> mutations = new ArrayList<>();
        plan(candidates, onlyKind, ops, mutations);
        if (mutations.isEmpty()) {
            return false;
        }
        CommittedTransaction txn;
        try {
            txn = db.commit(mutations, config.transactionTag());
        } catch (RuntimeException e) {
            long n = failed.incrementAndGet();
            if (n <= 10 || n % 1000 == 0) {
                LOG.warn("Workload commit failed ({} failures so far): {}", n, e.toString());
            }
            Set<TableState> touched = new HashSet<>();
            ops.forEach(op -> touched.add(op.table));
            for (TableState t : touched) {
                t.resync(db);
            }
            notifyListener(l -> l.failed(mutations, e));
            return false;
        }
        for (Op op : ops) {
            switch (op.kind) {
                case INSERT:
                    op.table.live.add(op.key);
                    inserts.incrementAndGet();
                    break;
                case UPDATE:
                    updates.incrementAndGet();
                    break;
                case DELETE:
                    op.table.live.remove(op.key);
                    rowValues.deleted(op.table.def, op.key);
                    deletes.incrementAndGet();
                    break;
                default:
                    throw new IllegalStateException();
            }
        }
        committed.incrementAndGet();
        rowChanges.addAndGet(txn.changes().size());
        notifyListener(l -> l.committed(mutations, txn));
        return true;
    }

    private void notifyListener(java.util.function.Consumer<Listener> call) {
        Listener l = listener;
        if (l == null) {
            return;
        }
        try {
            call.accept(l);
        } catch (RuntimeException e) {
            LOG.warn("Workload listener failed", e);
        }
    }

    private void plan(
            List<TableState> candidates, Kind onlyKind, List<Op> ops, List<Mutation> mutations) {
        int rows =
                config.minRowsPerTransaction()
                        + random.nextInt(
                                config.maxRowsPerTransaction()
                                        - config.minRowsPerTransaction()
                                        + 1);
        Map<TableState, Set<List<Value>>> touched = new HashMap<>();
        for (int i = 0; i < rows; i++) {
            TableState t = pickTable(candidates);
            Set<List<Value>> used = touched.computeIfAbsent(t, k -> new HashSet<>());
            Kind first = onlyKind != null ? onlyKind : pickKind(t);
            Op op = null;
            for (Kind kind : fallbacks(first)) {
                if (onlyKind != null && kind != onlyKind) {
                    continue;
                }
                List<Value> key =
                        kind == Kind.INSERT ? t.freeKey(random, used) : t.liveKey(random, used);
                if (key != null && (kind != Kind.UPDATE || t.hasDataColumns)) {
                    op = new Op(t, kind, key);
                    break;
                }
            }
            if (op == null) {
                continue;
            }
            used.add(op.key);
            ops.add(op);
            mutations.add(mutation(op));
        }
    }

    private TableState pickTable(List<TableState> candidates) {
        if (candidates.size() == 1) {
            return candidates.get(0);
        }
        int total = candidates == tables ? totalTableWeight : 0;
        if (total == 0) {
            for (TableState t : candidates) {
                total += t.weight;
            }
        }
        if (total == 0) {
            return candidates.get(random.nextInt(candidates.size()));
        }
        int x = random.nextInt(total);
        for (TableState t : candidates) {
            x -= t.weight;
            if (x < 0) {
                return t;
            }
        }
        return candidates.get(candidates.size() - 1);
    }

    private Kind pickKind(TableState t) {
        int insert = config.insertWeight();
        int update = t.hasDataColumns ? config.updateWeight() : 0;
        int delete = config.deleteWeight();
        if (insert + update + delete == 0) {
            return Kind.INSERT; // a key-only table under an update-only mix
        }
        int x = random.nextInt(insert + update + delete);
        if (x < insert) {
            return Kind.INSERT;
        }
        return x < insert + update ? Kind.UPDATE : Kind.DELETE;
    }

    /** The kind wanted first, then the others, for when no key suits the wanted one. */
    private static List<Kind> fallbacks(Kind first) {
        switch (first) {
            case INSERT:
                return List.of(Kind.INSERT, Kind.UPDATE, Kind.DELETE);
            case UPDATE:
                return List.of(Kind.UPDATE, Kind.INSERT, Kind.DELETE);
            default:
                return List.of(Kind.DELETE, Kind.INSERT, Kind.UPDATE);
        }
    }

    private Mutation mutation(Op op) {
        TableDef def = op.table.def;
        if (op.kind == Kind.DELETE) {
            return Mutation.newBuilder()
                    .setDelete(
                            Mutation.Delete.newBuilder()
                                    .setTable(def.name())
                                    .setKeySet(
                                            KeySet.newBuilder()
                                                    .addKeys(
                                                            ListValue.newBuilder()
                                                                    .addAllValues(op.key))))
                    .build();
        }
        Map<ColumnDef, Value> data =
                op.kind == Kind.INSERT
                        ? rowValues.insert(def, op.key, random)
                        : rowValues.update(def, op.key, random);
        Mutation.Write.Builder w = Mutation.Write.newBuilder().setTable(def.name());
        ListValue.Builder values = ListValue.newBuilder();
        List<ColumnDef> keyColumns = def.keyColumns();
        for (int i = 0; i < keyColumns.size(); i++) {
            w.addColumns(keyColumns.get(i).name());
            values.addValues(op.key.get(i));
        }
        for (ColumnDef c : def.columns()) {
            Value v = data.get(c);
            if (v != null && !c.primaryKey()) {
                w.addColumns(c.name());
                values.addValues(v);
            }
        }
        w.addValues(values);
        Mutation.Builder m = Mutation.newBuilder();
        if (op.kind == Kind.INSERT) {
            m.setInsert(w);
        } else {
            m.setUpdate(w);
        }
        return m.build();
    }

    /** A random live key of the table, or null (the demo preset links orders to customers). */
    private List<Value> randomLiveKey(String table) {
        TableState t = byName.get(table.toLowerCase(Locale.ROOT));
        if (t == null || t.live.size() == 0) {
            return null;
        }
        return t.live.get(random.nextInt(t.live.size()));
    }

    // ---- per-table state --------------------------------------------------------------------

    /** A table, its key space and its live keys. */
    private static final class TableState {
        final TableDef def;
        final int weight;
        final long keySpace;
        final int hotKeys;
        final double hotFraction;
        final boolean sequential;
        final boolean hasDataColumns;
        final LiveKeys live = new LiveKeys();

        /** Key column carrying the key index on its own, or -1 when all are BOOL. */
        private final int carrier;

        private long cursor;

        TableState(TableDef def, WorkloadConfig config) {
            this.def = def;
            this.weight = config.tableWeight(def.name());
            List<ColumnDef> keys = def.keyColumns();
            int carrier = -1;
            for (int i = 0; i < keys.size(); i++) {
                if (Values.keyCapacity(keys.get(i).type()) > 2) {
                    carrier = i;
                }
            }
            this.carrier = carrier;
            long capacity =
                    carrier >= 0
                            ? Values.keyCapacity(keys.get(carrier).type())
                            : 1L << Math.min(keys.size(), 62);
            this.keySpace = Math.min(config.keySpace(def.name()), capacity);
            this.hotKeys = (int) Math.min(config.hotKeyCount(), keySpace);
            this.hotFraction = config.hotKeyFraction();
            this.sequential = config.sequentialKeys();
            boolean data = false;
            for (ColumnDef c : def.columns()) {
                if (!c.primaryKey()) {
                    data |= Values.supported(c.type());
                    if (c.notNull() && !Values.supported(c.type())) {
                        throw new IllegalArgumentException(
                                "The workload cannot write column "
                                        + def.name()
                                        + "."
                                        + c.name()
                                        + " of type "
                                        + SpannerTypes.toDdl(c.type()));
                    }
                }
            }
            for (ColumnDef k : keys) {
                if (!Values.supported(k.type())) {
                    throw new IllegalArgumentException(
                            "The workload cannot make keys for "
                                    + def.name()
                                    + "."
                                    + k.name()
                                    + " of type "
                                    + SpannerTypes.toDdl(k.type()));
                }
            }
            this.hasDataColumns = data;
        }

        void resync(EmulatedDatabase db) {
            live.clear();
            for (List<Value> key : db.database().currentKeys(def.name())) {
                live.add(key);
            }
        }

        /** The key with index n of the key space, canonical. */
        List<Value> key(long n) {
            List<ColumnDef> keys = def.keyColumns();
            List<Value> out = new ArrayList<>(keys.size());
            for (int i = 0; i < keys.size(); i++) {
                ColumnDef c = keys.get(i);
                long component;
                if (carrier < 0) {
                    component = (n >> i) & 1;
                } else if (i == carrier) {
                    component = n;
                } else if (c.type().getCode() == TypeCode.BOOL) {
                    component = (n >> 3) & 1;
                } else {
                    // Rows share key prefixes, eight to a parent, as with interleaved tables.
                    component = (n / 8) % Values.keyCapacity(c.type());
                }
                out.add(SpannerTypes.canonicalize(c.type(), Values.key(c.type(), component)));
            }
            return out;
        }

        /** A key of the key space that is not live and not yet used, or null. */
        List<Value> freeKey(Random r, Set<List<Value>> used) {
            if (live.size() + used.size() >= keySpace) {
                return null;
            }
            if (hotKeys > 0 && hotFraction > 0 && r.nextDouble() < hotFraction) {
                for (int i = 0; i < PROBES; i++) {
                    List<Value> k = key(r.nextInt(hotKeys));
                    if (!live.contains(k) && !used.contains(k)) {
                        return k;
                    }
                }
            }
            if (sequential) {
                for (int i = 0; i < 4 * PROBES; i++) {
                    List<Value> k = key(cursor);
                    cursor = (cursor + 1) % keySpace;
                    if (!live.contains(k) && !used.contains(k)) {
                        return k;
                    }
                }
            }
            for (int i = 0; i < PROBES; i++) {
                List<Value> k = key(r.nextLong(keySpace));
                if (!live.contains(k) && !used.contains(k)) {
                    return k;
                }
            }
            // Nearly full: walk the key space from a random point.
            long start = r.nextLong(keySpace);
            for (long i = 0; i < Math.min(keySpace, MAX_SCAN); i++) {
                List<Value> k = key((start + i) % keySpace);
                if (!live.contains(k) && !used.contains(k)) {
                    return k;
                }
            }
            return null;
        }

        /** A live key not yet used, or null. */
        List<Value> liveKey(Random r, Set<List<Value>> used) {
            if (live.size() == 0) {
                return null;
            }
            if (hotKeys > 0 && hotFraction > 0 && r.nextDouble() < hotFraction) {
                for (int i = 0; i < PROBES; i++) {
                    List<Value> k = key(r.nextInt(hotKeys));
                    if (live.contains(k) && !used.contains(k)) {
                        return k;
                    }
                }
            }
            for (int i = 0; i < PROBES; i++) {
                List<Value> k = live.get(r.nextInt(live.size()));
                if (!used.contains(k)) {
                    return k;
                }
            }
            return null;
        }
    }

    /** A set of keys with random access: add, remove and pick in constant time. */
    private static final class LiveKeys {
        private final List<List<Value>> list = new ArrayList<>();
        private final Map<List<Value>, Integer> index = new HashMap<>();

        int size() {
            return list.size();
        }

        List<Value> get(int i) {
            return list.get(i);
        }

        boolean contains(List<Value> key) {
            return index.containsKey(key);
        }

        void add(List<Value> key) {
            if (!index.containsKey(key)) {
                index.put(key, list.size());
                list.add(key);
            }
        }

        void remove(List<Value> key) {
            Integer i = index.remove(key);
            if (i == null) {
                return;
            }
            List<Value> last = list.remove(list.size() - 1);
            if (i < list.size()) {
                list.set(i, last);
                index.put(last, i);
            }
        }

        void clear() {
            list.clear();
            index.clear();
        }
    }
}
