package io.spannercs.flink.source.spanner;

import io.spannercs.flink.source.config.SpannerSourceConfig;
import java.time.Duration;
import org.apache.flink.annotation.Internal;

/**
 * Where change stream query windows end. MUTABLE_KEY_RANGE streams need an end timestamp at most 30
 * minutes away (counted from the start by some servers, from the server's clock by others), so an
 * unbounded read is a chain of windows. Every window ends at most 30 minutes after its start and at
 * most {@link #MAX_AHEAD} after now; a query whose start lies further in the future waits on the
 * client until {@link #earliestQueryMicros} instead of being rejected.
 */
@Internal
public final class QueryWindows {
    /** Spanner's limit on a MUTABLE_KEY_RANGE window. */
    public static final Duration MAX_WINDOW = Duration.ofMinutes(30);

    /** How far past the client's clock a window may end: the limit, less a minute for skew. */
    public static final Duration MAX_AHEAD = Duration.ofMinutes(29);

    private static final long MAX_WINDOW_MICROS = MAX_WINDOW.toNanos() / 1000;
    private static final long MAX_AHEAD_MICROS = MAX_AHEAD.toNanos() / 1000;

    /** No window before this one. */
    public static final long NO_PREVIOUS = Long.MIN_VALUE;

    private QueryWindows() {}

    /**
     * The end of the window of a query starting at {@code startMicros}: one window after the later
     * of the start and the previous window's end (a query that resumes from an earlier record than
     * the previous window's end still reaches further than it did, so windows shorter than the
     * heartbeat interval cannot repeat forever), within the limits above and the source's end.
     *
     * @param previousEndMicros the end of the previous window of the same partition, or {@link
     *     #NO_PREVIOUS}
     * @param sourceEndMicros the source's end, or {@link SpannerSourceConfig#NO_END}
     */
    public static long end(
            long startMicros,
            long previousEndMicros,
            Duration window,
            long sourceEndMicros,
            long nowMicros) {
        long base = Math.max(startMicros, previousEndMicros);
        long end = saturatedAdd(base, window.toNanos() / 1000);
        end = Math.min(end, saturatedAdd(startMicros, MAX_WINDOW_MICROS));
        end = Math.min(end, saturatedAdd(nowMicros, MAX_AHEAD_MICROS));
        end = Math.max(end, startMicros);
        return Math.min(end, sourceEndMicros);
    }

    /** The earliest wall-clock time at which a query starting at {@code startMicros} is valid. */
    public static long earliestQueryMicros(long startMicros) {
        return startMicros - MAX_AHEAD_MICROS;
    }

    static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? (b > 0 ? Long.MAX_VALUE : Long.MIN_VALUE) : r;
    }
}
