package io.spannercs.emulator.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.schema.ChangeStreamDef;
import io.spannercs.emulator.storage.CommittedTransaction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Ground-truth checks for reads of an emulator in specification-edge mode, where transactions share
 * timestamps, legacy sequences repeat across transactions, churn events may share a timestamp with
 * the data before them, and some records carry unknown enum values. Records are those {@link
 * EdgeTolerantReader} returns: no heartbeats, sorted within each timestamp.
 */
public final class EdgeChecks {
    private EdgeChecks() {}

    /** The mod type a record of this transaction carries, as the test reader spells it. */
    public static String modType(
            EdgeCases edges, String serverTransactionId, String modType, boolean protobuf) {
        if (!edges.sendsUnknownEnums(serverTransactionId)) {
            return modType;
        }
        return protobuf
                ? "UNRECOGNIZED(" + EdgeCases.UNKNOWN_MOD_TYPE_NUMBER + ")"
                : EdgeCases.UNKNOWN_MOD_TYPE_NAME;
    }

    /** The value capture type a record of this transaction carries, as the reader spells it. */
    public static String valueCaptureType(
            EdgeCases edges, String serverTransactionId, String capture, boolean protobuf) {
        if (!edges.sendsUnknownEnums(serverTransactionId)) {
            return capture;
        }
        return protobuf
                ? "UNRECOGNIZED(" + EdgeCases.UNKNOWN_VALUE_CAPTURE_TYPE_NUMBER + ")"
                : EdgeCases.UNKNOWN_VALUE_CAPTURE_TYPE_NAME;
    }

    /** Every mod the stream must report, with the enum values the edge cases give it. */
    public static List<ExpectedMod> expectedMods(
            ChangeStreamDef def,
            List<CommittedTransaction> truth,
            EdgeCases edges,
            boolean protobuf) {
        List<ExpectedMod> out = new ArrayList<>();
        for (ExpectedMod m : ExpectedMod.forStream(def, truth)) {
            out.add(
                    new ExpectedMod(
                            m.serverTransactionId(),
                            m.commitMicros(),
                            m.table(),
                            modType(edges, m.serverTransactionId(), m.modType(), protobuf),
                            m.keys(),
                            m.newValues(),
                            m.oldValues(),
                            m.transactionTag()));
        }
        return out;
    }

    /** The mods of the data records read. */
    public static List<ExpectedMod> actualMods(Map<String, List<ReadRecord>> partitions) {
        List<ExpectedMod> out = new ArrayList<>();
        for (ReadRecord r : dataRecords(partitions)) {
            r.data().mods().forEach(m -> out.add(ExpectedMod.fromRecord(r, m)));
        }
        return out;
    }

    public static List<ReadRecord> dataRecords(Map<String, List<ReadRecord>> partitions) {
        List<ReadRecord> out = new ArrayList<>();
        partitions.values().forEach(rs -> rs.stream().filter(EdgeChecks::isData).forEach(out::add));
        return out;
    }

    private static boolean isData(ReadRecord r) {
        return r.kind() == ReadRecord.Kind.DATA;
    }

    /**
     * The read equals the ground truth exactly (every mod once, with its values), transaction
     * metadata is consistent, records are ordered as Spanner promises and keys move only along the
     * partition graph.
     */
    public static void checkStream(
            ChangeStreamDef def,
            List<CommittedTransaction> truth,
            EdgeCases edges,
            boolean mutable,
            boolean protobuf,
            Map<String, List<ReadRecord>> partitions,
            boolean expectKeyMoves) {
        List<ExpectedMod> actual = actualMods(partitions);
        assertThat(actual).doesNotHaveDuplicates();
        assertThat(actual)
                .containsExactlyInAnyOrderElementsOf(expectedMods(def, truth, edges, protobuf));
        checkTransactionMetadata(def, edges, protobuf, dataRecords(partitions));
        partitions.values().forEach(rs -> checkOrderWithinPartition(rs, mutable));
        checkKeyContinuity(partitions, mutable, expectKeyMoves);
    }

    public static void checkTransactionMetadata(
            ChangeStreamDef def, EdgeCases edges, boolean protobuf, List<ReadRecord> records) {
        Map<String, List<ReadRecord>> byTxn = new HashMap<>();
        records.forEach(
                r ->
                        byTxn.computeIfAbsent(
                                        r.data().serverTransactionId(), k -> new ArrayList<>())
                                .add(r));
        for (Map.Entry<String, List<ReadRecord>> e : byTxn.entrySet()) {
            List<ReadRecord> txn = e.getValue();
            Set<String> partitions = new HashSet<>();
            Set<String> sequences = new HashSet<>();
            Map<String, ReadRecord> lastPerPartition = new HashMap<>();
            String capture =
                    valueCaptureType(edges, e.getKey(), def.valueCaptureType().name(), protobuf);
            for (ReadRecord r : txn) {
                assertThat(r.data().recordsInTransaction()).isEqualTo(txn.size());
                assertThat(r.data().valueCaptureType()).isEqualTo(capture);
                assertThat(r.micros()).isEqualTo(txn.get(0).micros());
                assertThat(sequences.add(r.sequence()))
                        .as("sequence unique in transaction")
                        .isTrue();
                partitions.add(r.partition());
                ReadRecord prev = lastPerPartition.get(r.partition());
                if (prev == null
                        || Long.parseLong(prev.sequence()) < Long.parseLong(r.sequence())) {
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

    /**
     * Timestamps never go back; at one timestamp, identities are unique (mutable: the sequence;
     * legacy: transaction and sequence) and every data record comes before every partition record
     * (mutable: in sequence order).
     */
    public static void checkOrderWithinPartition(List<ReadRecord> records, boolean mutable) {
        Set<List<Object>> ids = new HashSet<>();
        for (int i = 0; i < records.size(); i++) {
            ReadRecord b = records.get(i);
            assertThat(b.kind()).isNotEqualTo(ReadRecord.Kind.HEARTBEAT);
            assertThat(b.sequence()).hasSize(8);
            String txn = b.kind() == ReadRecord.Kind.DATA ? b.data().serverTransactionId() : "";
            List<Object> id =
                    mutable
                            ? List.of(b.micros(), b.sequence())
                            : List.of(b.micros(), b.kind(), txn, b.sequence());
            assertThat(ids.add(id)).as("record identity unique: %s", id).isTrue();
            if (i == 0) {
                continue;
            }
            ReadRecord a = records.get(i - 1);
            assertThat(b.micros()).isGreaterThanOrEqualTo(a.micros());
            if (a.micros() == b.micros() && b.kind() == ReadRecord.Kind.DATA) {
                assertThat(a.kind())
                        .as("no data record after a partition record at one timestamp")
                        .isEqualTo(ReadRecord.Kind.DATA);
            }
        }
    }

    /**
     * A key's consecutive changes in partitions A then B need a path A to B in the partition graph:
     * move-outs (mutable) or child partitions (legacy) at or after the first change and at or
     * before the second (a churn event may take the timestamp of the data committed before it).
     */
    public static void checkKeyContinuity(
            Map<String, List<ReadRecord>> partitions, boolean mutable, boolean expectMoves) {
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
        if (expectMoves) {
            assertThat(moves).as("keys that changed partition").isGreaterThan(0);
        }
    }

    private static boolean reachable(
            Map<String, List<Object[]>> graph, String from, String to, long after, long until) {
        List<String> frontier = new ArrayList<>(List.of(from));
        Set<String> seen = new HashSet<>(frontier);
        while (!frontier.isEmpty()) {
            String p = frontier.remove(frontier.size() - 1);
            for (Object[] edge : graph.getOrDefault(p, List.of())) {
                long ts = (long) edge[1];
                if (ts >= after && ts <= until && seen.add((String) edge[0])) {
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
