package io.spannercs.flink.source.google;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes an {@link OrdersWriter}'s transactions on a thread of its own until told where the range
 * ends ({@link #stopAt}), then up to there; counts the changes committed after a time as it goes,
 * so a test can wait until the range holds what its checks need instead of writing for a fixed time
 * (the pace of a loaded machine is not known).
 */
final class LiveWriter implements Runnable {
    /** Bounds a run whose writer stalls; a passing run waits as long as the writes take. */
    static final Duration WRITE_LIMIT = Duration.ofMinutes(3);

    private final OrdersWriter orders;
    private final long afterMicros;
    private final int maxTransactions;
    private final long pauseMillis;
    private final AtomicInteger changesAfter = new AtomicInteger();
    private final AtomicLong lastCommitMicros = new AtomicLong();
    private volatile Instant stopAt;
    private volatile Exception failure;

    /**
     * @param afterMicros changes committed after this count
     * @param maxTransactions the writer stops after this many transactions in any case
     * @param pauseMillis pause after each transaction
     */
    LiveWriter(OrdersWriter orders, long afterMicros, int maxTransactions, long pauseMillis) {
        this.orders = orders;
        this.afterMicros = afterMicros;
        this.maxTransactions = maxTransactions;
        this.pauseMillis = pauseMillis;
    }

    @Override
    public void run() {
        try {
            for (int i = 0; i < maxTransactions && writes(); i++) {
                int before = orders.written().size();
                orders.writeOne();
                // Only this thread touches the writer's list: count here, publish the count.
                for (String w : orders.written().subList(before, orders.written().size())) {
                    long committed = committedMicros(w);
                    lastCommitMicros.accumulateAndGet(committed, Math::max);
                    if (committed > afterMicros) {
                        changesAfter.incrementAndGet();
                    }
                }
                if (pauseMillis > 0) {
                    Thread.sleep(pauseMillis);
                }
            }
        } catch (Exception e) {
            failure = e;
        }
    }

    private boolean writes() {
        Instant stop = stopAt;
        return stop == null || Instant.now().isBefore(stop);
    }

    /**
     * Waits until more than {@code n} changes were committed after the time given; returns just
     * after the last commit so far (or now, whichever is later).
     */
    Instant awaitChanges(int n) throws Exception {
        long deadline = System.nanoTime() + WRITE_LIMIT.toNanos();
        while (changesAfter.get() <= n) {
            if (failure != null) {
                throw failure;
            }
            assertThat(System.nanoTime())
                    .as("more than %d changes written, %d so far", n, changesAfter.get())
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
        long last = lastCommitMicros.get() + 1;
        Instant afterLast = Instant.ofEpochSecond(last / 1_000_000L, (last % 1_000_000L) * 1000);
        Instant now = Instant.now();
        return afterLast.isAfter(now) ? afterLast : now;
    }

    /**
     * The end of a range that holds more than {@code n} changes: {@code liveTail} after the last
     * commit once there are that many. The writer writes on through the tail and stops at the end;
     * if the wait fails, it stops at once.
     */
    Instant endAfterChanges(int n, Duration liveTail) throws Exception {
        try {
            Instant end = awaitChanges(n).plus(liveTail);
            stopAt(end);
            return end;
        } finally {
            stopNowUnlessTold();
        }
    }

    /** Tells the writer to write up to {@code end} and no further. */
    void stopAt(Instant end) {
        stopAt = end;
    }

    /** Tells the writer to stop now, unless it was told where to stop already. */
    void stopNowUnlessTold() {
        if (stopAt == null) {
            stopAt = Instant.now();
        }
    }

    /** What the writer failed with, or null. */
    Exception failure() {
        return failure;
    }

    /** The commit time of one of {@link OrdersWriter#written()}'s identities, in microseconds. */
    static long committedMicros(String written) {
        return Long.parseLong(written.substring(0, written.indexOf('|')));
    }
}
