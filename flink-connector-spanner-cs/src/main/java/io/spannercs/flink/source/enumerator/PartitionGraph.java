package io.spannercs.flink.source.enumerator;

import io.spannercs.flink.source.event.SplitsResumedEvent;
import io.spannercs.flink.source.split.PartitionReport;
import io.spannercs.flink.source.split.PartitionSplit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The enumerator's model of a change stream: known partitions, pending barriers, recently pruned
 * partitions and the low watermark. It only records facts and answers questions; the enumerator
 * decides what to send. Not thread-safe: used from the coordinator thread only.
 */
final class PartitionGraph {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionGraph.class);

    /**
     * How long, in stream time, a pruned token is remembered after its end.
     *
     * <p>Strictly, nothing live can name a pruned partition: a partition is pruned only when its
     * end is below the low watermark, while a pending barrier at T caps the low watermark below T
     * and names only sources alive at T (so their end is at least T), and an unfinished child keeps
     * its parents. What can name one is a report re-sent after a restore; such reports are kept
     * only until acknowledged, i.e. for about a checkpoint interval. The pruned set lets those be
     * recognised as settled instead of as partitions never seen; an hour of stream time covers any
     * sane checkpoint interval while keeping the set bounded.
     */
    static final long PRUNED_TOKEN_RETENTION_MICROS = Duration.ofHours(1).toNanos() / 1000;

    private static final Comparator<PartitionEntry> ASSIGNMENT_ORDER =
            Comparator.comparingLong(PartitionEntry::startMicros)
                    .thenComparing(PartitionEntry::token);

    /** What became of a partition announced by a reader. */
    enum Discovery {
        ADDED,
        ALREADY_KNOWN,
        /** Pruned, or starts below the low watermark: a re-sent report of a finished one. */
        STALE
    }

    private final Map<String, PartitionEntry> partitions = new LinkedHashMap<>();
    private final Map<String, PendingBarrier> barriers = new LinkedHashMap<>();
    private final Map<String, Long> prunedEndMicros = new LinkedHashMap<>();
    // At most the earliest end in prunedEndMicros: until the retention horizon passes it, nothing
    // expires, and the set (thousands of tokens after a long catch-up) is not walked.
    private long earliestPrunedEndMicros = Long.MAX_VALUE;
    // Children waiting for a parent this source has not seen: since when, and whether warned.
    private final Map<String, Long> orphansSince = new HashMap<>();
    private final Set<String> warnedOrphans = new HashSet<>();

    /**
     * A child waits this long for an unknown parent before a warning: while catching up, the
     * partition that announces the parent is often read behind the child's other parent.
     */
    static final long ORPHAN_WARN_MILLIS = 60_000;

    /**
     * Assigned partitions restored from a checkpoint whose reader has not reported yet. With
     * another parallelism Flink hands reader state to other subtasks, so a release sent to the
     * checkpointed subtask could be lost; releases wait until the reader is known.
     */
    private final Set<String> unconfirmedReaders = new HashSet<>();

    /**
     * Partitions of a restarting reader that has not said yet where they resume: their progress
     * here may include records that were rolled back, so they reach no barrier meanwhile.
     */
    private final Set<String> awaitingResume = new HashSet<>();

    private boolean rootQueryDone;
    private long lowWatermarkMicros;
    // A rewind lowered (or the snapshot raised) the low watermark since it was last published.
    private boolean lowered;

    private PartitionGraph(boolean rootQueryDone, long lowWatermarkMicros) {
        this.rootQueryDone = rootQueryDone;
        this.lowWatermarkMicros = lowWatermarkMicros;
    }

    /** Rebuilds the graph; restored barriers start their wait at {@code nowMillis}. */
    static PartitionGraph restore(ChangeStreamEnumeratorState state, long nowMillis) {
        PartitionGraph g = new PartitionGraph(state.rootQueryDone(), state.lowWatermarkMicros());
        for (PartitionEntry p : state.partitions()) {
            g.partitions.put(p.token(), p);
            if (p.status() == PartitionStatus.ASSIGNED) {
                g.unconfirmedReaders.add(p.token());
            }
        }
        state.barriers()
                .forEach(
                        b ->
                                g.barriers.put(
                                        b.token(),
                                        new PendingBarrier(
                                                b, PartitionEntry.NO_SUBTASK, nowMillis)));
        g.prunedEndMicros.putAll(state.prunedEndMicros());
        g.earliestPrunedEndMicros = earliest(g.prunedEndMicros);
        return g;
    }

    ChangeStreamEnumeratorState snapshot() {
        List<BarrierEntry> pending = new ArrayList<>(barriers.size());
        barriers.values().forEach(b -> pending.add(b.entry()));
        return new ChangeStreamEnumeratorState(
                rootQueryDone,
                lowWatermarkMicros,
                new ArrayList<>(partitions.values()),
                pending,
                prunedEndMicros);
    }

    // ---------------------------------------------------------------- queries

    boolean rootQueryDone() {
        return rootQueryDone;
    }

    void markRootQueryDone() {
        rootQueryDone = true;
    }

    boolean isEmpty() {
        return partitions.isEmpty();
    }

    PartitionEntry get(String token) {
        return partitions.get(token);
    }

    Collection<PartitionEntry> partitions() {
        return partitions.values();
    }

    Collection<PendingBarrier> barriers() {
        return barriers.values();
    }

    int prunedCount() {
        return prunedEndMicros.size();
    }

    long lowWatermarkMicros() {
        return lowWatermarkMicros;
    }

    long count(PartitionStatus status) {
        return partitions.values().stream().filter(p -> p.status() == status).count();
    }

    /** Whether the root query ran, every partition finished and no barrier waits. */
    boolean allFinished() {
        return rootQueryDone
                && barriers.isEmpty()
                && partitions.values().stream().allMatch(PartitionEntry::finished);
    }

    // ---------------------------------------------------------------- partitions

    Discovery discover(PartitionReport.NewPartition p, int discoverer) {
        if (partitions.containsKey(p.token())) {
            return Discovery.ALREADY_KNOWN;
        }
        // An unfinished partition caps the low watermark below its start, so a partition
        // starting below it has finished and been pruned already. Not one starting at it: its
        // parent may have sent a heartbeat at that time before announcing it, which raised the
        // low watermark to it (a heartbeat covers data records, not partition records).
        if (prunedEndMicros.containsKey(p.token()) || p.startMicros() < lowWatermarkMicros) {
            return Discovery.STALE;
        }
        partitions.put(p.token(), PartitionEntry.discovered(p, discoverer));
        return Discovery.ADDED;
    }

    void markAssigned(String token, int subtask) {
        partitions.computeIfPresent(token, (t, p) -> p.assignedTo(subtask));
        warnedOrphans.remove(token);
        orphansSince.remove(token);
        unconfirmedReaders.remove(token);
    }

    /**
     * Puts a split a failed reader gave back into the pool, to be assigned again from its position.
     * Flink gives back the splits assigned after the reader's last completed checkpoint: whatever
     * the reader did with them was rolled back with it, so the partition is read again even if it
     * was reported finished (or pruned) meanwhile.
     *
     * @return false only for a split that had finished in the reader's own state
     */
    boolean returnSplit(PartitionSplit split, long nowMillis) {
        if (split.finished()) {
            return false;
        }
        PartitionEntry p =
                knownOrRecreated(split.token(), split.startMicros(), split.parentTokens());
        partitions.put(
                p.token(), p.rewoundTo(split.progressMicros(), PartitionEntry.NO_SUBTASK, split));
        lowerLowWatermarkTo(split.progressMicros());
        awaitingResume.remove(p.token());
        unconfirmedReaders.remove(p.token());
        rewindBarrier(
                p.token(),
                split.progressMicros(),
                split.barrierMicros(),
                split.barrierSources(),
                PartitionEntry.NO_SUBTASK,
                nowMillis);
        return true;
    }

    /**
     * A reader of {@code subtask} restarts from its last completed checkpoint: until it says where
     * its partitions resume, what this graph knows of them may be ahead of what stays emitted, so
     * they count as not having reached any barrier and as not finished for their children. That
     * holds for the partitions assigned to it and for those it finished since that checkpoint.
     */
    void readerRestarting(int subtask, Collection<String> finishedSinceCheckpoint) {
        for (PartitionEntry p : partitions.values()) {
            if (p.status() == PartitionStatus.ASSIGNED && p.subtask() == subtask) {
                awaitingResume.add(p.token());
            }
        }
        awaitingResume.addAll(finishedSinceCheckpoint);
    }

    /**
     * A reader of {@code subtask} resumes a partition from the given position: the graph goes back
     * to it (unfinished, the progress of the position, the barrier the split waits at), since
     * whatever the partition emitted after it was rolled back. Its reports are sent again and its
     * records re-read, so nothing learned is lost; children and barriers that depended on the
     * rolled-back part wait again.
     */
    void resume(int subtask, SplitsResumedEvent.ResumedSplit split, long nowMillis) {
        awaitingResume.remove(split.token());
        unconfirmedReaders.remove(split.token());
        if (split.finished()) {
            // Only its unacknowledged reports remain; they are sent again and applied as usual.
            return;
        }
        PartitionEntry p =
                knownOrRecreated(split.token(), split.startMicros(), split.parentTokens());
        if (p.finished() || p.progressMicros() > split.progressMicros()) {
            LOG.info(
                    "Partition {} resumes on subtask {} from {}: reading it again from there",
                    PartitionNames.of(split.token()),
                    subtask,
                    TimeFormat.micros(split.progressMicros()));
        }
        partitions.put(p.token(), p.rewoundTo(split.progressMicros(), subtask, null));
        lowerLowWatermarkTo(split.progressMicros());
        rewindBarrier(
                p.token(),
                split.progressMicros(),
                split.barrierMicros(),
                split.barrierSources(),
                subtask,
                nowMillis);
    }

    /** The pending barrier of a rewound partition: the one its split waits at, if any. */
    private void rewindBarrier(
            String token,
            long progressMicros,
            long barrierMicros,
            List<String> barrierSources,
            int reporter,
            long nowMillis) {
        PendingBarrier pending = barriers.get(token);
        if (barrierMicros != PartitionSplit.NO_BARRIER) {
            if (pending != null && pending.micros() == barrierMicros) {
                pending.reportedAgainBy(reporter);
            } else {
                barriers.put(
                        token,
                        new PendingBarrier(
                                new BarrierEntry(token, barrierMicros, barrierSources),
                                reporter,
                                nowMillis));
            }
        } else if (pending != null) {
            // The split does not wait: a barrier it reaches again is reported again. (Kept, it
            // would say the partition had emitted everything up to it: see hasReached.)
            barriers.remove(token);
        }
    }

    private PartitionEntry knownOrRecreated(String token, long startMicros, List<String> parents) {
        PartitionEntry p = partitions.get(token);
        if (p == null) {
            prunedEndMicros.remove(token);
            p =
                    PartitionEntry.discovered(
                            new PartitionReport.NewPartition(token, startMicros, parents),
                            PartitionEntry.NO_SUBTASK);
        }
        return p;
    }

    /**
     * @return true if this finished the partition (false when known finished, or unknown)
     */
    boolean finish(String token, long endMicros) {
        PartitionEntry p = partitions.get(token);
        if (p == null || p.finished()) {
            return false;
        }
        partitions.put(token, p.finishedAt(endMicros));
        barriers.remove(token);
        unconfirmedReaders.remove(token);
        return true;
    }

    void progress(String token, long micros) {
        PartitionEntry p = partitions.get(token);
        if (p != null && !p.finished() && micros > p.progressMicros()) {
            partitions.put(token, p.withProgress(micros));
        }
    }

    void movedOut(String token, long micros) {
        PartitionEntry p = partitions.get(token);
        if (p != null && micros > p.maxMoveOutMicros()) {
            partitions.put(token, p.withMaxMoveOut(micros));
        }
    }

    /**
     * Notes that {@code subtask} reported on an assigned partition: after a restore with another
     * parallelism the checkpointed subtask is only a guess, the reporting one is the reader.
     */
    void readBy(String token, int subtask) {
        PartitionEntry p = partitions.get(token);
        if (p == null || p.status() != PartitionStatus.ASSIGNED) {
            return;
        }
        unconfirmedReaders.remove(token);
        if (p.subtask() != subtask) {
            LOG.debug("Partition {} is read by subtask {} (was {})", token, subtask, p.subtask());
            partitions.put(token, p.readBy(subtask));
        }
    }

    /**
     * Unassigned partitions, oldest first; with {@code waitForParents}, only those whose parents
     * have all finished.
     */
    List<PartitionEntry> readyToAssign(boolean waitForParents, long nowMillis) {
        List<PartitionEntry> ready = new ArrayList<>();
        for (PartitionEntry p : partitions.values()) {
            if (p.status() == PartitionStatus.UNASSIGNED
                    && (!waitForParents || parentsFinished(p, nowMillis))) {
                ready.add(p);
            }
        }
        ready.sort(ASSIGNMENT_ORDER);
        return ready;
    }

    /** Legacy children start only after all parents ended: that keeps per-key order. */
    private boolean parentsFinished(PartitionEntry child, long nowMillis) {
        for (String parent : child.parentTokens()) {
            if (awaitingResume.contains(parent)) {
                return false;
            }
            PartitionEntry p = partitions.get(parent);
            if (p == null && prunedEndMicros.containsKey(parent)) {
                continue;
            }
            if (p == null) {
                waitsForUnknownParent(child.token(), parent, nowMillis);
                return false;
            }
            if (!p.finished()) {
                return false;
            }
        }
        return true;
    }

    private void waitsForUnknownParent(String child, String parent, long nowMillis) {
        Long since = orphansSince.putIfAbsent(child, nowMillis);
        if (since == null) {
            LOG.debug(
                    "Partition {} waits for parent {}, which this source has not discovered yet",
                    child,
                    parent);
        } else if (nowMillis - since >= ORPHAN_WARN_MILLIS && warnedOrphans.add(child)) {
            LOG.warn(
                    "Partition {} has waited {} s for parent {}, which this source has never seen;"
                            + " it stays unassigned until a partition read by this source"
                            + " announces that parent",
                    child,
                    (nowMillis - since) / 1000,
                    parent);
        }
    }

    /** Unfinished partitions per reader, counting only the given readers. */
    Map<Integer, Integer> loads(Collection<Integer> readers) {
        Map<Integer, Integer> loads = new HashMap<>();
        readers.forEach(r -> loads.put(r, 0));
        for (PartitionEntry p : partitions.values()) {
            if (p.status() == PartitionStatus.ASSIGNED) {
                loads.computeIfPresent(p.subtask(), (r, n) -> n + 1);
            }
        }
        return loads;
    }

    // ---------------------------------------------------------------- barriers

    /**
     * Whether the partition is already past a barrier at {@code micros}: finished, pruned, or known
     * to have emitted data after it. A split blocked at T reports at most T - 1, so this holds only
     * for a BarrierReached report re-sent after the barrier was released. Progress of exactly T is
     * not past it: a heartbeat at T may come before the move-in at T (Spanner sends partition
     * records after a heartbeat of their timestamp), and a heartbeat covers data records only.
     */
    boolean isPast(String token, long micros) {
        PartitionEntry p = partitions.get(token);
        if (p == null) {
            return prunedEndMicros.containsKey(token);
        }
        return p.finished() || p.progressMicros() > micros;
    }

    /** Records a barrier; the same barrier reported again keeps its waiting time. */
    void addBarrier(PartitionReport.BarrierReached b, int reporter, long nowMillis) {
        PendingBarrier old = barriers.get(b.token());
        if (old != null && old.micros() == b.micros()) {
            old.reportedAgainBy(reporter);
            return;
        }
        barriers.put(
                b.token(),
                new PendingBarrier(
                        new BarrierEntry(b.token(), b.micros(), b.sources()), reporter, nowMillis));
    }

    void removeBarrier(String token) {
        barriers.remove(token);
    }

    /** Barriers whose every source has processed all records up to the barrier. */
    List<PendingBarrier> satisfiedBarriers() {
        List<PendingBarrier> out = new ArrayList<>();
        for (PendingBarrier b : barriers.values()) {
            if (missingSources(b).isEmpty()) {
                out.add(b);
            }
        }
        return out;
    }

    /** The sources of a barrier that have not reached it yet. */
    List<String> missingSources(PendingBarrier b) {
        List<String> missing = new ArrayList<>();
        for (String s : b.sources()) {
            if (!hasReached(s, b.micros())) {
                missing.add(s);
                if (!partitions.containsKey(s) && b.firstTimeUnknown(s)) {
                    // Normal while catching up: the partition that announces it is read behind.
                    LOG.debug(
                            "Partition {} waits at {} for source partition {}, which this source"
                                    + " has not discovered yet",
                            b.token(),
                            TimeFormat.micros(b.micros()),
                            s);
                }
            }
        }
        return missing;
    }

    private boolean hasReached(String source, long micros) {
        if (awaitingResume.contains(source)) {
            return false;
        }
        PartitionEntry s = partitions.get(source);
        if (s == null) {
            // Pruned means finished; a token never seen may still be discovered and must wait.
            return prunedEndMicros.containsKey(source);
        }
        // A source waiting at a barrier of its own has emitted every record up to it (a split
        // stops after the partition records of the barrier's timestamp): two partitions that
        // swapped ranges at T and were restored waiting there, with their move-outs acknowledged
        // before the checkpoint, release each other so.
        PendingBarrier own = barriers.get(source);
        return s.finished()
                || s.maxMoveOutMicros() >= micros
                || s.progressMicros() >= micros
                || (own != null && own.micros() >= micros);
    }

    /**
     * The subtask to send a barrier's release to, or {@link PartitionEntry#NO_SUBTASK} while no
     * reader is known for sure (unassigned, or restored and not heard from yet).
     */
    int releaseTarget(PendingBarrier b) {
        PartitionEntry p = partitions.get(b.token());
        if (p == null) {
            return b.reporter();
        }
        return p.status() == PartitionStatus.ASSIGNED && !unconfirmedReaders.contains(p.token())
                ? p.subtask()
                : PartitionEntry.NO_SUBTASK;
    }

    // ---------------------------------------------------------------- watermark and pruning

    /** Raises the low watermark to at least {@code micros} (a snapshot holds it below its time). */
    void raiseLowWatermark(long micros) {
        if (micros > lowWatermarkMicros) {
            lowWatermarkMicros = micros;
            lowered = true; // changed: published with the next update
        }
    }

    /**
     * A partition was rewound to progress {@code micros} (its reader restarted from a checkpoint):
     * its records after that are emitted again, so the low watermark must not stay at or above it
     * (see {@link #belowProgress}). Readers emit it as their watermark while they have no
     * partitions.
     */
    private void lowerLowWatermarkTo(long micros) {
        long bound = belowProgress(micros);
        if (bound < lowWatermarkMicros) {
            lowWatermarkMicros = bound;
            lowered = true;
        }
    }

    /**
     * The low watermark an unfinished partition allows: one microsecond below its progress. A
     * partition's progress T may come from a heartbeat at T, which covers its own data records up
     * to T, but the children it announces after that heartbeat start at T and may hold data records
     * at T (Spanner: a child's records are at or after its start), so the low watermark stays below
     * T until they are known. It costs a microsecond of event time.
     */
    static long belowProgress(long progressMicros) {
        return progressMicros == Long.MIN_VALUE ? progressMicros : progressMicros - 1;
    }

    /**
     * Whether the low watermark may be told to readers: no restarted reader still has to say where
     * its partitions resume (until then the graph may be ahead of what stays emitted).
     */
    boolean lowWatermarkSettled() {
        return awaitingResume.isEmpty();
    }

    /**
     * Recomputes the low watermark: just below the least progress of any unfinished partition,
     * assigned or not (see {@link #belowProgress}); with none unfinished, the end of a bounded
     * source. It goes down only when a restarted reader rewinds a partition below it, and does not
     * move while restarted readers have not said where their partitions resume.
     *
     * @return whether it changed since it was last published
     */
    boolean updateLowWatermark(boolean bounded, long sourceEndMicros) {
        if (!lowWatermarkSettled()) {
            return false;
        }
        if (lowered) {
            lowered = false;
            return true;
        }
        if (!rootQueryDone) {
            return false;
        }
        long min = Long.MAX_VALUE;
        boolean anyUnfinished = false;
        for (PartitionEntry p : partitions.values()) {
            if (!p.finished()) {
                anyUnfinished = true;
                min = Math.min(min, p.progressMicros());
            }
        }
        long computed =
                anyUnfinished ? belowProgress(min) : bounded ? sourceEndMicros : lowWatermarkMicros;
        if (computed > lowWatermarkMicros) {
            lowWatermarkMicros = computed;
            return true;
        }
        return false;
    }

    /**
     * Removes finished partitions that nothing can refer to any more: ended below the low
     * watermark, no pending barrier's source, no unfinished partition's parent.
     *
     * @return how many were removed
     */
    int prune() {
        expirePrunedTokens();
        if (partitions.values().stream().noneMatch(this::endedBelowLowWatermark)) {
            return 0;
        }
        Set<String> referenced = new HashSet<>();
        barriers.values().forEach(b -> referenced.addAll(b.sources()));
        for (PartitionEntry p : partitions.values()) {
            if (!p.finished()) {
                referenced.addAll(p.parentTokens());
            }
        }
        int removed = 0;
        for (Iterator<PartitionEntry> it = partitions.values().iterator(); it.hasNext(); ) {
            PartitionEntry p = it.next();
            if (endedBelowLowWatermark(p) && !referenced.contains(p.token())) {
                it.remove();
                prunedEndMicros.put(p.token(), p.endMicros());
                earliestPrunedEndMicros = Math.min(earliestPrunedEndMicros, p.endMicros());
                removed++;
            }
        }
        if (removed > 0) {
            LOG.debug(
                    "Pruned {} finished partitions below {}",
                    removed,
                    TimeFormat.micros(lowWatermarkMicros));
        }
        return removed;
    }

    private boolean endedBelowLowWatermark(PartitionEntry p) {
        return p.finished() && p.endMicros() < lowWatermarkMicros;
    }

    private void expirePrunedTokens() {
        if (lowWatermarkMicros < Long.MIN_VALUE + PRUNED_TOKEN_RETENTION_MICROS) {
            return;
        }
        long horizon = lowWatermarkMicros - PRUNED_TOKEN_RETENTION_MICROS;
        if (earliestPrunedEndMicros >= horizon) {
            return;
        }
        prunedEndMicros.values().removeIf(end -> end < horizon);
        earliestPrunedEndMicros = earliest(prunedEndMicros);
    }

    private static long earliest(Map<String, Long> endMicros) {
        long earliest = Long.MAX_VALUE;
        for (long end : endMicros.values()) {
            earliest = Math.min(earliest, end);
        }
        return earliest;
    }
}
