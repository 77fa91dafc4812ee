package io.spannercs.flink.source.enumerator;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
        Map<Integer, List<PartitionEntry>> out = new TreeMap<>();
        if (loads.isEmpty()) {
            return out;
        }
        // Sorted, so that ties go to the lowest subtask and assignments are reproducible.
        TreeMap<Integer, Integer> load = new TreeMap<>(loads);
        for (PartitionEntry p : ready) {
            int reader = choose(p.discoverer(), load);
            load.merge(reader, 1, Integer::sum);
            out.computeIfAbsent(reader, r -> new ArrayList<>()).add(p);
        }
        return out;
    }

    private static int choose(int discoverer, TreeMap<Integer, Integer> load) {
        int least = -1;
        int leastLoad = Integer.MAX_VALUE;
        for (Map.Entry<Integer, Integer> e : load.entrySet()) {
            if (e.getValue() < leastLoad) {
                least = e.getKey();
                leastLoad = e.getValue();
            }
        }
        Integer discovererLoad = load.get(discoverer);
        return discovererLoad != null && discovererLoad <= leastLoad + 1 ? discoverer : least;
    }
}
