package io.spannercs.emulator.changestream;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A change stream partition: its token, lifetime and log. Which key ranges it owns is kept by
 * {@link ChangeStream}.
 */
public final class Partition {
    private final String token;
    private final long startMicros;
    private final List<String> parentTokens;
    private volatile long endMicros = Long.MAX_VALUE;
    private final List<LogEntry> log = new ArrayList<>();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    /** Whether a query already ended without this partition's end record (edge case). */
    private final AtomicBoolean endRecordWithheld = new AtomicBoolean();

    Partition(String token, long startMicros, List<String> parentTokens) {
        this.token = token;
        this.startMicros = startMicros;
        this.parentTokens = List.copyOf(parentTokens);
    }

    public String token() {
        return token;
    }

    public long startMicros() {
        return startMicros;
    }

    public List<String> parentTokens() {
        return parentTokens;
    }

    /** End timestamp, or {@code Long.MAX_VALUE} while the partition lives. */
    public long endMicros() {
        return endMicros;
    }

    public boolean liveAt(long micros) {
        return startMicros <= micros && micros < endMicros;
    }

    void end(long micros) {
        endMicros = micros;
    }

    /** Appends the entry, numbering it after the partition's entries at the same timestamp. */
    LogEntry append(LogEntry entry) {
        LogEntry numbered;
        synchronized (log) {
            LogEntry last = log.isEmpty() ? null : log.get(log.size() - 1);
            if (last != null && last.micros() > entry.micros()) {
                throw new IllegalStateException(
                        "Log of partition " + token + " would go back in time");
            }
            int ordinal = last != null && last.micros() == entry.micros() ? last.ordinal() + 1 : 0;
            numbered = entry.withOrdinal(ordinal);
            log.add(numbered);
        }
        for (Runnable l : listeners) {
            l.run();
        }
        return numbered;
    }

    /** Index of the first entry with a timestamp greater than {@code micros}. */
    private int firstAfterIndex(long micros) {
        int lo = 0;
        int hi = log.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (log.get(mid).micros() > micros) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /**
     * The timestamp of the first entry after {@code micros} and at most {@code maxMicros}, or -1
     * when there is none.
     */
    long nextMicrosAfter(long micros, long maxMicros) {
        synchronized (log) {
            int i = firstAfterIndex(micros);
            if (i < log.size() && log.get(i).micros() <= maxMicros) {
                return log.get(i).micros();
            }
            return -1;
        }
    }

    /** The entries at the timestamp, in log order. */
    List<LogEntry> entriesAt(long micros) {
        synchronized (log) {
            int end = firstAfterIndex(micros);
            int start = end;
            while (start > 0 && log.get(start - 1).micros() == micros) {
                start--;
            }
            return new ArrayList<>(log.subList(start, end));
        }
    }

    /** Whether the log holds a data change record at the timestamp. */
    boolean hasDataAt(long micros) {
        return entriesAt(micros).stream().anyMatch(LogEntry::isData);
    }

    /** The timestamp of the newest entry, or -1 for an empty log. */
    long lastMicros() {
        synchronized (log) {
            return log.isEmpty() ? -1 : log.get(log.size() - 1).micros();
        }
    }

    /**
     * Claims the one query of this partition that may end without the end record (edge case
     * window-end-without-end-record); true at most once.
     */
    boolean withholdEndRecordOnce() {
        return endRecordWithheld.compareAndSet(false, true);
    }

    int size() {
        synchronized (log) {
            return log.size();
        }
    }

    /** Drops entries older than the cutoff, keeping the terminal one. */
    void prune(long cutoffMicros) {
        synchronized (log) {
            int n = 0;
            while (n < log.size() && log.get(n).micros() < cutoffMicros && !log.get(n).terminal()) {
                n++;
            }
            if (n > 0) {
                log.subList(0, n).clear();
            }
        }
    }

    void addListener(Runnable listener) {
        listeners.add(listener);
    }

    void removeListener(Runnable listener) {
        listeners.remove(listener);
    }
}
