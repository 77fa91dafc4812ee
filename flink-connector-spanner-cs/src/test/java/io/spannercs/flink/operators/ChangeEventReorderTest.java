package io.spannercs.flink.operators;

import static io.spannercs.flink.operators.OperatorEvents.change;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventTypeInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * {@link ChangeEventReorder} driven directly: release on the watermark, order per key, late events
 * under each policy, and state that holds exactly the events above the watermark.
 */
class ChangeEventReorderTest {

    @Test
    void releasesEachKeyInCommitOrderWhenTheWatermarkPasses() throws Exception {
        try (KeyedOneInputStreamOperatorTestHarness<String, ChangeEvent, ChangeEvent> h =
                harness(LateEventPolicy.SIDE_OUTPUT)) {
            ChangeEvent a3 = change(1, 130, 0, "t3", "0", 0);
            ChangeEvent a1 = change(1, 110, 5, "t1", "0", 0);
            ChangeEvent a2 = change(1, 110, 7, "t2", "0", 0);
            ChangeEvent b1 = change(2, 120, 0, "t4", "0", 0);
            process(h, a3, b1, a2, a1);
            assertThat(h.extractOutputValues()).isEmpty();
            assertThat(h.numEventTimeTimers()).isEqualTo(3);

            h.processWatermark(new Watermark(109));
            assertThat(h.extractOutputValues()).isEmpty();
            h.processWatermark(new Watermark(125));
            // Both changes of key 1 in the same millisecond, ordered by their microseconds.
            assertThat(h.extractOutputValues()).containsExactly(a1, a2, b1);
            assertThat(h.numKeyedStateEntries()).as("only key 1 still buffers").isEqualTo(1);

            h.processWatermark(new Watermark(Long.MAX_VALUE));
            assertThat(h.extractOutputValues()).containsExactly(a1, a2, b1, a3);
            assertThat(h.numKeyedStateEntries()).isZero();
            assertThat(h.numEventTimeTimers()).isZero();
        }
    }

    @Test
    void stateHoldsExactlyTheEventsAboveTheWatermark() throws Exception {
        Random random = new Random(3);
        try (KeyedOneInputStreamOperatorTestHarness<String, ChangeEvent, ChangeEvent> h =
                harness(LateEventPolicy.FAIL)) {
            List<ChangeEvent> sent = new ArrayList<>();
            long watermark = 0;
            int txn = 0;
            for (int round = 0; round < 200; round++) {
                // A burst of events above the watermark, in any order, on a few hot keys.
                for (int i = random.nextInt(6); i > 0; i--) {
                    long millis = watermark + 1 + random.nextInt(20);
                    ChangeEvent e =
                            change(
                                    random.nextInt(5),
                                    millis,
                                    random.nextInt(1000),
                                    "t" + txn++,
                                    "0",
                                    0);
                    sent.add(e);
                    h.processElement(new StreamRecord<>(e, millis));
                }
                watermark += random.nextInt(8);
                h.processWatermark(new Watermark(watermark));

                Set<String> keysAbove = new HashSet<>();
                Set<String> bucketsAbove = new HashSet<>();
                int released = 0;
                for (ChangeEvent e : sent) {
                    long millis = e.getCommitTimestamp().toEpochMilli();
                    if (millis > watermark) {
                        keysAbove.add(ChangeEventOrdering.keyOf(e));
                        bucketsAbove.add(ChangeEventOrdering.keyOf(e) + "@" + millis);
                    } else {
                        released++;
                    }
                }
                // Keyed state: one map per key with events above the watermark; one timer per
                // (key, commit millisecond) above it; everything at or below it was emitted.
                assertThat(h.numKeyedStateEntries()).isEqualTo(keysAbove.size());
                assertThat(h.numEventTimeTimers()).isEqualTo(bucketsAbove.size());
                assertThat(h.extractOutputValues()).hasSize(released);
            }
            h.processWatermark(new Watermark(Long.MAX_VALUE));
            assertThat(h.numKeyedStateEntries()).isZero();

            List<ChangeEvent> output = h.extractOutputValues();
            assertThat(output).containsExactlyInAnyOrderElementsOf(sent);
            Map<String, List<ChangeEvent>> perKey = new HashMap<>();
            output.forEach(
                    e ->
                            perKey.computeIfAbsent(
                                            ChangeEventOrdering.keyOf(e), k -> new ArrayList<>())
                                    .add(e));
            for (List<ChangeEvent> events : perKey.values()) {
                assertThat(events).isSortedAccordingTo(ChangeEventOrdering.COMMIT_ORDER);
            }
        }
    }

    @Test
    void lateEventsGoToTheSideOutputByDefault() throws Exception {
        try (KeyedOneInputStreamOperatorTestHarness<String, ChangeEvent, ChangeEvent> h =
                harness(LateEventPolicy.SIDE_OUTPUT)) {
            h.processWatermark(new Watermark(200));
            ChangeEvent late = change(1, 200, 0, "t1", "0", 0);
            h.processElement(new StreamRecord<>(late, 200));
            assertThat(h.extractOutputValues()).isEmpty();
            ConcurrentLinkedQueue<StreamRecord<ChangeEvent>> side =
                    h.getSideOutput(ChangeEventOrdering.LATE_EVENTS);
            assertThat(side).extracting(StreamRecord::getValue).containsExactly(late);
            assertThat(h.numKeyedStateEntries()).isZero();
        }
    }

    @Test
    void lateEventsCanBeEmittedAtOnceOrFailTheTask() throws Exception {
        ChangeEvent late = change(1, 150, 0, "t1", "0", 0);
        try (KeyedOneInputStreamOperatorTestHarness<String, ChangeEvent, ChangeEvent> h =
                harness(LateEventPolicy.EMIT_IMMEDIATELY)) {
            h.processWatermark(new Watermark(200));
            h.processElement(new StreamRecord<>(late, 150));
            assertThat(h.extractOutputValues()).containsExactly(late);
        }
        try (KeyedOneInputStreamOperatorTestHarness<String, ChangeEvent, ChangeEvent> h =
                harness(LateEventPolicy.FAIL)) {
            h.processWatermark(new Watermark(200));
            assertThatThrownBy(() -> h.processElement(new StreamRecord<>(late, 150)))
                    .hasMessageContaining("Late change event")
                    .hasMessageContaining("200");
        }
    }

    @Test
    void bufferedEventsSurviveASnapshotAndRestore() throws Exception {
        ChangeEvent later = change(1, 300, 0, "t2", "0", 0);
        ChangeEvent earlier = change(1, 250, 0, "t1", "0", 0);
        OperatorSubtaskState snapshot;
        try (KeyedOneInputStreamOperatorTestHarness<String, ChangeEvent, ChangeEvent> h =
                harness(LateEventPolicy.FAIL)) {
            process(h, later, earlier);
            snapshot = h.snapshot(1, 1);
        }
        try (KeyedOneInputStreamOperatorTestHarness<String, ChangeEvent, ChangeEvent> h =
                harness(LateEventPolicy.FAIL, snapshot)) {
            h.processWatermark(new Watermark(Long.MAX_VALUE));
            assertThat(h.extractOutputValues()).containsExactly(earlier, later);
            assertThat(h.numKeyedStateEntries()).isZero();
        }
    }

    private static void process(
            KeyedOneInputStreamOperatorTestHarness<String, ChangeEvent, ChangeEvent> h,
            ChangeEvent... events)
            throws Exception {
        for (ChangeEvent e : events) {
            h.processElement(new StreamRecord<>(e, e.getCommitTimestamp().toEpochMilli()));
        }
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, ChangeEvent, ChangeEvent> harness(
            LateEventPolicy policy) throws Exception {
        return harness(policy, null);
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, ChangeEvent, ChangeEvent> harness(
            LateEventPolicy policy, OperatorSubtaskState state) throws Exception {
        KeyedOneInputStreamOperatorTestHarness<String, ChangeEvent, ChangeEvent> h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new ChangeEventReorder(policy)),
                        ChangeEventOrdering::keyOf,
                        Types.STRING);
        h.setup(
                ChangeEventTypeInfo.INSTANCE.createSerializer(
                        h.getExecutionConfig().getSerializerConfig()));
        if (state != null) {
            h.initializeState(state);
        }
        h.open();
        return h;
    }
}
