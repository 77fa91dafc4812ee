package io.spannercs.flink.source.split;

import io.spannercs.flink.source.record.ChangeRecord;
import io.spannercs.flink.source.record.HeartbeatRecord;
import io.spannercs.flink.source.record.RecordSequences;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.annotation.Internal;

/**
 * How far a partition has been read: the timestamp of the last record handled, and which records at
 * that timestamp have been handled, by {@link ChangeRecord#identity()}.
 *
 * <p>Several transactions may share a commit timestamp and records of one timestamp may arrive in
 * any order, so "every record up to a sequence" does not describe a position; the set of records
 * handled at the last timestamp does. A query restarts at that timestamp and skips exactly those
 * records. That timestamp is always a real record's (never a query window's end): a partition may
 * end inside a window without its end record, and a query starting after its end is rejected.
 *
 * <p>Mutable, owned by one thread; {@link PartitionSplit} keeps an immutable copy.
 */
@Internal
public final class PartitionPosition {
    /**
     * Among the identities: every record at the timestamp has been handled. Only a new split has it
     * (one microsecond before its start), and state restored from the first state layout.
     */
    public static final String ALL = "*";

    private long micros;
    private final Set<String> handled = new LinkedHashSet<>();
    // Version 1 state kept one sequence: every record at the timestamp up to it was handled.
    private String upToSequence;

    public PartitionPosition(long micros, Collection<String> handled, String upToSequence) {
        this.micros = micros;
        this.handled.addAll(handled);
        this.upToSequence = upToSequence;
    }

    /** The position of a partition nothing of which has been read. */
    public static PartitionPosition before(long startMicros) {
        return new PartitionPosition(startMicros - 1, List.of(ALL), null);
    }

    public PartitionPosition copy() {
        return new PartitionPosition(micros, handled, upToSequence);
    }

    /** The timestamp of the last record handled. */
    public long micros() {
        return micros;
    }

    /** Identities of the records handled at {@link #micros()}, sorted. */
    public List<String> handled() {
        List<String> out = new ArrayList<>(handled);
        out.sort(null);
        return List.copyOf(out);
    }

    /** From version 1 state only: every record at the timestamp up to this sequence was handled. */
    public String upToSequence() {
        return upToSequence;
    }

    /** Whether the record is at or before this position: a re-read, to be skipped. */
    public boolean covers(ChangeRecord r) {
        long t = r.timestampMicros();
        if (t != micros) {
            return t < micros;
        }
        if (handled.contains(ALL) || handled.contains(r.identity())) {
            return true;
        }
        return upToSequence != null
                && !(r instanceof HeartbeatRecord)
                && RecordSequences.compare(r.recordSequence(), upToSequence) <= 0;
    }

    /** Notes the record as handled; it is never before the position. */
    public void advance(ChangeRecord r) {
        long t = r.timestampMicros();
        if (t > micros) {
            micros = t;
            handled.clear();
            upToSequence = null;
        } else if (t < micros) {
            throw new IllegalStateException(
                    "Record at " + t + " comes after position " + micros + ": " + r);
        }
        handled.add(r.identity());
    }

    /** Where a query resumes: at the position's timestamp, unless all of it has been handled. */
    public long restartMicros() {
        return handled.contains(ALL) ? micros + 1 : micros;
    }

    /**
     * The greatest timestamp up to which every data record has been handled: the position's
     * timestamp after a heartbeat at it (which covers every data record at or before it), one
     * microsecond before it while more records at it may follow.
     */
    public long progressMicros() {
        return handled.contains(ALL) || handled.contains(HeartbeatRecord.IDENTITY)
                ? micros
                : micros - 1;
    }

    @Override
    public String toString() {
        return micros + "/" + handled.size() + (upToSequence == null ? "" : "<=" + upToSequence);
    }
}
