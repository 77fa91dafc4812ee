package io.spannercs.emulator.testing;

import com.google.cloud.Timestamp;
import java.time.Instant;

/** Timestamps for tests. */
public final class TestTimes {
    private TestTimes() {}

    /**
     * Now with microsecond precision. {@code TestTimes.now()} has only millisecond precision, so a
     * window ending there can end before a commit made a moment earlier.
     */
    public static Timestamp now() {
        Instant i = Instant.now();
        return Timestamp.ofTimeSecondsAndNanos(i.getEpochSecond(), i.getNano());
    }
}
