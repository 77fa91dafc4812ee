package io.spannercs.flink.source.reader;

import org.slf4j.Logger;

/**
 * When a partition query or snapshot read that failed transiently runs again: after 200 ms,
 * doubling up to 10 s while failures follow each other, from the start once a row came. Also holds
 * a query that must wait for a start in the future. Not thread-safe: used under the lock of the
 * stream that owns it.
 */
final class RetrySchedule {
    private static final long MAX_BACKOFF_MILLIS = 10_000;

    private int attempts;
    private long retryAtNanos;

    /** A transient failure: schedules the next attempt and says so at WARN. */
    void failed(Logger log, String what, String code) {
        attempts++;
        long backoff = Math.min(MAX_BACKOFF_MILLIS, 100L << Math.min(attempts, 10));
        retryAtNanos = System.nanoTime() + backoff * 1_000_000L;
        log.warn("{} failed ({}), retrying in {} ms (attempt {})", what, code, backoff, attempts);
    }

    /** A row came: the next failure waits the shortest time again. */
    void progressed() {
        attempts = 0;
    }

    /** Runs the next attempt no earlier than {@code nanos} from now. */
    void waitFor(long nanos) {
        retryAtNanos = System.nanoTime() + nanos;
    }

    /** Whether an attempt is scheduled and its time has come; if so, it is taken. */
    boolean takeIfDue(long nowNanos) {
        if (retryAtNanos != 0 && nowNanos >= retryAtNanos) {
            retryAtNanos = 0;
            return true;
        }
        return false;
    }
}
