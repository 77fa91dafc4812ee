package io.spannercs.emulator.grpc;

import com.google.spanner.v1.TransactionOptions;
import io.spannercs.emulator.EmulatedDatabase;
import io.spannercs.emulator.storage.Timestamps;

/** Resolves a read-only timestamp bound to a read timestamp. */
final class ReadTimestamps {
    private ReadTimestamps() {}

    static long resolve(TransactionOptions.ReadOnly readOnly, EmulatedDatabase db) {
        long safe = db.database().strongReadMicros();
        switch (readOnly.getTimestampBoundCase()) {
            case READ_TIMESTAMP:
                return Timestamps.toMicros(readOnly.getReadTimestamp());
            case MIN_READ_TIMESTAMP:
                return Math.max(safe, Timestamps.toMicros(readOnly.getMinReadTimestamp()));
            case EXACT_STALENESS:
                return safe - durationMicros(readOnly.getExactStaleness());
            case MAX_STALENESS:
            case STRONG:
            default:
                return safe;
        }
    }

    /** Whether the bound is a strong read (what change stream queries require). */
    static boolean isStrong(TransactionOptions.ReadOnly readOnly) {
        return readOnly.getTimestampBoundCase()
                        == TransactionOptions.ReadOnly.TimestampBoundCase.STRONG
                || readOnly.getTimestampBoundCase()
                        == TransactionOptions.ReadOnly.TimestampBoundCase.TIMESTAMPBOUND_NOT_SET;
    }

    private static long durationMicros(com.google.protobuf.Duration d) {
        return d.getSeconds() * 1_000_000L + d.getNanos() / 1000;
    }
}
