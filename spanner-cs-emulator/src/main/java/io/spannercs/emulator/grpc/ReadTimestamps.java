package io.spannercs.emulator.grpc;

import com.google.spanner.v1.TransactionOptions;
import io.grpc.Context;
import io.grpc.Status;
import io.spannercs.emulator.EmulatedDatabase;
import io.spannercs.emulator.storage.Database;
import io.spannercs.emulator.storage.Timestamps;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Resolves a read-only timestamp bound to a read timestamp, as Spanner does:
 *
 * <ul>
 *   <li>a timestamp older than the database's {@code earliest_version_time} (its creation, or now
 *       minus its {@code version_retention_period}) fails with {@code FAILED_PRECONDITION} {@code
 *       Read-only transaction timestamp <T> has exceeded the maximum timestamp staleness};
 *   <li>a timestamp in the future makes the read wait until the clock passes it; more than one hour
 *       ahead fails at once with {@code DEADLINE_EXCEEDED}, as it would time out;
 *   <li>a read at a timestamp is repeatable: no commit lands at or before it afterwards.
 * </ul>
 */
final class ReadTimestamps {
    /** Reads further ahead than this fail at once, as they would outlive Spanner's deadline. */
    static final long MAX_FUTURE_MICROS = 3_600_000_000L;

    private static final DateTimeFormatter SECONDS =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss").withZone(ZoneOffset.UTC);

    private ReadTimestamps() {}

    /** For a read or query now: checks that the timestamp can still be read. */
    static long resolve(TransactionOptions.ReadOnly readOnly, EmulatedDatabase db) {
        return resolve(readOnly, db, true);
    }

    /**
     * @param checkReadable false for BeginTransaction: like Google's emulator, a transaction may
     *     begin at a timestamp past the retention period; its reads fail
     */
    static long resolve(
            TransactionOptions.ReadOnly readOnly, EmulatedDatabase db, boolean checkReadable) {
        Database d = db.database();
        switch (readOnly.getTimestampBoundCase()) {
            case READ_TIMESTAMP:
                return exact(Timestamps.toMicros(readOnly.getReadTimestamp()), d, checkReadable);
            case MIN_READ_TIMESTAMP:
                {
                    long min = Timestamps.toMicros(readOnly.getMinReadTimestamp());
                    checkNotTooFar(min);
                    awaitClock(min);
                    return d.strongReadMicros();
                }
            case EXACT_STALENESS:
                {
                    long t = d.strongReadMicros() - durationMicros(readOnly.getExactStaleness());
                    if (checkReadable) {
                        checkReadable(t, d);
                    }
                    return t;
                }
            case MAX_STALENESS:
            case STRONG:
            default:
                return d.strongReadMicros();
        }
    }

    /** A read at exactly {@code atMicros}: checked, waited for, and made repeatable. */
    static long exact(long atMicros, Database d, boolean checkReadable) {
        if (atMicros < 0) {
            throw Status.INVALID_ARGUMENT
                    .withDescription("Invalid exact read timestamp: " + format(atMicros))
                    .asRuntimeException();
        }
        if (checkReadable) {
            checkReadable(atMicros, d);
        }
        checkNotTooFar(atMicros);
        awaitClock(atMicros);
        d.publishReadTimestamp(atMicros);
        return atMicros;
    }

    /**
     * Fails with Spanner's {@code FAILED_PRECONDITION} when a read at the timestamp is no longer
     * possible (also for a read-only transaction that outlived the retention period).
     */
    static void checkReadable(long atMicros, Database d) {
        if (atMicros < d.earliestVersionMicros()) {
            throw tooOld(atMicros);
        }
    }

    private static io.grpc.StatusRuntimeException tooOld(long atMicros) {
        return Status.FAILED_PRECONDITION
                .withDescription(
                        "Read-only transaction timestamp "
                                + format(atMicros)
                                + " has exceeded the maximum timestamp staleness")
                .asRuntimeException();
    }

    /**
     * The table's rows at a checked timestamp; if old versions were pruned past it meanwhile (the
     * timestamp reached the edge of the retention period), the read fails as too old.
     */
    static java.util.List<java.util.List<com.google.protobuf.Value>> rowsAt(
            Database d, String table, long atMicros) {
        return rowsAt(d, table, atMicros, null);
    }

    /** As {@link #rowsAt(Database, String, long)}, only the rows whose keys the set names. */
    static java.util.List<java.util.List<com.google.protobuf.Value>> rowsAt(
            Database d,
            String table,
            long atMicros,
            io.spannercs.emulator.storage.KeySetMatcher keys) {
        try {
            return d.read(table, atMicros, keys);
        } catch (IllegalArgumentException e) {
            throw tooOld(atMicros);
        }
    }

    private static void checkNotTooFar(long atMicros) {
        if (atMicros > Timestamps.nowMicros() + MAX_FUTURE_MICROS) {
            throw Status.DEADLINE_EXCEEDED
                    .withDescription(
                            "Read-only transaction timestamp "
                                    + format(atMicros)
                                    + " is more than 1 hour in future. This request will execute"
                                    + " for longer than the configured Cloud Spanner server"
                                    + " deadline of 1 hour and will return with the"
                                    + " DEADLINE_EXCEEDED error.")
                    .asRuntimeException();
        }
    }

    /** Waits until the clock has passed the timestamp, as Spanner blocks reads in the future. */
    private static void awaitClock(long atMicros) {
        while (true) {
            long wait = atMicros - Timestamps.nowMicros();
            if (wait < 0) {
                return;
            }
            if (Context.current().isCancelled()) {
                throw Status.CANCELLED
                        .withDescription("Read cancelled while waiting for its timestamp")
                        .asRuntimeException();
            }
            try {
                Thread.sleep(Math.min(100, wait / 1000 + 1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw Status.CANCELLED.withDescription("Interrupted").asRuntimeException();
            }
        }
    }

    /**
     * A timestamp as Spanner's messages write it: {@code 2026-01-01T10:00:00.123456+00:00} (the
     * fraction only when there is one, without trailing zeros).
     */
    static String format(long micros) {
        Instant at = Timestamps.toInstant(micros);
        StringBuilder sb = new StringBuilder(SECONDS.format(at));
        long fraction = Math.floorMod(micros, 1_000_000L);
        if (fraction != 0) {
            String digits = String.format("%06d", fraction);
            sb.append('.').append(digits.replaceAll("0+$", ""));
        }
        return sb.append("+00:00").toString();
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
