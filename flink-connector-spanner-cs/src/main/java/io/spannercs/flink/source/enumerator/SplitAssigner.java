package io.spannercs.flink.source.enumerator;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiPredicate;

/**
 * Chooses readers for partitions: balanced by the number of unfinished partitions each reader has,
 * preferring the reader whose partition announced the new one (it just read the same keys) as long
 * as that keeps it within one partition of the least loaded reader.
 */
final class SplitAssigner {
    private SplitAssigner() {}

    /**
     * @param ready partitions to assign, in the order to assign them
     * @param loads unfinished partitions per registered reader; not changed
     * @return the partitions per reader, in assignment order
     */
    static Map<Integer, List<PartitionEntry>> assign(
            List<PartitionEntry> ready, Map<Integer, Integer> loads) {
        return assign(ready, loads, (reader, p) -> true);
    }

    /**
     * As above, giving a partition only to a reader {@code mayRead} accepts; a partition no reader
     * may read is left out.
     */
    static Map<Integer, List<PartitionEntry>> assign(
            List<PartitionEntry> ready,
            Map<Integer, Integer> loads,
            BiPredicate<Integer, PartitionEntry> mayRead) {
        Map<Integer, List<PartitionEntry>> out = new TreeMap<>();
        if (loads.isEmpty()) {
            return out;
        }
        // Sorted, so that ties go to the lowest subtask and assignments are reproducible.
        TreeMap<Integer, Integer> load = new TreeMap<>(loads);
        for (PartitionEntry p : ready) {
            int reader = choose(p, load, mayRead);
            if (reader < 0) {
                continue;
            }
            load.merge(reader, 1, Integer::sum);
            out.computeIfAbsent(reader, r -> new ArrayList<>()).add(p);
        }
        return out;
    }

    private static int choose(
            PartitionEntry p,
            TreeMap<Integer, Integer> load,
            BiPredicate<Integer, PartitionEntry> mayRead) {
        int least = -1;
        int leastLoad = Integer.MAX_VALUE;
        for (Map.Entry<Integer, Integer> e : load.entrySet()) {
            if (e.getValue() < leastLoad && mayRead.test(e.getKey(), p)) {
                least = e.getKey();
                leastLoad = e.getValue();
            }
        }
        Integer discovererLoad = load.get(p.discoverer());
        return discovererLoad != null
                        && discovererLoad <= leastLoad + 1
                        && mayRead.test(p.discoverer(), p)
                ? p.discoverer()
                : least;
    }
}
