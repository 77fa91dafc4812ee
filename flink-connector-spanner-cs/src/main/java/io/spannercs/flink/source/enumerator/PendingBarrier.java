package io.spannercs.flink.source.enumerator;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** A barrier the enumerator has not released yet, with what it needs to watch it. */
final class PendingBarrier {
    static final long NEVER = Long.MIN_VALUE;

    private final BarrierEntry entry;
    private final long sinceMillis;
    private int reporter;
    private long lastWarnedMillis = NEVER;
    private final Set<String> warnedUnknownSources = new HashSet<>();

    /**
     * @param reporter the subtask that reported it, or {@link PartitionEntry#NO_SUBTASK} after a
     *     restore
     * @param sinceMillis wall-clock time it started waiting (not checkpointed)
     */
    PendingBarrier(BarrierEntry entry, int reporter, long sinceMillis) {
        this.entry = entry;
        this.reporter = reporter;
        this.sinceMillis = sinceMillis;
    }

    BarrierEntry entry() {
        return entry;
    }

    String token() {
        return entry.token();
    }

    long micros() {
        return entry.micros();
    }

    List<String> sources() {
        return entry.sources();
    }

    int reporter() {
        return reporter;
    }

    void reportedAgainBy(int subtask) {
        reporter = subtask;
    }

    long sinceMillis() {
        return sinceMillis;
    }

    long lastWarnedMillis() {
        return lastWarnedMillis;
    }

    void warnedAt(long millis) {
        lastWarnedMillis = millis;
    }

    /** True the first time a source is found unknown, so that it is logged once. */
    boolean firstTimeUnknown(String source) {
        return warnedUnknownSources.add(source);
    }
}
