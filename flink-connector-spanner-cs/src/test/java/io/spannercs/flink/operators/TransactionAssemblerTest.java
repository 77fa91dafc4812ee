package io.spannercs.flink.operators;

import static io.spannercs.flink.operators.OperatorEvents.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spannercs.flink.format.ChangeEvent;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * {@link TransactionAssembler} driven directly: a transaction is emitted once, whole and in record
 * order, when the watermark passes its commit timestamp; a count mismatch fails or is flagged;
 * state holds only transactions above the watermark.
 */
class TransactionAssemblerTest {
    // Transaction t1 at 100 ms: three records over two partitions, records 0 and 2 with two mods.
    private static final ChangeEvent T1_R0_M0 = event("A", 1, 100, 5, "t1", "p1", "0", 0, 3);
    private static final ChangeEvent T1_R0_M1 = event("A", 2, 100, 5, "t1", "p1", "0", 1, 3);
    private static final ChangeEvent T1_R1_M0 = event("B", 1, 100, 5, "t1", "p2", "1", 0, 3);
    private static final ChangeEvent T1_R2_M0 = event("B", 3, 100, 5, "t1", "p1", "2", 0, 3);
    private static final ChangeEvent T1_R2_M1 = event("B", 4, 100, 5, "t1", "p1", "2", 1, 3);
    // Transaction t2 at 150 ms: one record.
    private static final ChangeEvent T2_R0_M0 = event("A", 1, 150, 0, "t2", "p2", "0", 0, 1);

    @Test
    void emitsEachTransactionWholeOnceTheWatermarkPassesIt() throws Exception {
        try (KeyedOneInputStreamOperatorTestHarness<String, ChangeEvent, SpannerTransaction> h =
                harness(new TransactionAssembler())) {
            // Partitions interleave, and records of t1 arrive after t2 began.
            process(h, T1_R2_M0, T2_R0_M0, T1_R1_M0, T1_R0_M0, T1_R2_M1, T1_R0_M1);
            assertThat(h.numKeyedStateEntries()).isEqualTo(2);
            h.processWatermark(new Watermark(99));
            assertThat(h.extractOutputValues()).isEmpty();

            h.processWatermark(new Watermark(100));
            List<SpannerTransaction> out = h.extractOutputValues();
            assertThat(out).hasSize(1);
            SpannerTransaction t1 = out.get(0);
            assertThat(t1.getServerTransactionId()).isEqualTo("t1");
            assertThat(t1.getCommitTimestamp()).isEqualTo(T1_R0_M0.getCommitTimestamp());
            assertThat(t1.getTransactionTag()).isEqualTo("tag");
            assertThat(t1.getNumberOfRecordsInTransaction()).isEqualTo(3);
            assertThat(t1.getNumberOfRecordsReceived()).isEqualTo(3);
            assertThat(t1.isComplete()).isTrue();
            assertThat(t1.getEvents())
                    .containsExactly(T1_R0_M0, T1_R0_M1, T1_R1_M0, T1_R2_M0, T1_R2_M1);
            assertThat(h.numKeyedStateEntries()).as("t1 cleared, t2 pending").isEqualTo(1);

            h.processWatermark(new Watermark(Long.MAX_VALUE));
            assertThat(h.extractOutputValues()).hasSize(2);
            assertThat(h.extractOutputValues().get(1).getEvents()).containsExactly(T2_R0_M0);
            assertThat(h.numKeyedStateEntries()).isZero();
            assertThat(h.numEventTimeTimers()).isZero();
        }
    }

    @Test
    void aMissingRecordFailsTheTaskByDefault() throws Exception {
        try (KeyedOneInputStreamOperatorTestHarness<String, ChangeEvent, SpannerTransaction> h =
                harness(new TransactionAssembler())) {
            // Record 1 (partition p2) never arrives; counting events (4 of them) would be fooled.
            process(h, T1_R0_M0, T1_R0_M1, T1_R2_M0, T1_R2_M1);
            assertThatThrownBy(() -> h.processWatermark(new Watermark(100)))
                    .hasMessageContaining("t1")
                    .hasMessageContaining("2 of 3 data change records");
        }
    }

    @Test
    void incompleteOrDuplicatedTransactionsCanBeEmittedAndFlagged() throws Exception {
        try (KeyedOneInputStreamOperatorTestHarness<String, ChangeEvent, SpannerTransaction> h =
                harness(
                        new TransactionAssembler(
                                IncompleteTransactionPolicy.EMIT, LateEventPolicy.SIDE_OUTPUT))) {
            process(h, T1_R0_M0, T1_R1_M0, T2_R0_M0, T2_R0_M0);
            h.processWatermark(new Watermark(200));
            List<SpannerTransaction> out = h.extractOutputValues();
            assertThat(out)
                    .extracting(SpannerTransaction::getServerTransactionId)
                    .containsExactly("t1", "t2");
            assertThat(out.get(0).isComplete()).isFalse();
            assertThat(TransactionAssembler.consistencyProblem(out.get(1)))
                    .contains("arrived twice");
        }
    }

    @Test
    void lateEventsGoToTheSideOutputOrFail() throws Exception {
        try (KeyedOneInputStreamOperatorTestHarness<String, ChangeEvent, SpannerTransaction> h =
                harness(new TransactionAssembler())) {
            h.processWatermark(new Watermark(100));
            process(h, T1_R0_M0);
            assertThat(h.getSideOutput(ChangeEventOrdering.LATE_EVENTS))
                    .extracting(StreamRecord::getValue)
                    .containsExactly(T1_R0_M0);
            assertThat(h.numKeyedStateEntries()).isZero();
        }
        try (KeyedOneInputStreamOperatorTestHarness<String, ChangeEvent, SpannerTransaction> h =
                harness(
                        new TransactionAssembler(
                                IncompleteTransactionPolicy.FAIL, LateEventPolicy.FAIL))) {
            h.processWatermark(new Watermark(100));
            assertThatThrownBy(() -> process(h, T1_R0_M0)).hasMessageContaining("Late");
        }
        assertThatThrownBy(
                        () ->
                                new TransactionAssembler(
                                        IncompleteTransactionPolicy.FAIL,
                                        LateEventPolicy.EMIT_IMMEDIATELY))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static void process(
            KeyedOneInputStreamOperatorTestHarness<String, ChangeEvent, SpannerTransaction> h,
            ChangeEvent... events)
            throws Exception {
        for (ChangeEvent e : events) {
            h.processElement(new StreamRecord<>(e, e.getCommitTimestamp().toEpochMilli()));
        }
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, ChangeEvent, SpannerTransaction>
            harness(TransactionAssembler assembler) throws Exception {
        KeyedOneInputStreamOperatorTestHarness<String, ChangeEvent, SpannerTransaction> h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(assembler),
                        ChangeEvent::getServerTransactionId,
                        Types.STRING);
        h.setup(SpannerTransactionSerializer.INSTANCE);
        h.open();
        return h;
    }
}
