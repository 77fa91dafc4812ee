package io.spannercs.emulator.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.EdgeCase;
import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.testing.EdgeScenario;
import io.spannercs.emulator.testing.ReadRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * unordered-within-timestamp: the records of one timestamp arrive in a seeded order other than
 * record_sequence order (mutable: all of them; legacy: each transaction's), with correct sequences.
 */
class UnorderedWithinTimestampEdgeTest {

    @ParameterizedTest
    @ValueSource(strings = {EdgeScenario.MUTABLE, EdgeScenario.LEGACY})
    void recordsOfOneTimestampArriveOutOfSequenceOrder(String stream) {
        try (EdgeScenario s =
                EdgeScenario.start(
                                EdgeCases.of(
                                        EdgeCase.UNORDERED_WITHIN_TIMESTAMP,
                                        EdgeCase.SHARED_TIMESTAMPS,
                                        EdgeCase.SPLIT_PARTITION_RECORDS),
                                false,
                                b -> {})
                        .write(300, 3, 5)) {
            s.readAndCheck(stream, true);
            boolean mutable = s.mutable(stream);
            Map<String, List<ReadRecord>> raw = RawReads.perPartition(s, stream);
            int unordered = 0;
            int mixedKinds = 0;
            for (List<ReadRecord> records : raw.values()) {
                for (List<ReadRecord> group : groups(records, mutable)) {
                    List<Long> sequences = new ArrayList<>();
                    group.forEach(r -> sequences.add(Long.parseLong(r.sequence())));
                    if (group.size() >= 2) {
                        List<Long> sorted = new ArrayList<>(sequences);
                        sorted.sort(null);
                        assertThat(sequences).as("out of order: %s", group).isNotEqualTo(sorted);
                        unordered++;
                        if (group.stream().anyMatch(RawReads::isPartitionRecord)
                                && group.stream().anyMatch(r -> r.kind() == ReadRecord.Kind.DATA)) {
                            mixedKinds++;
                        }
                    }
                }
            }
            assertThat(unordered).isPositive();
            if (mutable) {
                assertThat(mixedKinds)
                        .as("data and partition records shuffled together")
                        .isPositive();
            }
            assertThat(s.emulator().edgeCaseCounts().get(EdgeCase.UNORDERED_WITHIN_TIMESTAMP))
                    .isPositive();
            // The order is seeded: a second read gets the same.
            assertThat(RawReads.perPartition(s, stream)).isEqualTo(raw);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {EdgeScenario.MUTABLE, EdgeScenario.LEGACY})
    void withTheHeartbeatEdgeDataThenHeartbeatThenPartitionRecords(String stream) {
        try (EdgeScenario s =
                EdgeScenario.start(
                                EdgeCases.of(
                                        EdgeCase.UNORDERED_WITHIN_TIMESTAMP,
                                        EdgeCase.HEARTBEAT_BEFORE_PARTITION_RECORDS,
                                        EdgeCase.SHARED_TIMESTAMPS,
                                        EdgeCase.SPLIT_PARTITION_RECORDS),
                                false,
                                b -> {})
                        .write(300, 3, 3)) {
            s.readAndCheck(stream, true);
            int checked = 0;
            for (List<ReadRecord> records : RawReads.perPartition(s, stream).values()) {
                TreeSet<Long> partitionTimestamps = new TreeSet<>();
                records.stream()
                        .filter(RawReads::isPartitionRecord)
                        .forEach(r -> partitionTimestamps.add(r.micros()));
                for (long t : partitionTimestamps) {
                    List<ReadRecord.Kind> kinds = new ArrayList<>();
                    RawReads.at(records, t).forEach(r -> kinds.add(r.kind()));
                    int hb = kinds.indexOf(ReadRecord.Kind.HEARTBEAT);
                    assertThat(hb).as("%s", kinds).isNotNegative();
                    assertThat(kinds.subList(0, hb)).allMatch(k -> k == ReadRecord.Kind.DATA);
                    assertThat(kinds.subList(hb + 1, kinds.size()))
                            .isNotEmpty()
                            .doesNotContain(ReadRecord.Kind.DATA, ReadRecord.Kind.HEARTBEAT);
                    checked++;
                }
            }
            assertThat(checked).isPositive();
        }
    }

    /**
     * Groups whose arrival order the edge case shuffles: mutable, every non-heartbeat record of a
     * timestamp; legacy, the data records of one transaction.
     */
    private static List<List<ReadRecord>> groups(List<ReadRecord> records, boolean mutable) {
        Map<List<Object>, List<ReadRecord>> out = new LinkedHashMap<>();
        for (ReadRecord r : records) {
            if (r.kind() == ReadRecord.Kind.HEARTBEAT) {
                continue;
            }
            List<Object> key;
            if (mutable) {
                key = List.of(r.micros());
            } else if (r.kind() == ReadRecord.Kind.DATA) {
                key = List.of(r.micros(), r.data().serverTransactionId());
            } else {
                continue;
            }
            out.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
        }
        return new ArrayList<>(out.values());
    }
}
