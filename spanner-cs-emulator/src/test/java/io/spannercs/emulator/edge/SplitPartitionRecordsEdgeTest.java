package io.spannercs.emulator.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.EdgeCase;
import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.changestream.ChurnOp;
import io.spannercs.emulator.schema.PartitionMode;
import io.spannercs.emulator.testing.ClientChangeStreamReader;
import io.spannercs.emulator.testing.EdgeScenario;
import io.spannercs.emulator.testing.ReadRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * split-partition-records: one churn event reported in several partition records at one timestamp.
 * Legacy: a split's children in one child partitions record each. Mutable: a split announces two
 * partitions in two PartitionStartRecords and moves each range in its own PartitionEventRecord; a
 * swap reaches each side as a move-in record, then a move-out record.
 */
class SplitPartitionRecordsEdgeTest {
    private static final ChurnOp[] OPS = {ChurnOp.SPLIT, ChurnOp.SWAP, ChurnOp.MERGE, ChurnOp.MOVE};

    private static EdgeScenario scenario() {
        Map<String, AtomicInteger> next = new HashMap<>();
        return EdgeScenario.start(
                        EdgeCases.of(EdgeCase.SPLIT_PARTITION_RECORDS),
                        false,
                        b -> b.initialPartitions(2).maxPartitions(7))
                .write(
                        240,
                        2,
                        10,
                        cs -> {
                            ChurnOp op =
                                    OPS[
                                            next.computeIfAbsent(
                                                                    cs.def().name(),
                                                                    k -> new AtomicInteger())
                                                            .getAndIncrement()
                                                    % OPS.length];
                            boolean legacy =
                                    cs.def().partitionMode() == PartitionMode.IMMUTABLE_KEY_RANGE;
                            try {
                                cs.churn(legacy && op == ChurnOp.SWAP ? ChurnOp.SPLIT : op);
                            } catch (IllegalStateException e) {
                                cs.churn(ChurnOp.SPLIT);
                            }
                        });
    }

    @Test
    void legacySplitsSendOneChildPartitionsRecordPerChild() {
        try (EdgeScenario s = scenario()) {
            Map<String, List<ReadRecord>> partitions = s.readAndCheck(EdgeScenario.LEGACY, true);
            int splits = 0;
            for (List<ReadRecord> records : partitions.values()) {
                List<ReadRecord> children =
                        records.stream()
                                .filter(r -> r.kind() == ReadRecord.Kind.CHILD_PARTITIONS)
                                .toList();
                if (children.size() > 1) {
                    splits++;
                    assertThat(children).allMatch(r -> r.micros() == children.get(0).micros());
                    assertThat(children).allMatch(r -> r.tokens().size() == 1);
                    assertThat(children.stream().map(ReadRecord::sequence).distinct())
                            .hasSize(children.size());
                }
            }
            assertThat(splits).isPositive();
            assertRootSplit(s, EdgeScenario.LEGACY);
            assertThat(s.emulator().edgeCaseCounts().get(EdgeCase.SPLIT_PARTITION_RECORDS))
                    .isPositive();
        }
    }

    @Test
    void mutableSplitsAndSwapsUseSeveralPartitionRecords() {
        try (EdgeScenario s = scenario()) {
            Map<String, List<ReadRecord>> partitions = s.readAndCheck(EdgeScenario.MUTABLE, true);
            int splits = 0;
            int swaps = 0;
            for (List<ReadRecord> records : partitions.values()) {
                Map<Long, List<ReadRecord>> byTime = new HashMap<>();
                records.stream()
                        .filter(RawReads::isPartitionRecord)
                        .forEach(
                                r ->
                                        byTime.computeIfAbsent(r.micros(), k -> new ArrayList<>())
                                                .add(r));
                for (List<ReadRecord> at : byTime.values()) {
                    List<ReadRecord> starts = ofKind(at, ReadRecord.Kind.PARTITION_START);
                    List<ReadRecord> events = ofKind(at, ReadRecord.Kind.PARTITION_EVENT);
                    if (starts.size() >= 2) {
                        splits++;
                        assertThat(starts).allMatch(r -> r.tokens().size() == 1);
                        for (ReadRecord start : starts) {
                            assertThat(events)
                                    .filteredOn(e -> e.moveOutDestinations().equals(start.tokens()))
                                    .hasSize(1);
                        }
                    }
                    for (ReadRecord e : events) {
                        // Never both directions in one record with this edge case.
                        assertThat(e.moveInSources().isEmpty() || e.moveOutDestinations().isEmpty())
                                .isTrue();
                    }
                    for (ReadRecord in : events) {
                        for (ReadRecord out : events) {
                            if (!in.moveInSources().isEmpty()
                                    && in.moveInSources().equals(out.moveOutDestinations())) {
                                swaps++;
                                assertThat(Long.parseLong(in.sequence()))
                                        .as("move-in before move-out")
                                        .isLessThan(Long.parseLong(out.sequence()));
                            }
                        }
                    }
                }
            }
            assertThat(splits).isPositive();
            assertThat(swaps).isPositive();
            assertRootSplit(s, EdgeScenario.MUTABLE);
        }
    }

    private static List<ReadRecord> ofKind(List<ReadRecord> records, ReadRecord.Kind kind) {
        return records.stream().filter(r -> r.kind() == kind).toList();
    }

    /** The root query names each partition in its own record. */
    private static void assertRootSplit(EdgeScenario s, String stream) {
        ChangeStream cs = s.emulator().database().changeStream(stream);
        List<ReadRecord> root =
                new ClientChangeStreamReader(s.clients().client(), stream, s.mutable(stream))
                        .query(null, s.endTime(), s.endTime());
        assertThat(root).hasSize(cs.partitionsLiveAt(micros(s)).size());
        assertThat(root).hasSizeGreaterThan(1).allMatch(r -> r.tokens().size() == 1);
        assertThat(root.stream().map(ReadRecord::sequence).distinct()).hasSize(root.size());
    }

    private static long micros(EdgeScenario s) {
        return s.endTime().getSeconds() * 1_000_000L + s.endTime().getNanos() / 1000;
    }
}
