package io.spannercs.emulator.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.EdgeCase;
import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.testing.EdgeScenario;
import io.spannercs.emulator.testing.ReadRecord;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * heartbeat-before-partition-records: as Google's emulator does, a heartbeat at exactly T goes
 * before the first partition record of T, after every data record of T.
 */
class HeartbeatBeforePartitionRecordsEdgeTest {

    @ParameterizedTest
    @ValueSource(strings = {EdgeScenario.MUTABLE, EdgeScenario.LEGACY})
    void heartbeatAtTGoesBetweenTheDataAndThePartitionRecordsOfT(String stream) {
        try (EdgeScenario s =
                EdgeScenario.start(
                                EdgeCases.of(
                                        EdgeCase.HEARTBEAT_BEFORE_PARTITION_RECORDS,
                                        EdgeCase.SHARED_TIMESTAMPS),
                                false,
                                b -> {})
                        .write(300, 3, 3)) {
            s.readAndCheck(stream, true);
            int checked = 0;
            int withDataBefore = 0;
            for (List<ReadRecord> records : RawReads.perPartition(s, stream).values()) {
                TreeSet<Long> partitionTimestamps = new TreeSet<>();
                records.stream()
                        .filter(RawReads::isPartitionRecord)
                        .forEach(r -> partitionTimestamps.add(r.micros()));
                for (long t : partitionTimestamps) {
                    List<ReadRecord> at = RawReads.at(records, t);
                    int firstPartitionRecord = -1;
                    for (int i = 0; i < at.size(); i++) {
                        if (RawReads.isPartitionRecord(at.get(i))) {
                            firstPartitionRecord = i;
                            break;
                        }
                    }
                    assertThat(firstPartitionRecord).as("heartbeat before %s", at).isPositive();
                    assertThat(at.get(firstPartitionRecord - 1).kind())
                            .isEqualTo(ReadRecord.Kind.HEARTBEAT);
                    for (int i = 0; i < at.size(); i++) {
                        ReadRecord r = at.get(i);
                        if (i < firstPartitionRecord - 1) {
                            assertThat(r.kind()).isEqualTo(ReadRecord.Kind.DATA);
                        } else if (i >= firstPartitionRecord) {
                            assertThat(RawReads.isPartitionRecord(r)).as("%s", at).isTrue();
                        }
                    }
                    checked++;
                    if (firstPartitionRecord > 1) {
                        withDataBefore++;
                    }
                }
            }
            assertThat(checked).isPositive();
            assertThat(withDataBefore).as("timestamps with data before the heartbeat").isPositive();
            Map<EdgeCase, Long> counts = s.emulator().edgeCaseCounts();
            assertThat(counts.get(EdgeCase.HEARTBEAT_BEFORE_PARTITION_RECORDS)).isPositive();
        }
    }
}
