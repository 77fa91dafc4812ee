package io.spannercs.flink.source.enumerator;

import io.spannercs.flink.source.split.SnapshotSplit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.annotation.Internal;

/**
 * The enumerator's view of a snapshot: which splits wait for a reader, which reader has which, and
 * which have not finished. The stream starts only when every split has finished and (in a job that
 * checkpoints) a completed checkpoint holds that: a reader restored from an earlier checkpoint
 * would otherwise emit snapshot rows again after changes of the same keys. Not thread-safe: used
 * from the coordinator thread only.
 */
@Internal
public final class SnapshotPhase {
    /** Where a snapshot stands. */
    public enum Status {
        /** The source starts without a snapshot. */
        NONE,
        /** The tables are being cut into splits. */
        PLANNING,
        /** Splits are being read. */
        READING,
        /** Every split finished; waiting for a checkpoint to hold that. */
        FINISHING,
        /** The snapshot is complete: the stream may start. */
        DONE
    }

    private Status status;
    private final long snapshotMicros;
    private final Map<String, SnapshotSplit> unassigned = new LinkedHashMap<>();
    private final Map<String, Integer> assigned = new LinkedHashMap<>();
    private final Set<String> unfinished = new LinkedHashSet<>();
    private int total;
    private long rowsPlanned;
    private long rowsDone;
    // FINISHING: the checkpoint whose snapshot first held "every split finished".
    private long finishingCheckpoint = -1;

    private SnapshotPhase(
            Status status,
            long snapshotMicros,
            Collection<SnapshotSplit> unassigned,
            Map<String, Integer> assigned,
            Collection<String> unfinished,
            int total,
            long rowsPlanned,
            long rowsDone) {
        this.status = status;
        this.snapshotMicros = snapshotMicros;
        unassigned.forEach(s -> this.unassigned.put(s.splitId(), s));
        this.assigned.putAll(assigned);
        this.unfinished.addAll(unfinished);
        this.total = total;
        this.rowsPlanned = rowsPlanned;
        this.rowsDone = rowsDone;
    }

    /** The phase a checkpoint holds. */
    static SnapshotPhase restore(SnapshotState s) {
        return new SnapshotPhase(
                s.status(),
                s.snapshotMicros(),
                s.unassigned(),
                s.assigned(),
                s.unfinished(),
                s.total(),
                s.rowsPlanned(),
                s.rowsDone());
    }

    SnapshotState state() {
        return new SnapshotState(
                status,
                snapshotMicros,
                new ArrayList<>(unassigned.values()),
                assigned,
                new ArrayList<>(unfinished),
                total,
                rowsPlanned,
                rowsDone);
    }

    /** The phase of a new source that starts with a snapshot at {@code snapshotMicros}. */
    public static SnapshotPhase planning(long snapshotMicros) {
        return new SnapshotPhase(
                Status.PLANNING, snapshotMicros, List.of(), Map.of(), List.of(), 0, 0, 0);
    }

    public Status status() {
        return status;
    }

    public long snapshotMicros() {
        return snapshotMicros;
    }

    /** Whether the stream may start (or there is no snapshot). */
    public boolean done() {
        return status == Status.NONE || status == Status.DONE;
    }

    /**
     * The planner cut the tables into {@code splits}. With none (no tracked table, only empty
     * tables, or a filter that excludes every table) the snapshot is done at once: there is nothing
     * a restore could read again.
     */
    void planned(List<SnapshotSplit> splits, long rows) {
        splits.forEach(
                s -> {
                    unassigned.put(s.splitId(), s);
                    unfinished.add(s.splitId());
                });
        total = splits.size();
        rowsPlanned = rows;
        status = splits.isEmpty() ? Status.DONE : Status.READING;
    }

    /** Splits waiting for a reader, oldest first. */
    List<SnapshotSplit> unassigned() {
        return new ArrayList<>(unassigned.values());
    }

    /** Unfinished splits a reader has, per reader. */
    Map<Integer, Integer> loads(Collection<Integer> readers) {
        Map<Integer, Integer> loads = new LinkedHashMap<>();
        readers.forEach(r -> loads.put(r, 0));
        assigned.values().forEach(r -> loads.computeIfPresent(r, (k, n) -> n + 1));
        return loads;
    }

    void markAssigned(SnapshotSplit split, int subtask) {
        unassigned.remove(split.splitId());
        assigned.put(split.splitId(), subtask);
    }

    /**
     * A split a failed reader gave back: assigned again from its position.
     *
     * @throws SnapshotRolledBackException if the snapshot was done (see {@link #reopen})
     */
    void returned(SnapshotSplit split) {
        if (!split.finished()) {
            reopen(split.splitId());
            unassigned.put(split.splitId(), split);
        }
        assigned.remove(split.splitId());
    }

    /**
     * A restored reader resumes a split that had not finished in its state: whatever it reported
     * after that state was rolled back.
     *
     * @throws SnapshotRolledBackException if the snapshot was done (see {@link #reopen})
     */
    void resumed(String splitId, int subtask) {
        reopen(splitId);
        assigned.put(splitId, subtask);
        unassigned.remove(splitId);
    }

    /**
     * A split is unfinished again. Once DONE that means the snapshot was completed without a
     * checkpoint holding it (the job had taken none yet) and the stream has started: reading the
     * split again next to the stream could emit a key's snapshot row after its newer changes, so
     * only a restart of the whole job from its last completed checkpoint is safe.
     */
    private void reopen(String splitId) {
        if (unfinished.contains(splitId)) {
            return;
        }
        if (status == Status.DONE) {
            throw new SnapshotRolledBackException(
                    "Snapshot split "
                            + splitId
                            + " comes back from a failed reader after the snapshot had finished and"
                            + " the change stream had started: no completed checkpoint held the"
                            + " finished snapshot yet (it finished before the job's first"
                            + " checkpoint, or the job does not checkpoint). Restarting the whole"
                            + " job from its last completed checkpoint, so that no snapshot row"
                            + " follows a newer change of its key.");
        }
        unfinished.add(splitId);
        if (status == Status.FINISHING) {
            status = Status.READING;
            finishingCheckpoint = -1;
        }
    }

    /**
     * A finished snapshot that no completed checkpoint holds was rolled back by a partial failover:
     * thrown on the coordinator thread, it makes Flink restart the whole job.
     */
    public static final class SnapshotRolledBackException
            extends org.apache.flink.util.FlinkRuntimeException {
        private static final long serialVersionUID = 1L;

        SnapshotRolledBackException(String message) {
            super(message);
        }
    }

    /**
     * @return whether this finished the split (false for a report seen before)
     */
    boolean finished(String splitId, long rows) {
        assigned.remove(splitId);
        if (!unfinished.remove(splitId)) {
            return false;
        }
        rowsDone += rows;
        if (unfinished.isEmpty() && unassigned.isEmpty() && status == Status.READING) {
            status = Status.FINISHING;
        }
        return true;
    }

    /** The enumerator takes a checkpoint; one taken while FINISHING holds every split finished. */
    void snapshotTaken(long checkpointId) {
        if (status == Status.FINISHING && finishingCheckpoint < 0) {
            finishingCheckpoint = checkpointId;
        }
    }

    /**
     * @return whether this completed the snapshot
     */
    boolean checkpointCompleted(long checkpointId) {
        if (status == Status.FINISHING
                && finishingCheckpoint >= 0
                && checkpointId >= finishingCheckpoint) {
            status = Status.DONE;
            return true;
        }
        return false;
    }

    /**
     * Completes a finished snapshot at once, in a job that has not taken a checkpoint (yet): a
     * failover that rolls it back then restarts the whole job (see {@link #reopen}).
     */
    boolean completeWithoutCheckpoint() {
        if (status == Status.FINISHING) {
            status = Status.DONE;
            return true;
        }
        return false;
    }

    Map<String, Integer> assigned() {
        return assigned;
    }

    Set<String> unfinished() {
        return unfinished;
    }

    int total() {
        return total;
    }

    int finishedCount() {
        return total - unfinished.size();
    }

    long rowsPlanned() {
        return rowsPlanned;
    }

    long rowsDone() {
        return rowsDone;
    }

    @Override
    public String toString() {
        return status
                + (status == Status.NONE
                        ? ""
                        : " at "
                                + TimeFormat.micros(snapshotMicros)
                                + ", "
                                + finishedCount()
                                + "/"
                                + total
                                + " splits, "
                                + rowsDone
                                + "/"
                                + rowsPlanned
                                + " rows");
    }
}
