package io.spannercs.flink.source.enumerator;

import io.spannercs.flink.source.split.PartitionReport;
import io.spannercs.flink.source.split.PartitionSplit;
import java.util.List;
import java.util.Objects;
import org.apache.flink.annotation.Internal;

/**
 * What the enumerator knows about one partition. Immutable: the graph replaces an entry on every
 * change, so a snapshot is a plain copy of the current entries.
 *
 * @param subtask the subtask reading it while {@link PartitionStatus#ASSIGNED}, else {@link
 *     #NO_SUBTASK}; after a restore with another parallelism only a hint
 * @param endMicros the end timestamp once {@link PartitionStatus#FINISHED}, else {@link
 *     #NOT_FINISHED}
 * @param progressMicros the greatest timestamp up to which the partition has emitted every record
 *     (one microsecond before its start until a reader reports more)
 * @param maxMoveOutMicros the latest move-out reported by the partition, or {@link #NO_MOVE_OUT}
 * @param discoverer the subtask whose partition announced it, or {@link #NO_SUBTASK} for root
 *     partitions
 * @param resumeSplit for an unassigned partition given back by a failed reader: the split to assign
 *     again; null otherwise
 */
@Internal
public record PartitionEntry(
        String token,
        long startMicros,
        List<String> parentTokens,
        PartitionStatus status,
        int subtask,
        long endMicros,
        long progressMicros,
        long maxMoveOutMicros,
        int discoverer,
        PartitionSplit resumeSplit) {

    public static final int NO_SUBTASK = -1;
    public static final long NOT_FINISHED = Long.MIN_VALUE;
    public static final long NO_MOVE_OUT = Long.MIN_VALUE;

    public PartitionEntry {
        Objects.requireNonNull(token);
        Objects.requireNonNull(status);
        parentTokens = List.copyOf(parentTokens);
    }

    /** A partition nobody has read yet. */
    static PartitionEntry discovered(PartitionReport.NewPartition p, int discoverer) {
        return new PartitionEntry(
                p.token(),
                p.startMicros(),
                p.parentTokens(),
                PartitionStatus.UNASSIGNED,
                NO_SUBTASK,
                NOT_FINISHED,
                p.startMicros() - 1,
                NO_MOVE_OUT,
                discoverer,
                null);
    }

    boolean finished() {
        return status == PartitionStatus.FINISHED;
    }

    /** The split a reader resumes it from. */
    PartitionSplit split(long sourceEndMicros) {
        return resumeSplit != null
                ? resumeSplit
                : PartitionSplit.fresh(token, startMicros, sourceEndMicros, parentTokens);
    }

    PartitionEntry assignedTo(int reader) {
        return new PartitionEntry(
                token,
                startMicros,
                parentTokens,
                PartitionStatus.ASSIGNED,
                reader,
                endMicros,
                progressMicros,
                maxMoveOutMicros,
                discoverer,
                null);
    }

    PartitionEntry readBy(int reader) {
        return new PartitionEntry(
                token,
                startMicros,
                parentTokens,
                status,
                reader,
                endMicros,
                progressMicros,
                maxMoveOutMicros,
                discoverer,
                resumeSplit);
    }

    /**
     * The partition as a restarted reader resumes it (or, with {@code reader} {@link #NO_SUBTASK},
     * as given back to be assigned again from {@code resumeSplit}): unfinished, with the progress
     * of that position even where this entry knew more, since what was emitted after it has been
     * rolled back with the reader.
     */
    PartitionEntry rewoundTo(long progress, int reader, PartitionSplit resumeSplit) {
        return new PartitionEntry(
                token,
                startMicros,
                parentTokens,
                reader == NO_SUBTASK ? PartitionStatus.UNASSIGNED : PartitionStatus.ASSIGNED,
                reader,
                NOT_FINISHED,
                progress,
                maxMoveOutMicros > progress ? NO_MOVE_OUT : maxMoveOutMicros,
                discoverer,
                resumeSplit);
    }

    PartitionEntry finishedAt(long end) {
        return new PartitionEntry(
                token,
                startMicros,
                parentTokens,
                PartitionStatus.FINISHED,
                subtask,
                end,
                progressMicros,
                maxMoveOutMicros,
                discoverer,
                null);
    }

    PartitionEntry withProgress(long micros) {
        return new PartitionEntry(
                token,
                startMicros,
                parentTokens,
                status,
                subtask,
                endMicros,
                micros,
                maxMoveOutMicros,
                discoverer,
                resumeSplit);
    }

    PartitionEntry withMaxMoveOut(long micros) {
        return new PartitionEntry(
                token,
                startMicros,
                parentTokens,
                status,
                subtask,
                endMicros,
                progressMicros,
                micros,
                discoverer,
                resumeSplit);
    }
}
