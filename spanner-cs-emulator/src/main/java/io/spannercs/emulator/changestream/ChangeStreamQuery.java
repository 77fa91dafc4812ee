package io.spannercs.emulator.changestream;

import com.google.protobuf.ByteString;
import com.google.spanner.v1.ChangeStreamRecord;
import io.grpc.Status;
import io.spannercs.emulator.EdgeCase;
import io.spannercs.emulator.schema.PartitionMode;
import io.spannercs.emulator.storage.Timestamps;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One running {@code READ_<stream>} query. It is driven by events, not by a thread of its own: new
 * records in its partition, the heartbeat timer and the receiver's flow control each call {@link
 * #pump()}, which sends what is ready and schedules the next wake-up.
 *
 * <p>The rows of one timestamp follow a plan: the partition's log entries at that timestamp in log
 * order, or, with edge cases on, shuffled and with a heartbeat before the partition records. Every
 * row carries a resume token holding the position after it, (timestamp, rows of that timestamp's
 * plan sent), so a retried query continues exactly where the last delivered row left off. Plans are
 * deterministic for a partition and timestamp, so a retry recomputes the same plan.
 */
public final class ChangeStreamQuery {
    /** Position count meaning "every row of the timestamp was sent". */
    static final long ALL = Long.MAX_VALUE;

    /** How often a query polls while its partition holds records beyond the safe timestamp. */
    private static final long PENDING_POLL_MICROS = 2_000;

    /** How often a query of a held partition (a test fault) looks whether it was released. */
    private static final long HELD_POLL_MILLIS = 5;

    private final ChangeStream stream;
    private final Partition partition;
    private final long startMicros;
    private final long endMicros;
    private final long heartbeatMicros;
    private final RecordEncoder encoder;
    private final RowSink sink;
    private final ScheduledExecutorService scheduler;
    private final FaultInjector faults;
    private final EdgeRuntime edges;
    private final boolean mutable;
    private final Random faultRandom;
    private final Runnable wakeUp = this::wakeUp;

    /** Timestamp of the last position. */
    private long posMicros;

    /** Rows of the plan at {@link #posMicros} already sent, or {@link #ALL}. */
    private long posCount;

    private Plan plan;
    private long lastSendNanos;
    private int rowsSent;
    private boolean faulted;
    private boolean done;
    private ScheduledFuture<?> timer;

    /** One row to send: a log entry, or a heartbeat when {@code entry} is null. */
    private record Row(LogEntry entry, long heartbeatMicros) {}

    /** The rows of one timestamp in the order they are sent. */
    private record Plan(long micros, List<Row> rows, boolean shuffled, boolean ends) {
        /** Index of the first end record, or -1. */
        int firstEndIndex() {
            for (int i = 0; i < rows.size(); i++) {
                if (rows.get(i).entry() != null && rows.get(i).entry().terminal()) {
                    return i;
                }
            }
            return -1;
        }
    }

    /**
     * @param partition null for the root query
     * @param endMicros {@code Long.MAX_VALUE} for no end
     * @param resumeToken empty to start at {@code startMicros}
     */
    public ChangeStreamQuery(
            ChangeStream stream,
            Partition partition,
            long startMicros,
            long endMicros,
            Duration heartbeat,
            ByteString resumeToken,
            RecordEncoder encoder,
            RowSink sink,
            ScheduledExecutorService scheduler,
            FaultInjector faults) {
        this(
                stream,
                partition,
                startMicros,
                endMicros,
                heartbeat,
                resumeToken,
                encoder,
                sink,
                scheduler,
                faults,
                EdgeRuntime.none());
    }

    /**
     * @param partition null for the root query
     * @param endMicros {@code Long.MAX_VALUE} for no end
     * @param resumeToken empty to start at {@code startMicros}
     */
    public ChangeStreamQuery(
            ChangeStream stream,
            Partition partition,
            long startMicros,
            long endMicros,
            Duration heartbeat,
            ByteString resumeToken,
            RecordEncoder encoder,
            RowSink sink,
            ScheduledExecutorService scheduler,
            FaultInjector faults,
            EdgeRuntime edges) {
        this.stream = stream;
        this.partition = partition;
        this.startMicros = startMicros;
        this.endMicros = endMicros;
        this.heartbeatMicros = heartbeat.toNanos() / 1000;
        this.encoder = encoder;
        this.sink = sink;
        this.scheduler = scheduler;
        this.faults = faults;
        this.edges = edges;
        this.mutable = stream.def().partitionMode() == PartitionMode.MUTABLE_KEY_RANGE;
        this.faultRandom =
                partition != null && edges.on(EdgeCase.TRANSIENT_FAULTS)
                        ? edges.queryRandom()
                        : null;
        if (resumeToken.isEmpty()) {
            posMicros = startMicros - 1;
            posCount = ALL;
        } else {
            long[] pos = decodeResumeToken(resumeToken);
            posMicros = pos[0];
            posCount = pos[1];
        }
    }

    /** Starts serving; rows flow on the scheduler's threads. */
    public void start() {
        lastSendNanos = System.nanoTime();
        sink.setOnReady(wakeUp);
        sink.setOnCancel(this::cancel);
        if (partition != null) {
            partition.addListener(wakeUp);
        }
        wakeUp();
    }

    private void wakeUp() {
        scheduler.execute(this::pump);
    }

    private synchronized void cancel() {
        finish();
    }

    private void finish() {
        done = true;
        if (partition != null) {
            partition.removeListener(wakeUp);
        }
        if (timer != null) {
            timer.cancel(false);
        }
    }

    synchronized void pump() {
        if (done) {
            return;
        }
        try {
            if (partition == null) {
                pumpRoot();
            } else {
                pumpPartition();
            }
        } catch (RuntimeException e) {
            finish();
            sink.fail(
                    Status.INTERNAL
                            .withDescription("Emulator failed serving the query: " + e)
                            .withCause(e)
                            .asRuntimeException());
        }
    }

    // ---- root query ---------------------------------------------------------------------

    private void pumpRoot() {
        long safe = stream.database().safeMicros();
        if (safe < startMicros) {
            schedule(Math.max(1, (startMicros - safe) / 1000));
            return;
        }
        List<LogEntry> rows = rootRows();
        long sent = posMicros == startMicros && posCount != ALL ? posCount : 0;
        Status failure = sent == 0 ? faults.rootQueryFailure() : null;
        if (failure != null) {
            finish();
            sink.fail(failure.asRuntimeException());
            return;
        }
        while (sent < rows.size()) {
            if (!sink.isReady()) {
                return; // onReady wakes us up
            }
            posMicros = startMicros;
            posCount = sent + 1;
            emit(encode(rows.get((int) sent), (int) sent));
            sent++;
        }
        finish();
        sink.complete();
    }

    /** What the root query returns: the partitions live at the start. */
    private List<LogEntry> rootRows() {
        List<Partition> live = new ArrayList<>(stream.partitionsLiveAt(startMicros));
        List<Partition> ending = stream.partitionsEndingAt(startMicros);
        if (mutable) {
            // Partitions ending exactly at the start still owe their records at that timestamp.
            live.addAll(ending);
        } else if (ending.stream().anyMatch(p -> p.hasDataAt(startMicros))) {
            // Shared timestamps: partitions that ended at the start may hold data committed at
            // it. Return them instead of their children, which their child partitions records
            // name with their parents.
            java.util.Set<String> parents = new java.util.HashSet<>();
            ending.forEach(p -> parents.add(p.token()));
            live.removeIf(p -> p.parentTokens().stream().anyMatch(parents::contains));
            live.addAll(ending);
            live.sort((a, b) -> a.token().compareTo(b.token()));
        }
        List<String> tokens = new ArrayList<>();
        live.forEach(p -> tokens.add(p.token()));
        List<List<String>> groups = new ArrayList<>();
        if (edges.on(EdgeCase.SPLIT_PARTITION_RECORDS) && tokens.size() > 1) {
            // Edge case: one partition record per partition.
            tokens.forEach(t -> groups.add(List.of(t)));
            edges.fired(EdgeCase.SPLIT_PARTITION_RECORDS);
        } else {
            groups.add(tokens);
        }
        List<LogEntry> rows = new ArrayList<>();
        for (int i = 0; i < groups.size(); i++) {
            Object payload;
            if (mutable) {
                payload =
                        ChangeStreamRecord.newBuilder()
                                .setPartitionStartRecord(
                                        ChangeStreamRecord.PartitionStartRecord.newBuilder()
                                                .setStartTimestamp(Timestamps.toProto(startMicros))
                                                .setRecordSequence(ChangeStream.formatSequence(i))
                                                .addAllPartitionTokens(groups.get(i)))
                                .build();
            } else {
                List<ChildPartitionsRecord.Child> children = new ArrayList<>();
                groups.get(i)
                        .forEach(t -> children.add(new ChildPartitionsRecord.Child(t, List.of())));
                payload = new ChildPartitionsRecord(startMicros, i, children);
            }
            rows.add(new LogEntry(startMicros, i, payload, true));
        }
        return rows;
    }

    // ---- partition query ----------------------------------------------------------------

    private void pumpPartition() {
        while (sink.isReady()) {
            if (faults.isHeld(partition.token())) {
                schedule(HELD_POLL_MILLIS);
                return;
            }
            Status failure = faults.failureFor(partition.token(), rowsSent);
            if (failure != null) {
                finish();
                sink.fail(failure.asRuntimeException());
                return;
            }
            long safe = stream.database().safeMicros();
            long max = Math.min(endMicros, safe);
            if (posCount != ALL && (plan == null || plan.micros() != posMicros)) {
                plan = plan(posMicros);
            }
            if (posCount != ALL && posCount >= plan.rows().size()) {
                posCount = ALL; // a resume token from the end of the plan
                if (plan.ends()) {
                    finish();
                    sink.complete();
                    return;
                }
            }
            if (posCount == ALL && posMicros >= partition.endMicros()) {
                finish();
                sink.complete(); // resumed after the partition's last records
                return;
            }
            if (posCount == ALL) {
                long next = partition.nextMicrosAfter(posMicros, max);
                if (next >= 0) {
                    posMicros = next;
                    posCount = 0;
                    plan = plan(next);
                }
            }
            if (posCount != ALL) {
                int index = (int) posCount;
                Row row = plan.rows().get(index);
                long delayMs = faults.latencyFor(partition.token()).toMillis();
                if (delayMs > 0 && System.nanoTime() - lastSendNanos < delayMs * 1_000_000L) {
                    schedule(delayMs - (System.nanoTime() - lastSendNanos) / 1_000_000L);
                    return;
                }
                if (transientFault()) {
                    return;
                }
                if (index == plan.firstEndIndex() && withholdEndRecord()) {
                    finish();
                    sink.complete(); // the stream ends normally, without the end record
                    return;
                }
                if (index == 0 && plan.shuffled()) {
                    edges.fired(EdgeCase.UNORDERED_WITHIN_TIMESTAMP);
                }
                posCount = index + 1 == plan.rows().size() ? ALL : index + 1;
                if (row.entry() == null) {
                    edges.fired(EdgeCase.HEARTBEAT_BEFORE_PARTITION_RECORDS);
                    emit(heartbeat(row.heartbeatMicros(), index));
                } else {
                    emit(encode(row.entry(), index));
                }
                if (posCount == ALL && plan.ends()) {
                    finish();
                    sink.complete();
                    return;
                }
                continue;
            }
            if (endMicros != Long.MAX_VALUE && safe >= endMicros) {
                finish();
                sink.complete(); // the window ends with no final record
                return;
            }
            long sinceSendMicros = (System.nanoTime() - lastSendNanos) / 1000;
            if (safe >= startMicros && safe > posMicros && sinceSendMicros >= heartbeatMicros) {
                if (transientFault()) {
                    return;
                }
                posMicros = safe;
                posCount = ALL;
                emit(heartbeat(safe, -1));
                continue;
            }
            long waitMicros = Math.max(0, heartbeatMicros - sinceSendMicros);
            if (safe < startMicros) {
                waitMicros = Math.min(waitMicros, startMicros - safe);
            }
            if (endMicros != Long.MAX_VALUE) {
                waitMicros = Math.min(waitMicros, endMicros - safe);
            }
            if (partition.lastMicros() > safe) {
                // Records at a shared timestamp wait for it to close (a few milliseconds).
                waitMicros = Math.min(waitMicros, PENDING_POLL_MICROS);
            }
            schedule(Math.max(1, waitMicros / 1000));
            return;
        }
    }

    /**
     * The rows at the timestamp: its log entries in log order, so data records before partition
     * records. With heartbeat-before-partition-records, a heartbeat at the timestamp goes before
     * the first partition record. With unordered-within-timestamp, a seeded permutation that
     * differs from record_sequence order: of every record of the timestamp in mutable mode (data
     * and partition records apart when the heartbeat separates them), of each transaction's records
     * in legacy mode.
     */
    private Plan plan(long micros) {
        List<LogEntry> entries = partition.entriesAt(micros);
        List<LogEntry> data = new ArrayList<>();
        List<LogEntry> partitionRecords = new ArrayList<>();
        boolean ends = false;
        for (LogEntry e : entries) {
            (e.isData() ? data : partitionRecords).add(e);
            ends |= e.terminal();
        }
        boolean heartbeat =
                edges.on(EdgeCase.HEARTBEAT_BEFORE_PARTITION_RECORDS)
                        && !partitionRecords.isEmpty();
        boolean shuffle = edges.on(EdgeCase.UNORDERED_WITHIN_TIMESTAMP);
        Random random = shuffle ? edges.random("order", partition.token(), micros) : null;
        boolean shuffled = false;
        List<LogEntry> ordered = new ArrayList<>();
        if (!shuffle) {
            ordered.addAll(data);
        } else if (mutable) {
            if (heartbeat) {
                shuffled |= permute(data, random);
                shuffled |= permute(partitionRecords, random);
            } else {
                data.addAll(partitionRecords);
                partitionRecords.clear();
                shuffled |= permute(data, random);
            }
            ordered.addAll(data);
        } else {
            int from = 0;
            for (int i = 1; i <= data.size(); i++) {
                if (i == data.size()
                        || !data.get(i).transactionId().equals(data.get(from).transactionId())) {
                    List<LogEntry> txn = new ArrayList<>(data.subList(from, i));
                    shuffled |= permute(txn, random);
                    ordered.addAll(txn);
                    from = i;
                }
            }
        }
        List<Row> rows = new ArrayList<>();
        ordered.forEach(e -> rows.add(new Row(e, 0)));
        if (heartbeat) {
            rows.add(new Row(null, micros));
        }
        partitionRecords.forEach(e -> rows.add(new Row(e, 0)));
        return new Plan(micros, rows, shuffled, ends);
    }

    /** Shuffles the list into an order other than its own; whether it changed it. */
    private static boolean permute(List<LogEntry> list, Random random) {
        if (list.size() < 2) {
            return false;
        }
        List<LogEntry> original = new ArrayList<>(list);
        Collections.shuffle(list, random);
        if (list.equals(original)) {
            Collections.rotate(list, 1);
        }
        return true;
    }

    /**
     * Edge case window-end-without-end-record: whether this query ends now, before the first end
     * record of its partition (seeded coin per partition, at most once per partition).
     */
    private boolean withholdEndRecord() {
        if (!edges.on(EdgeCase.WINDOW_END_WITHOUT_END_RECORD)
                || !edges.coin(2, "window-end", partition.token())
                || !partition.withholdEndRecordOnce()) {
            return false;
        }
        edges.fired(EdgeCase.WINDOW_END_WITHOUT_END_RECORD);
        return true;
    }

    /** Edge case transient-faults: fails the query before the next row, now and then. */
    private boolean transientFault() {
        if (faultRandom == null
                || faulted
                || faultRandom.nextDouble() >= edges.transientFaultRate()) {
            return false;
        }
        faulted = true;
        finish();
        sink.fail(edges.nextTransientFault(partition.token(), rowsSent).asRuntimeException());
        return true;
    }

    /** Whether this row gets all-NULL struct elements in its unused arrays (edge case). */
    private boolean nullElements(long micros, int index) {
        if (!edges.on(EdgeCase.NULL_STRUCT_ELEMENTS) || !encoder.supportsNullStructElements()) {
            return false;
        }
        String token = partition == null ? "" : partition.token();
        if (!edges.coin(3, "null-elements", token, micros, index)) {
            return false;
        }
        edges.fired(EdgeCase.NULL_STRUCT_ELEMENTS);
        return true;
    }

    private com.google.protobuf.Value encode(LogEntry e, int index) {
        return encoder.encode(e, nullElements(e.micros(), index));
    }

    private com.google.protobuf.Value heartbeat(long micros, int index) {
        return encoder.heartbeat(micros, nullElements(micros, index));
    }

    private void emit(com.google.protobuf.Value row) {
        sink.sendRow(row, encodeResumeToken(posMicros, posCount));
        rowsSent++;
        lastSendNanos = System.nanoTime();
    }

    private void schedule(long delayMillis) {
        if (timer != null) {
            timer.cancel(false);
        }
        timer = scheduler.schedule(this::pump, delayMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * @param count rows of the timestamp's plan sent, or {@link #ALL}
     */
    static ByteString encodeResumeToken(long micros, long count) {
        return ByteString.copyFrom("cs2:" + micros + ":" + count, StandardCharsets.UTF_8);
    }

    /**
     * @throws IllegalArgumentException for a token this emulator did not issue
     */
    static long[] decodeResumeToken(ByteString token) {
        String[] parts = token.toString(StandardCharsets.UTF_8).split(":");
        if (parts.length != 3 || !parts[0].equals("cs2")) {
            throw new IllegalArgumentException("Invalid resume token");
        }
        long count = Long.parseLong(parts[2]);
        if (count < 0) {
            throw new IllegalArgumentException("Invalid resume token");
        }
        return new long[] {Long.parseLong(parts[1]), count};
    }
}
