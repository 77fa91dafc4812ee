package io.spannercs.flink.source.event;

import java.io.Serializable;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * Reader to enumerator, carried by the {@link ReaderReportsEvent} a reader sends when splits are
 * added to it (assigned, or restored from a checkpoint): where each partition resumes. After a
 * failover the enumerator's own view may be ahead of a restored reader (Flink restores readers, not
 * the enumerator, when only some tasks restart); these positions bring it back, so barriers and
 * child partitions wait for records that will be emitted again.
 */
@Internal
public record SplitsResumedEvent(List<ResumedSplit> splits, List<String> unfinishedSnapshotSplits)
        implements Serializable {
    public SplitsResumedEvent {
        splits = List.copyOf(splits);
        unfinishedSnapshotSplits = List.copyOf(unfinishedSnapshotSplits);
    }

    /** Partitions only. */
    public SplitsResumedEvent(List<ResumedSplit> splits) {
        this(splits, List.of());
    }

    /**
     * One partition as a reader resumes it.
     *
     * @param progressMicros the greatest timestamp up to which it has emitted every record
     * @param barrierMicros the move-in it waits at, or {@code PartitionSplit.NO_BARRIER}
     * @param finished whether it ended already (kept only for unacknowledged reports)
     */
    public record ResumedSplit(
            String token,
            long startMicros,
            List<String> parentTokens,
            long progressMicros,
            long barrierMicros,
            List<String> barrierSources,
            boolean finished)
            implements Serializable {
        public ResumedSplit {
            parentTokens = List.copyOf(parentTokens);
            barrierSources = List.copyOf(barrierSources);
        }
    }
}
