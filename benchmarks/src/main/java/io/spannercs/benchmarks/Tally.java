package io.spannercs.benchmarks;

import io.spannercs.flink.format.ChangeEvent;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts what the subtasks of a local job saw. A local job runs in this JVM, so operators find
 * their tally by name in a static registry instead of going through accumulators at job end.
 */
final class Tally {
    private static final Map<String, Tally> TALLIES = new ConcurrentHashMap<>();

    private final LongAdder rowChanges = new LongAdder();
    private final LongAdder checksum = new LongAdder();
    private final AtomicLong firstNanos = new AtomicLong();
    private final AtomicLong lastNanos = new AtomicLong();

    /** The tally of this name, created empty on first use. */
    static Tally named(String name) {
        return TALLIES.computeIfAbsent(name, n -> new Tally());
    }

    /** Forgets the tally of this name, returning it. */
    static Tally remove(String name) {
        Tally t = TALLIES.remove(name);
        return t == null ? new Tally() : t;
    }

    /** Notes when a writer saw its first change; the earliest one counts. */
    void first(long nanos) {
        firstNanos.accumulateAndGet(nanos, (seen, n) -> seen == 0 ? n : Math.min(seen, n));
    }

    void add(long changes, long sum, long lastNanos) {
        rowChanges.add(changes);
        checksum.add(sum);
        this.lastNanos.accumulateAndGet(lastNanos, Math::max);
    }

    ReadResult result(long wallNanos) {
        return new ReadResult(
                rowChanges.sum(), checksum.sum(), firstNanos.get(), lastNanos.get(), wallNanos);
    }

    static long checksumOf(ChangeEvent e) {
        return Checksum.of(e.getServerTransactionId(), PlainClientReader.rowId(e));
    }
}
