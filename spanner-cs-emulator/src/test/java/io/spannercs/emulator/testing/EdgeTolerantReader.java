package io.spannercs.emulator.testing;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Dialect;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.SpannerException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a change stream over a closed window with the official client, like {@link
 * ClientChangeStreamReader}, but survives every specification edge the emulator can show:
 *
 * <ul>
 *   <li>a transient error restarts the partition's query from its last real (non-heartbeat) record,
 *       and records read again are skipped by identity: legacy (commit timestamp, server
 *       transaction id, sequence), mutable (commit timestamp, sequence);
 *   <li>a query is read until it ends, taking every partition record (several child partitions
 *       records, several partition records at one timestamp);
 *   <li>a query that ends normally without its partition's end record is restarted from the last
 *       real record; only a second such ending means the partition outlives the window (a partition
 *       withholds its end record at most once);
 *   <li>all-NULL struct elements are skipped (in {@link ClientChangeStreamReader#fromLegacy}).
 * </ul>
 *
 * <p>Each partition's records come back without heartbeats, sorted by timestamp and, within a
 * timestamp, by record sequence (legacy: data records by transaction then sequence, then child
 * partitions records by sequence).
 */
public final class EdgeTolerantReader {
    /** The codes of errors that restart a query. */
    public static final Set<ErrorCode> TRANSIENT =
            EnumSet.of(
                    ErrorCode.UNAVAILABLE,
                    ErrorCode.ABORTED,
                    ErrorCode.INTERNAL,
                    ErrorCode.RESOURCE_EXHAUSTED,
                    ErrorCode.DEADLINE_EXCEEDED,
                    ErrorCode.UNKNOWN);

    private final ClientChangeStreamReader reader;
    private final boolean mutable;
    private final List<ErrorCode> errors = new ArrayList<>();
    private int endingsWithoutEndRecord;
    private int queries;
    private final Map<String, Timestamp> starts = new LinkedHashMap<>();

    public EdgeTolerantReader(DatabaseClient client, String stream, boolean mutable) {
        this(client, stream, mutable, Dialect.GOOGLE_STANDARD_SQL);
    }

    public EdgeTolerantReader(
            DatabaseClient client, String stream, boolean mutable, Dialect dialect) {
        this.reader = new ClientChangeStreamReader(client, stream, mutable, 1000, dialect);
        this.mutable = mutable;
    }

    /** The codes of the transient errors that restarted queries, in order. */
    public List<ErrorCode> errors() {
        return errors;
    }

    /** How many queries ended normally without their partition's end record. */
    public int endingsWithoutEndRecord() {
        return endingsWithoutEndRecord;
    }

    /** The partitions {@link #readAll} read, with the start timestamps it read them from. */
    public Map<String, Timestamp> partitionStarts() {
        return starts;
    }

    /** How many queries ran. */
    public int queries() {
        return queries;
    }

    /** Every record of every partition in [start, end], by partition, sorted (see above). */
    public Map<String, List<ReadRecord>> readAll(Timestamp start, Timestamp end) {
        Map<String, List<ReadRecord>> out = new LinkedHashMap<>();
        Deque<Object[]> queue = new ArrayDeque<>();
        Set<String> seen = new HashSet<>();
        for (ReadRecord r : rootQuery(start, end)) {
            for (String t : r.tokens()) {
                if (seen.add(t)) {
                    queue.add(new Object[] {t, start});
                }
            }
        }
        while (!queue.isEmpty()) {
            Object[] next = queue.poll();
            String token = (String) next[0];
            starts.put(token, (Timestamp) next[1]);
            List<ReadRecord> records = readPartition(token, (Timestamp) next[1], end);
            out.put(token, records);
            for (ReadRecord r : records) {
                if (r.kind() == ReadRecord.Kind.CHILD_PARTITIONS
                        || r.kind() == ReadRecord.Kind.PARTITION_START) {
                    for (String t : r.tokens()) {
                        if (seen.add(t)) {
                            queue.add(new Object[] {t, Timestamp.ofTimeMicroseconds(r.micros())});
                        }
                    }
                }
            }
        }
        return out;
    }

    private List<ReadRecord> rootQuery(Timestamp start, Timestamp end) {
        while (true) {
            try {
                queries++;
                return reader.query(null, start, end);
            } catch (SpannerException e) {
                if (!TRANSIENT.contains(e.getErrorCode())) {
                    throw e;
                }
                errors.add(e.getErrorCode());
            }
        }
    }

    /** Every record of one partition from {@code from} to {@code end}, sorted, no heartbeats. */
    public List<ReadRecord> readPartition(String token, Timestamp from, Timestamp end) {
        Map<List<Object>, ReadRecord> records = new LinkedHashMap<>();
        long[] lastReal = {-1};
        boolean[] sawEnd = new boolean[1];
        int normalEndingsWithoutEnd = 0;
        Timestamp restart = from;
        while (true) {
            sawEnd[0] = false;
            try {
                queries++;
                reader.query(
                        token,
                        restart,
                        end,
                        r -> {
                            if (r.kind() == ReadRecord.Kind.HEARTBEAT) {
                                return;
                            }
                            records.putIfAbsent(identity(r), r);
                            lastReal[0] = Math.max(lastReal[0], r.micros());
                            if (r.kind() == ReadRecord.Kind.CHILD_PARTITIONS
                                    || r.kind() == ReadRecord.Kind.PARTITION_END) {
                                sawEnd[0] = true;
                            }
                        });
            } catch (SpannerException e) {
                if (!TRANSIENT.contains(e.getErrorCode())) {
                    throw e;
                }
                errors.add(e.getErrorCode());
                restart = lastReal[0] < 0 ? from : Timestamp.ofTimeMicroseconds(lastReal[0]);
                continue;
            }
            if (sawEnd[0]) {
                break;
            }
            if (++normalEndingsWithoutEnd >= 2) {
                break; // twice without the end record: the partition outlives the window
            }
            endingsWithoutEndRecord++;
            restart = lastReal[0] < 0 ? from : Timestamp.ofTimeMicroseconds(lastReal[0]);
        }
        List<ReadRecord> out = new ArrayList<>(records.values());
        out.sort(order());
        return out;
    }

    /** What identifies a record across re-reads. */
    private List<Object> identity(ReadRecord r) {
        if (mutable) {
            return List.of(r.micros(), r.sequence());
        }
        String txn = r.kind() == ReadRecord.Kind.DATA ? r.data().serverTransactionId() : "";
        return List.of(r.micros(), r.kind(), txn, r.sequence());
    }

    /** Timestamp, then sequence (legacy: data by transaction and sequence, then child records). */
    private Comparator<ReadRecord> order() {
        Comparator<ReadRecord> byTime = Comparator.comparingLong(ReadRecord::micros);
        if (mutable) {
            return byTime.thenComparingLong(r -> Long.parseLong(r.sequence()));
        }
        return byTime.thenComparingInt(r -> r.kind() == ReadRecord.Kind.DATA ? 0 : 1)
                .thenComparingLong(
                        r ->
                                r.kind() == ReadRecord.Kind.DATA
                                        ? Long.parseLong(r.data().serverTransactionId())
                                        : 0)
                .thenComparingLong(r -> Long.parseLong(r.sequence()));
    }
}
