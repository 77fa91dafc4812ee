package io.spannercs.flink.source.reader;

import io.spannercs.flink.source.split.PartitionSplit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.SimpleCounter;

/**
 * Move-in barriers this reader can decide alone: when every source partition of a barrier is read
 * (or was finished) by this reader, the reader's own split states tell whether the sources have
 * reached it, by the enumerator's rule (finished, moved out at or after the barrier, or progress at
 * or past it). Such a barrier is released here, at once or once the sources get there, without the
 * report to the enumerator and the release event back: at parallelism 1 every barrier is decided
 * here, which was two operator events per key-range move.
 *
 * <p>A barrier with a source elsewhere (another reader, not assigned yet, or finished before this
 * reader instance started) goes to the enumerator as before. A source that itself waits at a
 * barrier is left to the enumerator too, so a local wait never depends on another wait. A split
 * held here keeps its barrier in its state: a checkpoint taken meanwhile restores it as waiting,
 * and the restored reader hands it to the enumerator with the split.
 *
 * <p>Task thread only.
 */
@Internal
final class LocalBarriers {
    /** Partitions this reader finished that it remembers as sources; older ones ask. */
    static final int REMEMBERED_FINISHED = 10_000;

    /** What became of a barrier the reader reached. */
    enum Outcome {
        /** Every source has reached it: released already. */
        RELEASED,
        /** Every source is read here and will reach it: released here once they have. */
        HELD,
        /** A source is read elsewhere or waits itself: the enumerator decides. */
        ASK_ENUMERATOR
    }

    private record Held(PartitionSplitState child, long micros, List<String> sources) {}

    private final Map<String, SplitState> states;
    private final ReaderSharedState shared;
    private final Map<String, Held> held = new LinkedHashMap<>();
    private final Set<String> finishedHere =
            Collections.newSetFromMap(
                    new LinkedHashMap<>() {
                        @Override
                        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                            return size() > REMEMBERED_FINISHED;
                        }
                    });
    private final Counter releasedHere = new SimpleCounter();

    /**
     * @param states the reader's unfinished splits by token (read, never changed here)
     */
    LocalBarriers(Map<String, SplitState> states, ReaderSharedState shared) {
        this.states = states;
        this.shared = shared;
    }

    /** The child reached its barrier at {@code micros}, which waits for {@code sources}. */
    Outcome reached(PartitionSplitState child, long micros, List<String> sources) {
        boolean allReached = true;
        for (String source : sources) {
            Boolean reached = reachedHere(source, micros);
            if (reached == null) {
                return Outcome.ASK_ENUMERATOR;
            }
            allReached &= reached;
        }
        if (allReached) {
            releasedHere.inc();
            shared.releaseBarrier(child.token(), micros); // wakes the fetcher that stopped there
            return Outcome.RELEASED;
        }
        held.put(child.token(), new Held(child, micros, List.copyOf(sources)));
        return Outcome.HELD;
    }

    /**
     * Whether the source has reached {@code micros}, or null when this reader cannot tell: not read
     * here, or waiting at a barrier of its own.
     */
    private Boolean reachedHere(String source, long micros) {
        SplitState s = states.get(source);
        if (s == null) {
            return finishedHere.contains(source) ? Boolean.TRUE : null;
        }
        if (!(s instanceof PartitionSplitState p)) {
            return null;
        }
        if (p.finished() || p.maxMoveOutMicros() >= micros || p.progressMicros() >= micros) {
            return Boolean.TRUE;
        }
        return p.barrierMicros() == PartitionSplit.NO_BARRIER ? Boolean.FALSE : null;
    }

    /** A partition this reader read has finished: it counts as a source that reached anything. */
    void finished(String token) {
        finishedHere.add(token);
    }

    /**
     * Releases the held barriers whose sources have all reached them (after each poll: sources
     * advance only while records are emitted).
     *
     * @return whether any was released
     */
    boolean releaseReached() {
        if (held.isEmpty()) {
            return false;
        }
        List<Held> released = new ArrayList<>();
        for (Iterator<Held> it = held.values().iterator(); it.hasNext(); ) {
            Held h = it.next();
            if (allReached(h)) {
                it.remove();
                released.add(h);
            }
        }
        for (Held h : released) {
            h.child().release(h.micros());
            releasedHere.inc();
            shared.releaseBarrier(h.child().token(), h.micros());
        }
        return !released.isEmpty();
    }

    private boolean allReached(Held h) {
        for (String source : h.sources()) {
            if (!Boolean.TRUE.equals(reachedHere(source, h.micros()))) {
                return false;
            }
        }
        return true;
    }

    /** Barriers held here now. */
    int heldCount() {
        return held.size();
    }

    /** Barriers released without the enumerator. */
    Counter releasedHere() {
        return releasedHere;
    }
}
