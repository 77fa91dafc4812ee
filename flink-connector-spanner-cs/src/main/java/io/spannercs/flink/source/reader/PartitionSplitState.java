package io.spannercs.flink.source.reader;

import io.spannercs.flink.source.event.SplitsResumedEvent;
import io.spannercs.flink.source.record.ChangeRecord;
import io.spannercs.flink.source.split.PartitionPosition;
import io.spannercs.flink.source.split.PartitionSplit;
import java.util.List;
import org.apache.flink.annotation.Internal;

/** The mutable state of a split being read, owned by the reader's task thread. */
@Internal
public final class PartitionSplitState extends SplitState {
    private final PartitionSplit initial;
    private final PartitionPosition position;
    private long barrierMicros;
    private List<String> barrierSources;
    // The latest move-out seen since the split was added (not checkpointed: for local barriers).
    private long maxMoveOutMicros = Long.MIN_VALUE;

    public PartitionSplitState(PartitionSplit split) {
        super(split.pendingReports(), split.finished());
        this.initial = split;
        this.position = split.position();
        this.barrierMicros = split.barrierMicros();
        this.barrierSources = split.barrierSources();
    }

    @Override
    public String token() {
        return initial.token();
    }

    /** Marks the record as emitted (or handled, for partition records). */
    void advance(ChangeRecord record) {
        position.advance(record);
    }

    /** See {@link PartitionSplit#progressOf}. */
    @Override
    long progressMicros() {
        return PartitionSplit.progressOf(position, barrierMicros);
    }

    /** The partition moved key ranges out at {@code micros}. */
    void movedOut(long micros) {
        maxMoveOutMicros = Math.max(maxMoveOutMicros, micros);
    }

    /** The latest move-out this reader saw, or {@code Long.MIN_VALUE}. */
    long maxMoveOutMicros() {
        return maxMoveOutMicros;
    }

    void block(long micros, List<String> sources) {
        barrierMicros = micros;
        barrierSources = List.copyOf(sources);
    }

    /** Clears the barrier if it is the one at {@code micros}. */
    boolean release(long micros) {
        if (barrierMicros == micros) {
            barrierMicros = PartitionSplit.NO_BARRIER;
            barrierSources = List.of();
            return true;
        }
        return false;
    }

    long barrierMicros() {
        return barrierMicros;
    }

    /** Where this partition resumes, for the enumerator. */
    SplitsResumedEvent.ResumedSplit resumed() {
        return new SplitsResumedEvent.ResumedSplit(
                initial.token(),
                initial.startMicros(),
                initial.parentTokens(),
                progressMicros(),
                barrierMicros,
                barrierSources,
                finished());
    }

    @Override
    public PartitionSplit toSplit() {
        return new PartitionSplit(
                initial.token(),
                initial.startMicros(),
                initial.endMicros(),
                initial.parentTokens(),
                position,
                barrierMicros,
                barrierSources,
                pendingReports(),
                finished());
    }
}
