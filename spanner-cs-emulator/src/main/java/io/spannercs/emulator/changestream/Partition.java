package io.spannercs.emulator.changestream;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

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

    void append(LogEntry entry) {
        synchronized (log) {
            log.add(entry);
        }
        for (Runnable l : listeners) {
            l.run();
        }
    }

    /** The first entry after the position with a timestamp at most {@code maxMicros}, or null. */
    LogEntry next(long posMicros, long posSequence, long maxMicros) {
        synchronized (log) {
            int lo = 0;
            int hi = log.size();
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (log.get(mid).after(posMicros, posSequence)) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            if (lo < log.size()) {
                LogEntry e = log.get(lo);
                if (e.micros() <= maxMicros) {
                    return e;
                }
            }
            return null;
        }
    }

    /** The terminal entry, if the partition has ended. */
    LogEntry terminalEntry() {
        synchronized (log) {
            if (!log.isEmpty() && log.get(log.size() - 1).terminal()) {
                return log.get(log.size() - 1);
            }
            return null;
        }
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
