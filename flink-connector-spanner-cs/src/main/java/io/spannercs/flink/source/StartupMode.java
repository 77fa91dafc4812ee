package io.spannercs.flink.source;

import java.io.Serializable;
import java.time.Instant;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Where a new job starts: the change stream from now or from a timestamp, or a snapshot of every
 * table and column the change stream tracks at one timestamp T, then (or not) the stream from T + 1
 * µs. Spanner makes the hand-off exact: a read at T is a consistent snapshot, and the stream after
 * T holds exactly the changes that follow it. A restored job resumes where it was, whatever its
 * startup mode.
 */
@PublicEvolving
public final class StartupMode implements Serializable {
    private static final long serialVersionUID = 1L;

    /** What a startup mode reads. */
    public enum Kind {
        /** The change stream from the moment the job is built. */
        LATEST,
        /** The change stream from a timestamp. */
        TIMESTAMP,
        /** A snapshot at T, then the change stream from T + 1 µs. */
        SNAPSHOT_THEN_STREAM,
        /** A snapshot at T only: a bounded copy of the tables. */
        SNAPSHOT_ONLY
    }

    private final Kind kind;
    private final Instant timestamp;

    private StartupMode(Kind kind, Instant timestamp) {
        this.kind = kind;
        this.timestamp = timestamp;
    }

    /** Changes committed from the moment the job is built (the default). */
    public static StartupMode latest() {
        return new StartupMode(Kind.LATEST, null);
    }

    /** Changes committed from {@code start} (inclusive), within the change stream's retention. */
    public static StartupMode timestamp(Instant start) {
        return new StartupMode(Kind.TIMESTAMP, Objects.requireNonNull(start, "start"));
    }

    /** The tables as they are when the job is built, then every change after that. */
    public static StartupMode snapshotThenStream() {
        return new StartupMode(Kind.SNAPSHOT_THEN_STREAM, null);
    }

    /**
     * The tables as they were at {@code at} (within the database's {@code version_retention_period}
     * for the whole snapshot), then every change after it.
     */
    public static StartupMode snapshotThenStream(Instant at) {
        return new StartupMode(Kind.SNAPSHOT_THEN_STREAM, Objects.requireNonNull(at, "at"));
    }

    /** A bounded copy of the tables as they are when the job is built. */
    public static StartupMode snapshotOnly() {
        return new StartupMode(Kind.SNAPSHOT_ONLY, null);
    }

    /** A bounded copy of the tables as they were at {@code at}. */
    public static StartupMode snapshotOnly(Instant at) {
        return new StartupMode(Kind.SNAPSHOT_ONLY, Objects.requireNonNull(at, "at"));
    }

    public Kind kind() {
        return kind;
    }

    /** The start or snapshot timestamp, or null for the moment the job is built. */
    public Instant timestamp() {
        return timestamp;
    }

    /** Whether the job starts with a snapshot. */
    public boolean snapshots() {
        return kind == Kind.SNAPSHOT_THEN_STREAM || kind == Kind.SNAPSHOT_ONLY;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StartupMode m
                && kind == m.kind
                && Objects.equals(timestamp, m.timestamp);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, timestamp);
    }

    @Override
    public String toString() {
        return kind + (timestamp == null ? "" : "(" + timestamp + ")");
    }
}
