package io.spannercs.emulator.storage;

import com.google.protobuf.Timestamp;
import java.time.Instant;

/** Conversions for the emulator's clock, which counts microseconds since the epoch. */
public final class Timestamps {
    private Timestamps() {}

    public static Instant toInstant(long micros) {
        return Instant.ofEpochSecond(
                Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
    }

    public static long toMicros(Instant instant) {
        return Math.addExact(
                Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
    }

    public static Timestamp toProto(long micros) {
        return Timestamp.newBuilder()
                .setSeconds(Math.floorDiv(micros, 1_000_000L))
                .setNanos((int) (Math.floorMod(micros, 1_000_000L) * 1000L))
                .build();
    }

    public static long toMicros(Timestamp ts) {
        return ts.getSeconds() * 1_000_000L + ts.getNanos() / 1000;
    }

    public static long nowMicros() {
        return toMicros(Instant.now());
    }
}
