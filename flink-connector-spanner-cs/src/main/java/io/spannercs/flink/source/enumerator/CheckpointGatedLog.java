package io.spannercs.flink.source.enumerator;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

/**
 * Items per subtask, kept until a completed checkpoint covers them. An item added after the
 * snapshot of checkpoint N belongs to the next snapshot, and is covered once that checkpoint (or a
 * later one) completes. Used for report ids (acknowledged when covered: the enumerator's checkpoint
 * then holds their effect) and for partition ends (which a reader restarted from a checkpoint that
 * predates them may read again). Not part of the checkpointed state. Duplicates are kept once.
 */
final class CheckpointGatedLog<T> {
    private Map<Integer, Set<T>> sinceSnapshot = new HashMap<>();
    private final NavigableMap<Long, Map<Integer, Set<T>>> inCheckpoint = new TreeMap<>();

    void add(int subtask, T item) {
        sinceSnapshot.computeIfAbsent(subtask, s -> new LinkedHashSet<>()).add(item);
    }

    void snapshotTaken(long checkpointId) {
        if (!sinceSnapshot.isEmpty()) {
            inCheckpoint.put(checkpointId, sinceSnapshot);
            sinceSnapshot = new HashMap<>();
        }
    }

    /** Removes and returns, per subtask, the items the completed checkpoint covers. */
    Map<Integer, List<T>> checkpointCompleted(long checkpointId) {
        Map<Long, Map<Integer, Set<T>>> covered = inCheckpoint.headMap(checkpointId, true);
        Map<Integer, Set<T>> merged = new TreeMap<>();
        for (Map<Integer, Set<T>> bySubtask : covered.values()) {
            bySubtask.forEach(
                    (subtask, items) ->
                            merged.computeIfAbsent(subtask, s -> new LinkedHashSet<>())
                                    .addAll(items));
        }
        covered.clear();
        Map<Integer, List<T>> out = new TreeMap<>();
        merged.forEach((subtask, items) -> out.put(subtask, new ArrayList<>(items)));
        return out;
    }

    /** Forgets every item of a subtask. */
    void discard(int subtask) {
        sinceSnapshot.remove(subtask);
        inCheckpoint.values().forEach(m -> m.remove(subtask));
    }

    /** Every item of a subtask not covered yet, oldest first. */
    List<T> held(int subtask) {
        Set<T> out = new LinkedHashSet<>();
        inCheckpoint.values().forEach(m -> out.addAll(m.getOrDefault(subtask, Set.of())));
        out.addAll(sinceSnapshot.getOrDefault(subtask, Set.of()));
        return new ArrayList<>(out);
    }

    int size() {
        int n = sinceSnapshot.values().stream().mapToInt(Set::size).sum();
        for (Map<Integer, Set<T>> m : inCheckpoint.values()) {
            n += m.values().stream().mapToInt(Set::size).sum();
        }
        return n;
    }
}
