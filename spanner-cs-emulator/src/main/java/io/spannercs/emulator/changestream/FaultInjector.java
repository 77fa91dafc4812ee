package io.spannercs.emulator.changestream;

import io.grpc.Status;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Faults for tests: streams that fail after some rows, partitions that answer slowly, commits that
 * are rejected. Rules keyed by partition token; {@link #ANY_PARTITION} matches every one.
 */
public final class FaultInjector {
    public static final String ANY_PARTITION = "*";

    private final Map<String, StreamFailure> streamFailures = new ConcurrentHashMap<>();
    private final Map<String, Duration> latencies = new ConcurrentHashMap<>();
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

    /** Every row of the partition's queries is delayed by this much. */
    public void setLatency(String token, Duration perRow) {
        if (perRow.isZero()) {
            latencies.remove(token);
        } else {
            latencies.put(token, perRow);
        }
    }

    /** The next {@code count} commits fail with {@code code} and apply nothing. */
    public void rejectCommits(int count, Status.Code code) {
        commitRejectionCode = code;
        commitRejections.set(count);
    }

    public void clear() {
        streamFailures.clear();
        latencies.clear();
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

    /** Delay before each row of the partition's queries. */
    Duration latencyFor(String token) {
        Duration d = token == null ? null : latencies.get(token);
        if (d == null) {
            d = latencies.get(ANY_PARTITION);
        }
        return d == null ? Duration.ZERO : d;
    }
}
