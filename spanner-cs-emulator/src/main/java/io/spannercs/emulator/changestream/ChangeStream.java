package io.spannercs.emulator.changestream;

import com.google.common.hash.Hasher;
import com.google.common.hash.Hashing;
import com.google.protobuf.Value;
import com.google.spanner.v1.ChangeStreamRecord;
import com.google.spanner.v1.ChangeStreamRecord.DataChangeRecord;
import com.google.spanner.v1.ChangeStreamRecord.PartitionEventRecord;
import io.spannercs.emulator.EdgeCase;
import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.schema.ChangeStreamDef;
import io.spannercs.emulator.schema.ColumnDef;
import io.spannercs.emulator.schema.PartitionMode;
import io.spannercs.emulator.schema.TableDef;
import io.spannercs.emulator.storage.CommitListener;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.emulator.storage.Database;
import io.spannercs.emulator.storage.ModType;
import io.spannercs.emulator.storage.RowChange;
import io.spannercs.emulator.storage.Timestamps;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The live state of one change stream: its partitions, which key ranges each owns, and the records
 * each has to return. Row keys are hashed onto a 63-bit key space that is cut into contiguous
 * ranges; every range belongs to exactly one live partition, so a row's changes stay in one
 * partition until its range moves (mutable mode) or its partition ends (legacy mode).
 */
public final class ChangeStream implements CommitListener {
    private final ChangeStreamDef def;
    private final Database db;
    private final Random random;
    private final int maxPartitions;
    private final long createdMicros;
    private final Map<String, Partition> byToken = new ConcurrentHashMap<>();
    private long churnEvents;

    /** Range start to owning live partition; a range runs to the next key. Guarded by db. */
    private final TreeMap<Long, Partition> owners = new TreeMap<>();

    private long tokenCounter;
    private long recordCount;
    private final EdgeRuntime edges;

    /**
     * MUTABLE_KEY_RANGE data record sequences at {@link #dataSequenceMicros} continue from this
     * number, so transactions sharing a timestamp never reuse a sequence in a partition.
     */
    private long dataSequenceMicros = Long.MIN_VALUE;

    private int dataSequenceNext;

    public ChangeStream(
            ChangeStreamDef def, Database db, int initialPartitions, int maxPartitions, long seed) {
        this(def, db, initialPartitions, maxPartitions, seed, EdgeRuntime.none());
    }

    public ChangeStream(
            ChangeStreamDef def,
            Database db,
            int initialPartitions,
            int maxPartitions,
            long seed,
            EdgeRuntime edges) {
        this.def = def;
        this.edges = edges;
        this.db = db;
        this.random = new Random(seed ^ def.name().hashCode());
        this.maxPartitions = Math.max(maxPartitions, initialPartitions);
        this.createdMicros = db.createdMicros();
        long width = Long.MAX_VALUE / initialPartitions;
        for (int i = 0; i < initialPartitions; i++) {
            Partition p = newPartition(createdMicros, List.of());
            owners.put(i * width, p);
        }
        db.addCommitListener(this);
    }

    public ChangeStreamDef def() {
        return def;
    }

    public long createdMicros() {
        return createdMicros;
    }

    public Database database() {
        return db;
    }

    /** The partition with this token, or null for a token this stream never issued. */
    public Partition partition(String token) {
        return byToken.get(token);
    }

    /** Partitions live at the timestamp (what a root query started there returns). */
    public List<Partition> partitionsLiveAt(long micros) {
        List<Partition> out = new ArrayList<>();
        for (Partition p : byToken.values()) {
            if (p.liveAt(micros)) {
                out.add(p);
            }
        }
        out.sort((a, b) -> a.token().compareTo(b.token()));
        return out;
    }

    /** Partitions that ended exactly at the timestamp. */
    public List<Partition> partitionsEndingAt(long micros) {
        List<Partition> out = new ArrayList<>();
        for (Partition p : byToken.values()) {
            if (p.endMicros() == micros) {
                out.add(p);
            }
        }
        out.sort((a, b) -> a.token().compareTo(b.token()));
        return out;
    }

    /** How many churn operations ({@link #churn}) the stream went through so far. */
    public long churnEvents() {
        synchronized (db) {
            return churnEvents;
        }
    }

    /**
     * How many partitions ended after {@code afterMicros} and at or before {@code toMicros}: the
     * churn a reader of that range goes through.
     */
    public int partitionsEndedBetween(long afterMicros, long toMicros) {
        int n = 0;
        for (Partition p : byToken.values()) {
            if (p.endMicros() > afterMicros && p.endMicros() <= toMicros) {
                n++;
            }
        }
        return n;
    }

    /** Tokens of the partitions live now. */
    public List<String> liveTokens() {
        synchronized (db) {
            List<String> out = new ArrayList<>();
            for (Partition p : new java.util.LinkedHashSet<>(owners.values())) {
                out.add(p.token());
            }
            return out;
        }
    }

    /** Number of change records written so far (data and partition records). */
    public long recordCount() {
        synchronized (db) {
            return recordCount;
        }
    }

    /** Token of the partition that owns the row's key now. */
    public String ownerOf(String table, List<Value> key) {
        synchronized (db) {
            return owners.floorEntry(position(table, key)).getValue().token();
        }
    }

    /** Drops records older than the retention period. */
    public void prune() {
        long cutoff = db.safeMicros() - def.retentionPeriod().toNanos() / 1000;
        byToken.values().removeIf(p -> p.endMicros() < cutoff);
        for (Partition p : byToken.values()) {
            p.prune(cutoff);
        }
    }

    // ---- data ---------------------------------------------------------------------------

    @Override
    public void onCommit(CommittedTransaction txn) {
        if (txn.changes().isEmpty()) {
            return;
        }
        // Group mods by (partition, table, mod type) in first-seen order: one record per group.
        // Like Google's emulator: records ordered by table name, mods within one in key order.
        List<RowChange> changes = new ArrayList<>(txn.changes());
        changes.sort(ChangeStream::compareTableThenKey);
        Map<List<Object>, Group> groups = new LinkedHashMap<>();
        for (RowChange change : changes) {
            if (!def.watchesTable(change.table().name())
                    || !def.recordsModType(change.modType().name())) {
                continue;
            }
            if (txn.systemTransaction()
                    && def.excludeTtlDeletes()
                    && change.modType() == ModType.DELETE) {
                continue;
            }
            ModBuilder mod = ModBuilder.build(def, change);
            if (mod == null) {
                continue;
            }
            Partition owner =
                    owners.floorEntry(position(change.table().name(), change.key())).getValue();
            groups.computeIfAbsent(
                            List.of(owner, change.table().name(), change.modType()),
                            k -> new Group(owner, change.table(), change.modType()))
                    .mods
                    .add(mod);
        }
        if (groups.isEmpty()) {
            return;
        }
        Map<Partition, Integer> lastIndexInPartition = new LinkedHashMap<>();
        List<Group> list = new ArrayList<>(groups.values());
        for (int i = 0; i < list.size(); i++) {
            lastIndexInPartition.put(list.get(i).partition, i);
        }
        // Legacy sequences number the records of one transaction. Mutable ones must also be unique
        // in a partition at a timestamp, which several transactions may share: they continue the
        // numbers of the transactions before at that timestamp.
        long base = 0;
        if (def.partitionMode() == PartitionMode.MUTABLE_KEY_RANGE) {
            if (txn.commitMicros() == dataSequenceMicros) {
                base = dataSequenceNext;
            }
            dataSequenceMicros = txn.commitMicros();
            dataSequenceNext = (int) base + list.size();
        }
        boolean unknownEnums =
                edges.on(EdgeCase.UNKNOWN_TYPES)
                        && EdgeCases.sendsUnknownEnums(edges.seed(), txn.serverTransactionId());
        for (int i = 0; i < list.size(); i++) {
            Group g = list.get(i);
            DataChangeRecord record =
                    g.toRecord(
                            def,
                            txn,
                            formatSequence(base + i),
                            lastIndexInPartition.get(g.partition) == i,
                            list.size(),
                            lastIndexInPartition.size());
            if (unknownEnums) {
                record =
                        record.toBuilder()
                                .setModTypeValue(EdgeCases.UNKNOWN_MOD_TYPE_NUMBER)
                                .setValueCaptureTypeValue(
                                        EdgeCases.UNKNOWN_VALUE_CAPTURE_TYPE_NUMBER)
                                .build();
                edges.fired(EdgeCase.UNKNOWN_TYPES);
            }
            append(
                    g.partition,
                    new LogEntry(
                            txn.commitMicros(),
                            ChangeStreamRecord.newBuilder().setDataChangeRecord(record).build(),
                            false));
        }
    }

    private static int compareTableThenKey(RowChange a, RowChange b) {
        int c = a.table().name().compareTo(b.table().name());
        if (c != 0) {
            return c;
        }
        List<ColumnDef> keys = a.table().keyColumns();
        for (int i = 0; i < keys.size(); i++) {
            c =
                    io.spannercs.emulator.schema.SpannerTypes.compare(
                            keys.get(i).type(), a.key().get(i), b.key().get(i));
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    /** Mods of one record: same partition, table and mod type. */
    private static final class Group {
        final Partition partition;
        final TableDef table;
        final ModType modType;
        final List<ModBuilder> mods = new ArrayList<>();

        Group(Partition partition, TableDef table, ModType modType) {
            this.partition = partition;
            this.table = table;
            this.modType = modType;
        }

        DataChangeRecord toRecord(
                ChangeStreamDef def,
                CommittedTransaction txn,
                String sequence,
                boolean last,
                int records,
                int partitions) {
            // Column metadata lists the columns any mod of the record uses, in table order.
            List<ColumnDef> used = new ArrayList<>();
            for (ColumnDef c : table.columns()) {
                if (mods.stream().anyMatch(m -> m.uses(c))) {
                    used.add(c);
                }
            }
            DataChangeRecord.Builder b =
                    DataChangeRecord.newBuilder()
                            .setCommitTimestamp(Timestamps.toProto(txn.commitMicros()))
                            .setRecordSequence(sequence)
                            .setServerTransactionId(txn.serverTransactionId())
                            .setIsLastRecordInTransactionInPartition(last)
                            .setTable(table.name())
                            .setModType(DataChangeRecord.ModType.valueOf(modType.name()))
                            .setValueCaptureType(
                                    DataChangeRecord.ValueCaptureType.valueOf(
                                            def.valueCaptureType().name()))
                            .setNumberOfRecordsInTransaction(records)
                            .setNumberOfPartitionsInTransaction(partitions)
                            .setTransactionTag(txn.transactionTag())
                            .setIsSystemTransaction(txn.systemTransaction());
            for (ColumnDef c : used) {
                b.addColumnMetadata(
                        DataChangeRecord.ColumnMetadata.newBuilder()
                                .setName(c.name())
                                .setType(c.type())
                                .setIsPrimaryKey(c.primaryKey())
                                .setOrdinalPosition(c.ordinalPosition()));
            }
            for (ModBuilder m : mods) {
                b.addMods(m.toProto(used));
            }
            return b.build();
        }
    }

    private void append(Partition p, LogEntry entry) {
        recordCount++;
        p.append(entry);
    }

    /** Record sequences: 8 decimal digits, as Google's emulator writes them. */
    static String formatSequence(long n) {
        return String.format("%08d", n);
    }

    /** Where a row's key lies in the hashed key space, in [0, Long.MAX_VALUE). */
    static long position(String table, List<Value> key) {
        Hasher h = Hashing.murmur3_128().newHasher();
        h.putString(table.toLowerCase(java.util.Locale.ROOT), StandardCharsets.UTF_8);
        for (Value v : key) {
            h.putInt(0x1f);
            h.putBytes(v.toByteArray());
        }
        return (h.hash().asLong() & Long.MAX_VALUE) % Long.MAX_VALUE;
    }

    // ---- churn --------------------------------------------------------------------------

    /**
     * Performs a random churn operation suited to the mode and the partition count; returns it, or
     * null when none is possible.
     */
    public ChurnOp churnRandomly() {
        synchronized (db) {
            int live = liveCount();
            List<ChurnOp> ops = new ArrayList<>();
            if (live < maxPartitions) {
                ops.add(ChurnOp.SPLIT);
            }
            if (live > 1) {
                ops.add(ChurnOp.MERGE);
                if (def.partitionMode() == PartitionMode.MUTABLE_KEY_RANGE) {
                    ops.add(ChurnOp.SWAP);
                }
            }
            if (live > 1 || def.partitionMode() == PartitionMode.IMMUTABLE_KEY_RANGE) {
                ops.add(ChurnOp.MOVE);
            }
            if (ops.isEmpty()) {
                return null; // one partition and no room to split: nothing can change
            }
            ChurnOp op = ops.get(random.nextInt(ops.size()));
            churn(op);
            return op;
        }
    }

    /**
     * Applies one churn operation to randomly chosen partitions, at a fresh commit timestamp.
     *
     * @throws IllegalStateException when the operation needs more live partitions
     */
    public void churn(ChurnOp op) {
        synchronized (db) {
            churnEvents++;
            List<Partition> live = new ArrayList<>(new java.util.LinkedHashSet<>(owners.values()));
            Collections.shuffle(live, random);
            boolean mutable = def.partitionMode() == PartitionMode.MUTABLE_KEY_RANGE;
            switch (op) {
                case SPLIT:
                    db.atNextTimestamp(this, ts -> split(live.get(0), ts));
                    break;
                case MERGE:
                    requireLive(live, 2, op);
                    db.atNextTimestamp(this, ts -> merge(live.get(0), live.get(1), ts));
                    break;
                case MOVE:
                    if (mutable) {
                        requireLive(live, 2, op);
                        db.atNextTimestamp(this, ts -> moveRange(live.get(0), live.get(1), ts));
                    } else {
                        db.atNextTimestamp(this, ts -> legacyMove(live.get(0), ts));
                    }
                    break;
                case SWAP:
                    if (!mutable) {
                        throw new IllegalStateException("SWAP needs a MUTABLE_KEY_RANGE stream");
                    }
                    requireLive(live, 2, op);
                    db.atNextTimestamp(this, ts -> swap(live.get(0), live.get(1), ts));
                    break;
                default:
                    throw new IllegalArgumentException(op.toString());
            }
        }
    }

    /**
     * Moves the key range holding the row to another live partition (mutable mode) or ends its
     * partition in favour of a child (legacy). Returns the new owner's token.
     */
    public String moveKey(String table, List<Value> key) {
        synchronized (db) {
            long pos = position(table, key);
            Partition from = owners.floorEntry(pos).getValue();
            if (def.partitionMode() == PartitionMode.IMMUTABLE_KEY_RANGE) {
                db.atNextTimestamp(this, ts -> legacyMove(from, ts));
            } else {
                List<Partition> others =
                        new ArrayList<>(new java.util.LinkedHashSet<>(owners.values()));
                others.remove(from);
                if (others.isEmpty()) {
                    db.atNextTimestamp(this, ts -> split(from, ts));
                }
                others = new ArrayList<>(new java.util.LinkedHashSet<>(owners.values()));
                others.remove(from);
                Partition to = others.get(random.nextInt(others.size()));
                long rangeStart = owners.floorKey(pos);
                db.atNextTimestamp(
                        this, ts -> moveRanges(from, to, List.of(rangeStart), ts, true, null));
            }
            return owners.floorEntry(pos).getValue().token();
        }
    }

    private static void requireLive(List<Partition> live, int n, ChurnOp op) {
        if (live.size() < n) {
            throw new IllegalStateException(
                    op + " needs " + n + " live partitions, have " + live.size());
        }
    }

    private int liveCount() {
        return new java.util.HashSet<>(owners.values()).size();
    }

    private List<Long> rangesOf(Partition p) {
        List<Long> out = new ArrayList<>();
        for (Map.Entry<Long, Partition> e : owners.entrySet()) {
            if (e.getValue() == p) {
                out.add(e.getKey());
            }
        }
        return out;
    }

    /** Upper half of the partition's ranges (cutting its only range in two if needed). */
    private List<Long> upperHalf(Partition p) {
        List<Long> ranges = rangesOf(p);
        if (ranges.size() == 1) {
            long lo = ranges.get(0);
            Long next = owners.higherKey(lo);
            long hi = next == null ? Long.MAX_VALUE : next;
            long mid = lo + (hi - lo) / 2;
            if (mid == lo) {
                return List.of();
            }
            owners.put(mid, p);
            return List.of(mid);
        }
        return new ArrayList<>(ranges.subList(ranges.size() / 2, ranges.size()));
    }

    private void split(Partition p, long ts) {
        if (def.partitionMode() == PartitionMode.IMMUTABLE_KEY_RANGE) {
            List<Long> upper = upperHalf(p);
            List<Long> lower = new ArrayList<>(rangesOf(p));
            lower.removeAll(upper);
            Partition c1 = newPartition(ts, List.of(p.token()));
            Partition c2 = newPartition(ts, List.of(p.token()));
            lower.forEach(r -> owners.put(r, c1));
            upper.forEach(r -> owners.put(r, c2));
            endLegacy(p, ts, List.of(c1, c2));
        } else {
            boolean twoWay =
                    edges.on(EdgeCase.SPLIT_PARTITION_RECORDS) && liveCount() + 2 <= maxPartitions;
            Partition n = newPartition(ts, List.of());
            List<Long> upper = upperHalf(p);
            List<List<Long>> parts = twoWay ? halves(p, upper) : null;
            if (parts == null) {
                // The new token is announced in the partition it splits from, before the move.
                append(p, startEntry(ts, nextSequenceAt(p, ts), List.of(n.token())));
                moveRanges(p, n, upper, ts, false, null);
                return;
            }
            // Edge case: two new partitions, announced in two PartitionStartRecords, each range
            // moved in its own PartitionEventRecord.
            Partition n2 = newPartition(ts, List.of());
            append(p, startEntry(ts, nextSequenceAt(p, ts), List.of(n.token())));
            append(p, startEntry(ts, nextSequenceAt(p, ts), List.of(n2.token())));
            moveRanges(p, n, parts.get(0), ts, false, null);
            moveRanges(p, n2, parts.get(1), ts, false, null);
            edges.fired(EdgeCase.SPLIT_PARTITION_RECORDS);
        }
    }

    /**
     * The ranges cut in two non-empty halves (cutting a single range of the owner in two), or null
     * when they cannot be.
     */
    private List<List<Long>> halves(Partition owner, List<Long> ranges) {
        if (ranges.size() >= 2) {
            int mid = ranges.size() / 2;
            return List.of(
                    new ArrayList<>(ranges.subList(0, mid)),
                    new ArrayList<>(ranges.subList(mid, ranges.size())));
        }
        if (ranges.size() == 1) {
            long lo = ranges.get(0);
            Long next = owners.higherKey(lo);
            long hi = next == null ? Long.MAX_VALUE : next;
            long mid = lo + (hi - lo) / 2;
            if (mid == lo) {
                return null;
            }
            owners.put(mid, owner);
            return List.of(List.of(lo), List.of(mid));
        }
        return null;
    }

    private static LogEntry startEntry(long ts, long seq, List<String> tokens) {
        return new LogEntry(
                ts,
                ChangeStreamRecord.newBuilder()
                        .setPartitionStartRecord(
                                ChangeStreamRecord.PartitionStartRecord.newBuilder()
                                        .setStartTimestamp(Timestamps.toProto(ts))
                                        .setRecordSequence(formatSequence(seq))
                                        .addAllPartitionTokens(tokens))
                        .build(),
                false);
    }

    private void merge(Partition a, Partition b, long ts) {
        if (def.partitionMode() == PartitionMode.IMMUTABLE_KEY_RANGE) {
            Partition c = newPartition(ts, List.of(a.token(), b.token()));
            rangesOf(a).forEach(r -> owners.put(r, c));
            rangesOf(b).forEach(r -> owners.put(r, c));
            endLegacy(a, ts, List.of(c));
            endLegacy(b, ts, List.of(c));
        } else {
            moveRanges(a, b, rangesOf(a), ts, true, null);
            endMutable(a, ts);
        }
    }

    private void legacyMove(Partition p, long ts) {
        Partition c = newPartition(ts, List.of(p.token()));
        rangesOf(p).forEach(r -> owners.put(r, c));
        endLegacy(p, ts, List.of(c));
    }

    private void moveRange(Partition from, Partition to, long ts) {
        List<Long> ranges = upperHalf(from);
        moveRanges(from, to, ranges, ts, true, null);
    }

    private void swap(Partition a, Partition b, long ts) {
        List<Long> fromA = upperHalf(a);
        List<Long> fromB = upperHalf(b);
        fromA.forEach(r -> owners.put(r, b));
        fromB.forEach(r -> owners.put(r, a));
        boolean separate = edges.on(EdgeCase.SPLIT_PARTITION_RECORDS);
        for (Partition p : List.of(a, b)) {
            Partition other = p == a ? b : a;
            if (separate) {
                // Edge case: the move-in first, the move-out in a second record.
                append(
                        p,
                        eventEntry(
                                p, ts, nextSequenceAt(p, ts), List.of(other.token()), List.of()));
                append(
                        p,
                        eventEntry(
                                p, ts, nextSequenceAt(p, ts), List.of(), List.of(other.token())));
            } else {
                append(
                        p,
                        eventEntry(
                                p,
                                ts,
                                nextSequenceAt(p, ts),
                                List.of(other.token()),
                                List.of(other.token())));
            }
        }
        if (separate) {
            edges.fired(EdgeCase.SPLIT_PARTITION_RECORDS);
        }
    }

    /**
     * Hands ranges from one live partition to another and records the move in both: move-out in the
     * source and move-in in the destination, at the same timestamp.
     */
    private void moveRanges(
            Partition from,
            Partition to,
            List<Long> ranges,
            long ts,
            boolean destinationExisted,
            Void unused) {
        ranges.forEach(r -> owners.put(r, to));
        append(
                from,
                eventEntry(from, ts, nextSequenceAt(from, ts), List.of(), List.of(to.token())));
        append(to, eventEntry(to, ts, nextSequenceAt(to, ts), List.of(from.token()), List.of()));
    }

    private LogEntry eventEntry(
            Partition p, long ts, long seq, List<String> sources, List<String> destinations) {
        PartitionEventRecord.Builder e =
                PartitionEventRecord.newBuilder()
                        .setCommitTimestamp(Timestamps.toProto(ts))
                        .setRecordSequence(formatSequence(seq))
                        .setPartitionToken(p.token());
        sources.forEach(
                s ->
                        e.addMoveInEvents(
                                PartitionEventRecord.MoveInEvent.newBuilder()
                                        .setSourcePartitionToken(s)));
        destinations.forEach(
                d ->
                        e.addMoveOutEvents(
                                PartitionEventRecord.MoveOutEvent.newBuilder()
                                        .setDestinationPartitionToken(d)));
        return new LogEntry(
                ts, ChangeStreamRecord.newBuilder().setPartitionEventRecord(e).build(), false);
    }

    private void endMutable(Partition p, long ts) {
        p.end(ts);
        long seq = nextSequenceAt(p, ts);
        append(
                p,
                new LogEntry(
                        ts,
                        ChangeStreamRecord.newBuilder()
                                .setPartitionEndRecord(
                                        ChangeStreamRecord.PartitionEndRecord.newBuilder()
                                                .setEndTimestamp(Timestamps.toProto(ts))
                                                .setRecordSequence(formatSequence(seq))
                                                .setPartitionToken(p.token()))
                                .build(),
                        true));
    }

    private void endLegacy(Partition p, long ts, List<Partition> children) {
        p.end(ts);
        List<ChildPartitionsRecord.Child> list = new ArrayList<>();
        for (Partition c : children) {
            list.add(new ChildPartitionsRecord.Child(c.token(), c.parentTokens()));
        }
        if (edges.on(EdgeCase.SPLIT_PARTITION_RECORDS) && list.size() > 1) {
            // Edge case: one child partitions record per child, with distinct sequences.
            for (int i = 0; i < list.size(); i++) {
                append(
                        p,
                        new LogEntry(
                                ts, new ChildPartitionsRecord(ts, i, List.of(list.get(i))), true));
            }
            edges.fired(EdgeCase.SPLIT_PARTITION_RECORDS);
            return;
        }
        append(p, new LogEntry(ts, new ChildPartitionsRecord(ts, 0, list), true));
    }

    /** Next free wire sequence for a partition record at the timestamp in the partition. */
    private static long nextSequenceAt(Partition p, long ts) {
        long seq = 0;
        for (LogEntry e : p.entriesAt(ts)) {
            seq = Math.max(seq, e.wireSequence() + 1);
        }
        return seq;
    }

    private Partition newPartition(long startMicros, List<String> parents) {
        byte[] seed =
                (def.name() + "/" + tokenCounter++ + "/" + random.nextLong())
                        .getBytes(StandardCharsets.UTF_8);
        byte[] hash = Hashing.sha256().hashBytes(seed).asBytes();
        String token =
                Base64.getUrlEncoder()
                        .withoutPadding()
                        .encodeToString(java.util.Arrays.copyOf(hash, 24));
        Partition p = new Partition(token, startMicros, parents);
        byToken.put(token, p);
        return p;
    }
}
