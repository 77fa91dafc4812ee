package io.spannercs.flink.source.enumerator;

import java.time.Instant;

/** Timestamps in microseconds, readable in log messages. */
final class TimeFormat {
    private TimeFormat() {}

    static String micros(long micros) {
        if (micros == Long.MIN_VALUE) {
            return "none";
        }
        if (micros == Long.MAX_VALUE) {
            return "unbounded";
        }
        return Instant.ofEpochSecond(
                        Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000)
                .toString();
    }
}
