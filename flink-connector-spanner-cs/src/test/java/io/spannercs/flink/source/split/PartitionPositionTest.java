package io.spannercs.flink.source.split;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.source.record.ChildPartitionsRecord;
import io.spannercs.flink.source.record.ChildPartitionsRecord.ChildPartition;
import io.spannercs.flink.source.record.DataChangeRecord;
import io.spannercs.flink.source.record.HeartbeatRecord;
import io.spannercs.flink.source.record.PartitionEventRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

class PartitionPositionTest {
    private static final long T = 1_700_000_000_000_000L;

    @Test
    void aNewPartitionStartsAtItsStartAndHasHandledNothing() {
        PartitionPosition p = PartitionPosition.before(T);
        assertThat(p.restartMicros()).isEqualTo(T);
        assertThat(p.progressMicros()).isEqualTo(T - 1);
        assertThat(p.covers(data(T, "1", "00000000"))).isFalse();
    }

    @Test
    void legacyTransactionsSharingATimestampAreTwoRecordsWithTheSameSequence() {
        PartitionPosition p = PartitionPosition.before(T);
        p.advance(data(T, "1", "00000000"));

        assertThat(p.covers(data(T, "1", "00000000"))).as("re-read").isTrue();
        assertThat(p.covers(data(T, "2", "00000000"))).as("another transaction").isFalse();
        assertThat(p.restartMicros()).isEqualTo(T);
        assertThat(p.progressMicros()).isEqualTo(T - 1);
    }

    @Test
    void recordsOfOneTimestampMayComeInAnyOrder() {
        PartitionPosition p = PartitionPosition.before(T);
        p.advance(event(T, "00000005"));

        assertThat(p.covers(event(T, "00000002")))
                .as("a lower sequence that arrives later is not a re-read")
                .isFalse();
        assertThat(p.covers(event(T, "00000005"))).isTrue();
    }

    @Test
    void aHeartbeatCoversDataButNotPartitionRecordsThatFollowAtItsTime() {
        PartitionPosition p = PartitionPosition.before(T);
        p.advance(data(T, "1", "00000000"));
        p.advance(new HeartbeatRecord(T));

        assertThat(p.progressMicros()).isEqualTo(T);
        assertThat(p.restartMicros()).as("children at T may still come").isEqualTo(T);
        ChildPartitionsRecord children =
                new ChildPartitionsRecord(
                        T, "00000000", List.of(new ChildPartition("c", List.of("p"))));
        assertThat(p.covers(children)).isFalse();
        assertThat(p.covers(new HeartbeatRecord(T))).isTrue();
    }

    @Test
    void aLaterTimestampForgetsTheRecordsOfTheEarlierOne() {
        PartitionPosition p = PartitionPosition.before(T);
        p.advance(data(T, "1", "00000000"));
        p.advance(data(T + 5, "2", "00000000"));

        assertThat(p.micros()).isEqualTo(T + 5);
        assertThat(p.handled()).containsExactly("D2/00000000");
        assertThat(p.covers(data(T + 1, "9", "00000000"))).isTrue();
    }

    @Test
    void aVersionOneSequenceCoversEverySequenceUpToIt() {
        PartitionPosition p = new PartitionPosition(T, List.of(), "00000003");
        assertThat(p.covers(event(T, "00000003"))).isTrue();
        assertThat(p.covers(event(T, "00000001"))).isTrue();
        assertThat(p.covers(event(T, "00000004"))).isFalse();
        assertThat(p.restartMicros()).isEqualTo(T);
    }

    @Test
    void childrenListedInTwoRecordsWithTheSameSequenceAreTwoRecords() {
        ChildPartitionsRecord a =
                new ChildPartitionsRecord(
                        T, "00000000", List.of(new ChildPartition("a", List.of("p"))));
        ChildPartitionsRecord b =
                new ChildPartitionsRecord(
                        T, "00000000", List.of(new ChildPartition("b", List.of("p"))));
        PartitionPosition p = PartitionPosition.before(T);
        p.advance(a);
        assertThat(p.covers(b)).isFalse();
    }

    static DataChangeRecord data(long micros, String txn, String sequence) {
        return new DataChangeRecord(
                micros,
                sequence,
                txn,
                true,
                "T",
                List.of(),
                List.of(),
                "INSERT",
                "OLD_AND_NEW_VALUES",
                1,
                1,
                "",
                false);
    }

    static PartitionEventRecord event(long micros, String sequence) {
        return new PartitionEventRecord(micros, sequence, "p", List.of("s"), List.of());
    }
}
