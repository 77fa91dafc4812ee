package io.spannercs.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.source.split.PartitionReport.NewPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class SplitAssignerTest {

    private static List<PartitionEntry> partitions(int n, int discoverer) {
        List<PartitionEntry> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(PartitionEntry.discovered(new NewPartition("p" + i, 1, List.of()), discoverer));
        }
        return out;
    }

    private static Map<Integer, Integer> sizes(Map<Integer, List<PartitionEntry>> assignment) {
        Map<Integer, Integer> out = new TreeMap<>();
        assignment.forEach((r, ps) -> out.put(r, ps.size()));
        return out;
    }

    @Test
    void fillsTheLeastLoadedReadersFirst() {
        Map<Integer, List<PartitionEntry>> a =
                SplitAssigner.assign(
                        partitions(5, PartitionEntry.NO_SUBTASK), Map.of(0, 3, 1, 0, 2, 1));
        // Loads end at 3/3/3.
        assertThat(sizes(a)).isEqualTo(Map.of(1, 3, 2, 2));
    }

    @Test
    void prefersTheDiscovererWithinOneOfTheLeastLoaded() {
        Map<Integer, List<PartitionEntry>> a =
                SplitAssigner.assign(partitions(6, 1), Map.of(0, 2, 1, 2, 2, 2));
        // The discoverer (loads 2/2/2) takes a partition whenever it is at most one above the
        // least loaded reader: 1, 1, 0, 2, 1, 0.
        assertThat(sizes(a)).isEqualTo(Map.of(0, 2, 1, 3, 2, 1));
    }

    @Test
    void ignoresADiscovererThatIsNotRegistered() {
        Map<Integer, List<PartitionEntry>> a =
                SplitAssigner.assign(partitions(2, 7), Map.of(0, 0, 1, 0));
        assertThat(sizes(a)).isEqualTo(Map.of(0, 1, 1, 1));
    }

    @Test
    void assignsNothingWithoutReaders() {
        assertThat(SplitAssigner.assign(partitions(2, 0), Map.of())).isEmpty();
    }
}
