package io.spannercs.emulator.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.schema.ChangeStreamDef;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks on change records read back through the official client, shared by the ground-truth tests
 * of both dialects: transaction metadata consistent across a transaction's records, record order
 * within a partition as Spanner states it, and each key's changes moving only along the partition
 * graph.
 */
public final class GroundTruthChecks {
    private GroundTruthChecks() {}

    public static void checkTransactionMetadata(ChangeStreamDef def, List<ReadRecord> records) {
        Map<String, List<ReadRecord>> byTxn = new HashMap<>();
        records.forEach(
                r ->
                        byTxn.computeIfAbsent(
                                        r.data().serverTransactionId(), k -> new ArrayList<>())
                                .add(r));
        for (List<ReadRecord> txn : byTxn.values()) {
            Set<String> partitions = new HashSet<>();
            Set<String> sequences = new HashSet<>();
            Map<String, ReadRecord> lastPerPartition = new HashMap<>();
            for (ReadRecord r : txn) {
                assertThat(r.data().recordsInTransaction()).isEqualTo(txn.size());
                assertThat(r.data().valueCaptureType()).isEqualTo(def.valueCaptureType().name());
                assertThat(r.micros()).isEqualTo(txn.get(0).micros());
                assertThat(sequences.add(r.sequence()))
                        .as("sequence unique in transaction")
                        .isTrue();
                partitions.add(r.partition());
                ReadRecord prev = lastPerPartition.get(r.partition());
                if (prev == null || prev.sequence().compareTo(r.sequence()) < 0) {
                    lastPerPartition.put(r.partition(), r);
                }
            }
            for (ReadRecord r : txn) {
                assertThat(r.data().partitionsInTransaction()).isEqualTo(partitions.size());
                assertThat(r.data().lastInPartition())
                        .isEqualTo(lastPerPartition.get(r.partition()) == r);
            }
        }
    }

    /** Timestamps never go back in a partition; within one timestamp sequences grow. */
    public static void checkOrderWithinPartition(List<ReadRecord> records) {
        for (int i = 1; i < records.size(); i++) {
            ReadRecord a = records.get(i - 1);
            ReadRecord b = records.get(i);
            assertThat(b.micros()).isGreaterThanOrEqualTo(a.micros());
            if (a.micros() == b.micros()) {
                assertThat(b.kind()).isNotEqualTo(ReadRecord.Kind.HEARTBEAT);
                assertThat(a.kind()).isNotEqualTo(ReadRecord.Kind.HEARTBEAT);
                assertThat(b.sequence().length()).isEqualTo(a.sequence().length());
                assertThat(b.sequence()).isGreaterThan(a.sequence());
            }
        }
    }

    /**
     * A key's consecutive changes in partitions A then B need a path A to B in the partition graph:
     * move-outs (mutable) or child partitions (legacy) between the two changes.
     */
    public static void checkKeyContinuity(
            Map<String, List<ReadRecord>> partitions, boolean mutable) {
        Map<String, List<Object[]>> graph = new HashMap<>();
        Map<String, List<Object[]>> keyHistory = new HashMap<>();
        for (Map.Entry<String, List<ReadRecord>> e : partitions.entrySet()) {
            for (ReadRecord r : e.getValue()) {
                if (mutable && r.kind() == ReadRecord.Kind.PARTITION_EVENT) {
                    for (String to : r.moveOutDestinations()) {
                        graph.computeIfAbsent(e.getKey(), k -> new ArrayList<>())
                                .add(new Object[] {to, r.micros()});
                    }
                }
                if (!mutable && r.kind() == ReadRecord.Kind.CHILD_PARTITIONS) {
                    for (String to : r.tokens()) {
                        graph.computeIfAbsent(e.getKey(), k -> new ArrayList<>())
                                .add(new Object[] {to, r.micros()});
                    }
                }
                if (r.kind() == ReadRecord.Kind.DATA) {
                    for (ReadRecord.Mod m : r.data().mods()) {
                        keyHistory
                                .computeIfAbsent(
                                        r.data().table() + m.keys(), k -> new ArrayList<>())
                                .add(new Object[] {r.micros(), e.getKey()});
                    }
                }
            }
        }
        int moves = 0;
        for (List<Object[]> history : keyHistory.values()) {
            history.sort((x, y) -> Long.compare((long) x[0], (long) y[0]));
            for (int i = 1; i < history.size(); i++) {
                String from = (String) history.get(i - 1)[1];
                String to = (String) history.get(i)[1];
                if (!from.equals(to)) {
                    moves++;
                    assertThat(
                                    reachable(
                                            graph,
                                            from,
                                            to,
                                            (long) history.get(i - 1)[0],
                                            (long) history.get(i)[0]))
                            .as("key moved from %s to %s along the partition graph", from, to)
                            .isTrue();
                }
            }
        }
        assertThat(moves).as("keys that changed partition").isGreaterThan(0);
    }

    private static boolean reachable(
            Map<String, List<Object[]>> graph, String from, String to, long after, long until) {
        List<String> frontier = new ArrayList<>(List.of(from));
        Set<String> seen = new HashSet<>(frontier);
        while (!frontier.isEmpty()) {
            String p = frontier.remove(frontier.size() - 1);
            for (Object[] edge : graph.getOrDefault(p, List.of())) {
                long ts = (long) edge[1];
                if (ts > after && ts <= until && seen.add((String) edge[0])) {
                    if (edge[0].equals(to)) {
                        return true;
                    }
                    frontier.add((String) edge[0]);
                }
            }
        }
        return false;
    }
}
