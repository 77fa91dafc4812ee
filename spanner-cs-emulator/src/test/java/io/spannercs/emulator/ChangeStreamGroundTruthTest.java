package io.spannercs.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.Timestamp;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.schema.ChangeStreamDef;
import io.spannercs.emulator.schema.PartitionMode;
import io.spannercs.emulator.testing.ClientChangeStreamReader;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.ExpectedMod;
import io.spannercs.emulator.testing.RandomClientWrites;
import io.spannercs.emulator.testing.ReadRecord;
import io.spannercs.emulator.testing.TestTimes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Writes random transactions through the official client while partitions churn, then reads every
 * change stream back with the official client and compares with the emulator's ground truth: every
 * change exactly once with the values its capture type promises, transaction metadata consistent,
 * record order as Spanner states it, and each key's changes only moving along the partition graph.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChangeStreamGroundTruthTest {
    private static final String[] CAPTURES = {
        "OLD_AND_NEW_VALUES", "NEW_VALUES", "NEW_ROW", "NEW_ROW_AND_OLD_VALUES"
    };

    private SpannerEmulator emulator;
    private EmulatorClients clients;
    private Timestamp start;
    private Timestamp end;

    @BeforeAll
    void writeWithChurn() {
        StringBuilder ddl = new StringBuilder(RandomClientWrites.TABLES);
        for (String mode : new String[] {"MUTABLE_KEY_RANGE", "IMMUTABLE_KEY_RANGE"}) {
            for (String capture : CAPTURES) {
                ddl.append(
                        String.format(
                                "CREATE CHANGE STREAM %s_%s FOR ALL OPTIONS (partition_mode = '%s',"
                                        + " value_capture_type = '%s');\n",
                                mode.substring(0, 3), capture, mode, capture));
            }
            ddl.append(
                    String.format(
                            "CREATE CHANGE STREAM %s_cols FOR Items(Name, Price), Lines()"
                                    + " OPTIONS (partition_mode = '%s');\n",
                            mode.substring(0, 3), mode));
        }
        emulator =
                SpannerEmulator.builder()
                        .ddl(ddl.toString())
                        .initialPartitions(3)
                        .maxPartitions(6)
                        .seed(7)
                        .start();
        clients = new EmulatorClients(emulator);
        start = TestTimes.now();
        RandomClientWrites writes = new RandomClientWrites(11, 40);
        for (int i = 0; i < 400; i++) {
            writes.writeOne(clients.client());
            if (i % 7 == 0) {
                for (ChangeStream cs : emulator.database().changeStreams()) {
                    cs.churnRandomly();
                }
            }
        }
        end = TestTimes.now();
        assertThat(emulator.database().groundTruth()).hasSizeGreaterThan(200);
    }

    @AfterAll
    void stop() {
        clients.close();
        emulator.close();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "MUT_OLD_AND_NEW_VALUES",
                "MUT_NEW_VALUES",
                "MUT_NEW_ROW",
                "MUT_NEW_ROW_AND_OLD_VALUES",
                "MUT_cols",
                "IMM_OLD_AND_NEW_VALUES",
                "IMM_NEW_VALUES",
                "IMM_NEW_ROW",
                "IMM_NEW_ROW_AND_OLD_VALUES",
                "IMM_cols"
            })
    void streamMatchesGroundTruth(String streamName) {
        ChangeStreamDef def = emulator.database().changeStream(streamName).def();
        boolean mutable = def.partitionMode() == PartitionMode.MUTABLE_KEY_RANGE;
        Map<String, List<ReadRecord>> partitions =
                new ClientChangeStreamReader(clients.client(), streamName, mutable)
                        .readAll(start, end);

        List<ExpectedMod> expected = ExpectedMod.forStream(def, emulator.database().groundTruth());
        List<ExpectedMod> actual = new ArrayList<>();
        List<ReadRecord> dataRecords = new ArrayList<>();
        for (List<ReadRecord> records : partitions.values()) {
            for (ReadRecord r : records) {
                if (r.kind() == ReadRecord.Kind.DATA) {
                    dataRecords.add(r);
                    r.data().mods().forEach(m -> actual.add(ExpectedMod.fromRecord(r, m)));
                }
            }
        }
        assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(actual).doesNotHaveDuplicates();
        assertThat(partitions.size()).as("partitions read").isGreaterThan(3);

        checkTransactionMetadata(def, dataRecords);
        partitions.values().forEach(ChangeStreamGroundTruthTest::checkOrderWithinPartition);
        checkKeyContinuity(partitions, mutable);
    }

    private static void checkTransactionMetadata(ChangeStreamDef def, List<ReadRecord> records) {
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
    private static void checkOrderWithinPartition(List<ReadRecord> records) {
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
    private static void checkKeyContinuity(
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
