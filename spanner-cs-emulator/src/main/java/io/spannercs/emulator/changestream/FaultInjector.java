package io.spannercs.emulator.changestream;

import io.grpc.Status;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Faults for tests: streams that fail after some rows, partitions that answer slowly, commits that
 * are rejected, table reads that fail or answer slowly. Change stream rules are keyed by partition
 * token, {@link #ANY_PARTITION} matching every one; table read rules by table name (any case),
 * {@link #ANY_TABLE} matching every table.
 */
public final class FaultInjector {
    public static final String ANY_PARTITION = "*";

    /** The key of the root query's rule: no partition token looks like it. */
    private static final String ROOT_QUERY = "\u0000root";

    /** Matches every table in the read rules. */
    public static final String ANY_TABLE = "*";

    private final Map<String, StreamFailure> readFailures = new ConcurrentHashMap<>();
    private final Map<String, Duration> readLatencies = new ConcurrentHashMap<>();

    private final Map<String, StreamFailure> streamFailures = new ConcurrentHashMap<>();
    private final Map<String, Duration> latencies = new ConcurrentHashMap<>();
    private final Set<String> held = ConcurrentHashMap.newKeySet();
    private final Map<String, java.util.concurrent.atomic.AtomicLong> heldWaits =
            new ConcurrentHashMap<>();
    private final Set<String> heldReads = ConcurrentHashMap.newKeySet();
    private final AtomicInteger commitRejections = new AtomicInteger();
    private volatile Status.Code commitRejectionCode = Status.Code.ABORTED;

    private static final class StreamFailure {
        final int afterRows;
        final Status.Code code;
        final AtomicInteger remaining;

        StreamFailure(int afterRows, Status.Code code, int times) {
            this.afterRows = afterRows;
            this.code = code;
            this.remaining = new AtomicInteger(times);
        }
    }

    /**
     * The next {@code times} queries of the partition fail with {@code code} once they have sent
     * {@code afterRows} rows.
     */
    public void failStreamAfterRows(String token, int afterRows, Status.Code code, int times) {
        streamFailures.put(token, new StreamFailure(afterRows, code, times));
    }

    /**
     * The next {@code times} root queries ({@code partition_token => NULL}, which list the first
     * partitions) fail with {@code code} before their first row. {@link #ANY_PARTITION} rules do
     * not apply to root queries.
     */
    public void failRootQuery(Status.Code code, int times) {
        streamFailures.put(ROOT_QUERY, new StreamFailure(0, code, times));
    }

    /** The failure to raise in a root query now, or null. */
    Status rootQueryFailure() {
        StreamFailure f = streamFailures.get(ROOT_QUERY);
        if (f != null && f.remaining.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            return Status.fromCode(f.code).withDescription("Injected fault on the root query");
        }
        return null;
    }

    /**
     * The next {@code times} streamed reads of the table fail with {@code code} once they have sent
     * {@code afterRows} rows: {@code StreamingRead} and {@code ExecuteStreamingSql} on the table,
     * with or without a partition token. A stream resumed with a resume token is a new stream and
     * counts its rows from 0.
     */
    public void failReadAfterRows(String table, int afterRows, Status.Code code, int times) {
        readFailures.put(
                table.toLowerCase(java.util.Locale.ROOT),
                new StreamFailure(afterRows, code, times));
    }

    /**
     * How many of the failures armed with {@link #failStreamAfterRows} for this token (or {@link
     * #ANY_PARTITION}) have not happened yet: 0 once a test's faults were all hit.
     */
    public int streamFailuresLeft(String token) {
        return failuresLeft(token);
    }

    /** How many of the failures armed with {@link #failRootQuery} have not happened yet. */
    public int rootQueryFailuresLeft() {
        return failuresLeft(ROOT_QUERY);
    }

    private int failuresLeft(String token) {
        StreamFailure f = streamFailures.get(token);
        return f == null ? 0 : Math.max(0, f.remaining.get());
    }

    /** Every row of streamed reads of the table is delayed by this much. */
    public void setReadLatency(String table, Duration perRow) {
        String key = table.toLowerCase(java.util.Locale.ROOT);
        if (perRow.isZero()) {
            readLatencies.remove(key);
        } else {
            readLatencies.put(key, perRow);
        }
    }

    /** The failure to raise in a read of the table after {@code rowsSent} rows, or null. */
    public Status readFailureFor(String table, int rowsSent) {
        for (String key : new String[] {table.toLowerCase(java.util.Locale.ROOT), ANY_TABLE}) {
            StreamFailure f = readFailures.get(key);
            if (f != null && rowsSent >= f.afterRows && f.remaining.get() > 0) {
                if (f.remaining.getAndDecrement() > 0) {
                    return Status.fromCode(f.code)
                            .withDescription(
                                    "Injected fault reading table "
                                            + table
                                            + " after "
                                            + rowsSent
                                            + " rows");
                }
            }
        }
        return null;
    }

    /**
     * Streamed reads of the table ({@link #ANY_TABLE}: of every table) send nothing, not even their
     * end, until {@link #releaseReads}: a snapshot read lags behind everything else for as long as
     * a test needs, whatever the machine's speed.
     */
    public void holdReads(String table) {
        heldReads.add(table.toLowerCase(java.util.Locale.ROOT));
    }

    /** Held reads of the table go on from where they stopped. */
    public void releaseReads(String table) {
        heldReads.remove(table.toLowerCase(java.util.Locale.ROOT));
    }

    /** Whether streamed reads of the table must wait for {@link #releaseReads}. */
    public boolean isReadHeld(String table) {
        return table != null
                && (heldReads.contains(table.toLowerCase(java.util.Locale.ROOT))
                        || heldReads.contains(ANY_TABLE));
    }

    /** Delay before each row of streamed reads of the table. */
    public Duration readLatencyFor(String table) {
        Duration d = readLatencies.get(table.toLowerCase(java.util.Locale.ROOT));
        if (d == null) {
            d = readLatencies.get(ANY_TABLE);
        }
        return d == null ? Duration.ZERO : d;
    }

    /** Every row of the partition's queries is delayed by this much. */
    public void setLatency(String token, Duration perRow) {
        if (perRow.isZero()) {
            latencies.remove(token);
        } else {
            latencies.put(token, perRow);
        }
    }

    /**
     * Queries of the partition send nothing, not even their end, until {@link #release}: the
     * partition lags behind every other one for as long as a test needs, whatever the machine's
     * speed.
     */
    public void hold(String token) {
        held.add(token);
    }

    /** Queries of a held partition go on from where they stopped. */
    public void release(String token) {
        held.remove(token);
    }

    /** The next {@code count} commits fail with {@code code} and apply nothing. */
    public void rejectCommits(int count, Status.Code code) {
        commitRejectionCode = code;
        commitRejections.set(count);
    }

    public void clear() {
        streamFailures.clear();
        latencies.clear();
        held.clear();
        heldReads.clear();
        readFailures.clear();
        readLatencies.clear();
        commitRejections.set(0);
    }

    /** Throws if a commit rejection is pending. */
    public void checkCommit() {
        if (commitRejections.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw Status.fromCode(commitRejectionCode)
                    .withDescription("Commit rejected by fault injection")
                    .asRuntimeException();
        }
    }

    /** The failure to raise now, after {@code rowsSent} rows of this query, or null. */
    Status failureFor(String token, int rowsSent) {
        for (String key : new String[] {token, ANY_PARTITION}) {
            StreamFailure f = key == null ? null : streamFailures.get(key);
            if (f != null && rowsSent >= f.afterRows && f.remaining.get() > 0) {
                if (f.remaining.getAndDecrement() > 0) {
                    return Status.fromCode(f.code)
                            .withDescription(
                                    "Injected fault on partition "
                                            + token
                                            + " after "
                                            + rowsSent
                                            + " rows");
                }
            }
        }
        return null;
    }

    /** Whether the partition's queries must wait for {@link #release}; counts each such wait. */
    boolean isHeld(String token) {
        if (token == null || !held.contains(token)) {
            return false;
        }
        heldWaits
                .computeIfAbsent(token, t -> new java.util.concurrent.atomic.AtomicLong())
                .incrementAndGet();
        return true;
    }

    /**
     * How many times a query of the partition found it held and waited: a test waits for this
     * instead of a time to know that a query has reached the hold (and sent nothing past it).
     */
    public long heldWaits(String token) {
        java.util.concurrent.atomic.AtomicLong n = heldWaits.get(token);
        return n == null ? 0 : n.get();
    }

    /** Delay before each row of the partition's queries. */
    Duration latencyFor(String token) {
        Duration d = token == null ? null : latencies.get(token);
        if (d == null) {
            d = latencies.get(ANY_PARTITION);
        }
        return d == null ? Duration.ZERO : d;
    }
}
