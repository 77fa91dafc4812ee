package io.spannercs.flink.source.anywhere;

import com.google.protobuf.ListValue;
import com.google.protobuf.Value;
import com.google.spanner.v1.Mutation;
import io.spannercs.emulator.EmulatedDatabase;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.changestream.ChurnOp;
import io.spannercs.emulator.schema.ColumnDef;
import io.spannercs.emulator.schema.TableDef;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.SpannerValues;
import io.spannercs.flink.source.EmulatorSources;
import io.spannercs.flink.source.GroundTruth;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import io.spannercs.flink.source.SpannerChangeStreamSourceBuilder;
import io.spannercs.flink.source.StartupMode;
import io.spannercs.flink.source.UnknownValueHandling;
import io.spannercs.flink.source.reader.AnywhereProbe;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * A history in the emulator and a source that reads it: which stream (partition mode), the
 * emulator's plain behaviour or every specification edge, the parallelism, and a snapshot or not.
 * Also what the test knows of the history: every change the source must emit, and the first
 * move-in, whose sources are made to lag.
 */
final class Scenario {
    static final String TABLE = "T";
    static final String MUTABLE_STREAM = "mut";
    static final String LEGACY_STREAM = "imm";

    static final String DDL =
            "CREATE TABLE T (K INT64 NOT NULL, V INT64) PRIMARY KEY (K);\n"
                    + "CREATE CHANGE STREAM mut FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE');\n"
                    + "CREATE CHANGE STREAM imm FOR ALL;\n";

    /** Keys of the table; the history changes only these after its first round of inserts. */
    static final int KEYS = 8;

    /** A move of key ranges into {@code destination} at {@code micros}. */
    record MoveIn(String destination, long micros, List<String> sources) {}

    /** A legacy merge: {@code child} starts at {@code micros} from {@code parents}. */
    record Merge(String child, long micros, List<String> parents) {}

    /** What one history written into an emulator is. */
    record History(SpannerEmulator emulator, Instant start, Instant snapshotAt, Instant end) {}

    private final String name;
    private final History history;
    private final String stream;
    private final boolean snapshot;
    private final int parallelism;
    private final boolean edges;
    private final SpannerChangeStreamSource<ChangeEvent> source;
    private final List<String> expected;
    private final Set<String> snapshotKeys = new LinkedHashSet<>();
    private MoveIn firstMoveIn;
    private Merge firstMerge;

    Scenario(
            String name,
            History history,
            String stream,
            boolean edges,
            boolean snapshot,
            int parallelism) {
        this.name = name;
        this.history = history;
        this.stream = stream;
        this.edges = edges;
        this.snapshot = snapshot;
        this.parallelism = parallelism;
        SpannerChangeStreamSourceBuilder<ChangeEvent> b =
                EmulatorSources.builder(history.emulator(), stream, history.start(), history.end())
                        .setUnknownValueHandling(UnknownValueHandling.RAW)
                        // A client of few channels starts fast; a reader has a few partitions.
                        .setMaxConcurrentPartitionsPerReader(50);
        if (snapshot) {
            b.setStartTimestamp(null)
                    .setStartupMode(StartupMode.snapshotThenStream(history.snapshotAt()))
                    .setSnapshotChunkRows(3);
        }
        this.source = b.build();
        long startMicros =
                snapshot
                        ? EmulatorSources.micros(history.snapshotAt()) + 1
                        : EmulatorSources.micros(history.start());
        List<String> expect =
                new ArrayList<>(
                        GroundTruth.expectedAsSent(
                                history.emulator(),
                                stream,
                                startMicros,
                                EmulatorSources.micros(history.end())));
        if (snapshot) {
            for (String row : snapshotRows(history.emulator().database(), history.snapshotAt())) {
                expect.add(row);
                snapshotKeys.add(row.substring(2));
            }
        }
        this.expected = List.copyOf(expect);
    }

    String name() {
        return name;
    }

    SpannerEmulator emulator() {
        return history.emulator();
    }

    SpannerChangeStreamSource<ChangeEvent> source() {
        return source;
    }

    int parallelism() {
        return parallelism;
    }

    boolean mutable() {
        return stream.equals(MUTABLE_STREAM);
    }

    boolean snapshot() {
        return snapshot;
    }

    boolean edges() {
        return edges;
    }

    String partitionMode() {
        return mutable() ? "MUTABLE_KEY_RANGE" : "IMMUTABLE_KEY_RANGE";
    }

    /** The snapshot timestamp in microseconds, or Long.MIN_VALUE. */
    long snapshotMicros() {
        return snapshot ? EmulatorSources.micros(history.snapshotAt()) : Long.MIN_VALUE;
    }

    /** The source's end timestamp in microseconds. */
    long endMicros() {
        return EmulatorSources.micros(history.end());
    }

    /** The end of a partition of the stream, or Long.MAX_VALUE while it lives. */
    long partitionEndMicros(String token) {
        return history.emulator().database().changeStream(stream).partition(token).endMicros();
    }

    /** Identities of every change (and snapshot row) the source must emit exactly once. */
    List<String> expected() {
        return expected;
    }

    void setFirstMoveIn(MoveIn moveIn) {
        this.firstMoveIn = moveIn;
    }

    MoveIn firstMoveIn() {
        return firstMoveIn;
    }

    void setFirstMerge(Merge merge) {
        this.firstMerge = merge;
    }

    Merge firstMerge() {
        return firstMerge;
    }

    /** The parents of a partition of the stream (legacy children name theirs). */
    List<String> partitionParents(String token) {
        return history.emulator().database().changeStream(stream).partition(token).parentTokens();
    }

    /** Lags in place from a job's start: the first move-in's and the first merge's. */
    List<Hold> holdsFromStart() {
        List<Hold> out = new ArrayList<>();
        if (firstMoveIn != null) {
            out.add(
                    new Hold.MoveInLag(
                            firstMoveIn.destination(),
                            firstMoveIn.micros(),
                            firstMoveIn.sources()));
        }
        if (firstMerge != null) {
            List<String> parents = firstMerge.parents();
            out.add(
                    new Hold.MergeLag(
                            firstMerge.child(),
                            parents.get(0),
                            parents.subList(1, parents.size())));
        }
        return out;
    }

    /** Lags in place from a failover (a restore, or a restart of readers). */
    List<Hold> holdsAfterFailover() {
        List<Hold> out = holdsFromStart();
        if (snapshot) {
            out.add(new Hold.SnapshotLag(TABLE, snapshotKeys));
        }
        return out;
    }

    @Override
    public String toString() {
        return name;
    }

    // ---------------------------------------------------------------- the history

    /**
     * Writes a small seeded history, synchronously, into a new emulator with both change streams
     * (so both partition modes read the same commits): every key inserted, then rounds of updates
     * with explicit churn at fresh timestamps. The first churn of the mutable stream moves the
     * range of a key that has just changed and the key changes again right after it, so the first
     * move-in has a change of a moved key on each side. The snapshot timestamp is the last insert's
     * commit; after it only keys the snapshot has change. The history ends at its last write.
     */
    static History write(SpannerEmulator emulator, long seed) {
        Random random = new Random(seed);
        EmulatedDatabase db = emulator.database();
        ChangeStream mut = db.changeStream(MUTABLE_STREAM);
        ChangeStream imm = db.changeStream(LEGACY_STREAM);
        Instant start = Instant.now();
        long value = 0;
        CommittedTransaction last = null;
        for (int k = 0; k < KEYS; k += 2) {
            last =
                    db.commit(
                            List.of(write("insert", k, value++), write("insert", k + 1, value++)),
                            "");
        }
        Instant snapshotAt = last.commitTimestamp();
        ChurnOp[] mutable = {null, ChurnOp.SPLIT, ChurnOp.MERGE, ChurnOp.SWAP};
        ChurnOp[] legacy = {ChurnOp.SPLIT, ChurnOp.MOVE, ChurnOp.MERGE, ChurnOp.SPLIT};
        for (int round = 0; round < 4; round++) {
            int k = random.nextInt(KEYS);
            db.commit(List.of(write("update", k, value++)), "");
            if (mutable[round] == null) {
                mut.moveKey(TABLE, List.of(int64(k)));
            } else {
                churn(mut, mutable[round]);
            }
            db.commit(List.of(write("update", k, value++)), "");
            for (int i = 0; i < 2; i++) {
                int a = random.nextInt(KEYS);
                int b = (a + 1 + random.nextInt(KEYS - 1)) % KEYS;
                db.commit(List.of(write("update", a, value++), write("update", b, value++)), "");
            }
            churn(imm, legacy[round]);
            db.commit(List.of(write("update", random.nextInt(KEYS), value++)), "");
        }
        last = db.commit(List.of(write("update", random.nextInt(KEYS), value++)), "");
        return new History(emulator, start, snapshotAt, last.commitTimestamp());
    }

    private static void churn(ChangeStream cs, ChurnOp op) {
        try {
            cs.churn(op);
        } catch (IllegalStateException notEnoughPartitions) {
            cs.churn(ChurnOp.SPLIT);
        }
    }

    private static Mutation write(String kind, long key, long value) {
        Mutation.Write w =
                Mutation.Write.newBuilder()
                        .setTable(TABLE)
                        .addColumns("K")
                        .addColumns("V")
                        .addValues(
                                ListValue.newBuilder()
                                        .addValues(int64(key))
                                        .addValues(int64(value)))
                        .build();
        return kind.equals("insert")
                ? Mutation.newBuilder().setInsert(w).build()
                : Mutation.newBuilder().setUpdate(w).build();
    }

    private static Value int64(long v) {
        return Value.newBuilder().setStringValue(Long.toString(v)).build();
    }

    /**
     * Identities of the snapshot rows the source must emit: the table at the snapshot timestamp.
     */
    private static List<String> snapshotRows(EmulatedDatabase db, Instant at) {
        TableDef table = db.schema().table(TABLE).orElseThrow();
        List<String> out = new ArrayList<>();
        for (List<Value> row : db.rowsAt(TABLE, at)) {
            Map<String, Object> keys = new LinkedHashMap<>();
            for (ColumnDef c : table.keyColumns()) {
                keys.put(
                        c.name(), SpannerValues.toJava(c.type(), row.get(table.indexOf(c.name()))));
            }
            out.add("S|" + TABLE + "|" + keys);
        }
        return out;
    }

    /** The identity of a snapshot row the source emitted. */
    static String snapshotIdentity(ChangeEvent e) {
        return "S|" + e.getTable() + "|" + e.getKeys();
    }

    static String shortToken(String token) {
        if (token == null) {
            return "null";
        }
        // Partition tokens by the names the connector's log lines give them; snapshot split ids
        // are short already.
        return token.length() <= 24
                ? token
                : io.spannercs.flink.source.enumerator.PartitionNames.of(token);
    }

    static String shortTokens(List<String> tokens) {
        return tokens.stream().map(Scenario::shortToken).toList().toString();
    }

    static String describe(AnywhereProbe.SplitView v) {
        return shortToken(v.token())
                + (v.partition() ? " at " + v.positionMicros() : " (snapshot)")
                + (v.blocked()
                        ? " blocked at "
                                + v.barrierMicros()
                                + " for "
                                + shortTokens(v.barrierSources())
                        : "")
                + (v.finished() ? " finished" : "");
    }
}
