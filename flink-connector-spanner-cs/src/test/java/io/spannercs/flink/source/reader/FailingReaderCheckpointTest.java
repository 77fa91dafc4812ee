package io.spannercs.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.source.EmulatorSources;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.event.EventsStoppedEvent;
import io.spannercs.flink.source.event.ReaderFailingEvent;
import io.spannercs.flink.source.split.PartitionSplit;
import io.spannercs.flink.source.split.SpannerSplit;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.connector.testutils.source.reader.TestingReaderOutput;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A reader that failed waits for the enumerator's {@link EventsStoppedEvent} before its task fails.
 * Flink holds every event from the coordinator to a subtask from the coordinator's checkpoint until
 * that subtask's own checkpoint: a checkpoint that reaches the reader while it waits cannot receive
 * the answer by waiting, so it must not wait (before, it waited 10 s, failed the task, and Flink
 * then reported the held answer as lost: a second failure, and a restart for an error a restart
 * cannot fix). Each test checks the checkpoint taken while waiting against the emulator's record of
 * the commits: restored, it reads every change exactly once.
 */
class FailingReaderCheckpointTest {
    private static final Duration LIMIT = Duration.ofSeconds(30);

    private final ReaderFixture fixture = new ReaderFixture("IMMUTABLE_KEY_RANGE", 1);
    private final SpannerEmulator emulator = fixture.emulator;

    @AfterEach
    void stop() throws Exception {
        fixture.close();
    }

    /** The partition's query is refused part-way: what was emitted is the checkpoint's state. */
    @Test
    void aCheckpointWhileAQueryFailureWaitsHoldsWhatWasEmitted() throws Exception {
        String token = emulator.database().changeStream("cs").liveTokens().get(0);
        long start = fixture.commit(List.of(ReaderFixture.upsert(1)));
        fixture.commit(List.of(ReaderFixture.upsert(2)));
        fixture.commit(List.of(ReaderFixture.upsert(3)));
        long end = fixture.commit(List.of(ReaderFixture.upsert(4)));
        // Fails the first query after its third row, once: the restored reader's query succeeds.
        emulator.faults().failStreamAfterRows(token, 3, Status.Code.PERMISSION_DENIED, 1);
        SpannerSourceConfig config = config(end);

        ReaderDriver failing = driver(config, token, start, ChangeEventDeserializer.changeEvents());
        failing.pollUntil(() -> sentFailing(failing), LIMIT, "the reader announces its failure");
        List<Long> before = keys(failing.output.getEmittedRecords());

        List<SpannerSplit> checkpoint = failing.checkpoint();

        assertThat(checkpoint).as("the checkpoint while the enumerator's answer waits").hasSize(1);
        ReaderDriver restored = driver(config, checkpoint, ChangeEventDeserializer.changeEvents());
        restored.pollUntil(() -> finished(restored), LIMIT, "the restored reader ends");
        List<Long> all = new ArrayList<>(before);
        all.addAll(keys(restored.output.getEmittedRecords()));
        assertThat(all)
                .as("before the failure, then after the restore")
                .containsExactly(1L, 2L, 3L, 4L);

        failing.reader.handleSourceEvents(new EventsStoppedEvent());
        assertThatThrownBy(() -> failing.pollUntil(() -> false, LIMIT, "the task fails"))
                .hasStackTraceContaining("PERMISSION_DENIED");
    }

    /**
     * The user's deserializer fails on the second row of a transaction: nothing of that record was
     * emitted, so the checkpoint resumes before it.
     */
    @Test
    void aDeserializerFailureEmitsNothingOfItsRecord() throws Exception {
        String token = emulator.database().changeStream("cs").liveTokens().get(0);
        long start = fixture.commit(List.of(ReaderFixture.upsert(1)));
        fixture.commit(List.of(ReaderFixture.upsert(10), ReaderFixture.upsert(11)));
        long end = fixture.commit(List.of(ReaderFixture.upsert(12)));
        SpannerSourceConfig config = config(end);

        ReaderDriver failing = driver(config, token, start, new FailsOnKey(11));
        failing.pollUntil(() -> sentFailing(failing), LIMIT, "the reader announces its failure");

        assertThat(keys(failing.output.getEmittedRecords()))
                .as("emitted before the failure: nothing of the failing record")
                .containsExactly(1L);
        List<SpannerSplit> checkpoint = failing.checkpoint();
        ReaderDriver restored = driver(config, checkpoint, ChangeEventDeserializer.changeEvents());
        restored.pollUntil(() -> finished(restored), LIMIT, "the restored reader ends");
        assertThat(keys(restored.output.getEmittedRecords())).containsExactly(10L, 11L, 12L);

        failing.reader.handleSourceEvents(new EventsStoppedEvent());
        assertThatThrownBy(() -> failing.pollUntil(() -> false, LIMIT, "the task fails"))
                .hasStackTraceContaining("no deserializing key 11");
    }

    /**
     * An operator chained downstream fails while the reader emits: its state may be part-way, so no
     * checkpoint may complete. The reader's checkpoint fails at once instead of waiting.
     */
    @Test
    void aFailureDownstreamFailsTheCheckpoint() throws Exception {
        String token = emulator.database().changeStream("cs").liveTokens().get(0);
        long start = fixture.commit(List.of(ReaderFixture.upsert(1)));
        long end = fixture.commit(List.of(ReaderFixture.upsert(2)));
        ReaderDriver failing =
                driver(config(end), token, start, ChangeEventDeserializer.changeEvents());
        ReaderOutput<ChangeEvent> downstreamFails = new FailingOutput();

        long deadline = System.nanoTime() + LIMIT.toNanos();
        while (!sentFailing(failing)) {
            assertThat(System.nanoTime())
                    .as("the reader announces its failure")
                    .isLessThan(deadline);
            failing.reader.pollNext(downstreamFails);
        }

        assertThatThrownBy(failing::checkpoint)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("failed before checkpoint")
                .hasStackTraceContaining("the operator downstream failed");
    }

    private static boolean sentFailing(ReaderDriver d) {
        return d.context.getSentEvents().stream().anyMatch(e -> e instanceof ReaderFailingEvent);
    }

    private static boolean finished(ReaderDriver d) {
        try {
            return d.checkpoint().stream().allMatch(s -> ((PartitionSplit) s).finished());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<Long> keys(List<ChangeEvent> events) {
        List<Long> out = new ArrayList<>();
        for (ChangeEvent e : events) {
            out.add(((Number) e.getKeys().get("K")).longValue());
        }
        return out;
    }

    private ReaderDriver driver(
            SpannerSourceConfig config,
            String token,
            long start,
            ChangeEventDeserializer<ChangeEvent> deserializer) {
        return driver(
                config,
                List.of(PartitionSplit.fresh(token, start, config.endMicros(), List.of())),
                deserializer);
    }

    private ReaderDriver driver(
            SpannerSourceConfig config,
            List<SpannerSplit> splits,
            ChangeEventDeserializer<ChangeEvent> deserializer) {
        return fixture.driver(config, splits, deserializer);
    }

    /** Bounded at the last commit; no reads ahead, so the splits are the reader's own. */
    private SpannerSourceConfig config(long endMicros) {
        Instant end = Instant.EPOCH.plusNanos(endMicros * 1000);
        return EmulatorSources.builder(emulator, "cs", Instant.EPOCH, end)
                .build()
                .config()
                .withReadAhead(false);
    }

    /** The user's deserializer, failing on one key. */
    private static final class FailsOnKey implements ChangeEventDeserializer<ChangeEvent> {
        private final long key;

        FailsOnKey(long key) {
            this.key = key;
        }

        @Override
        public void deserialize(ChangeEvent event, Collector<ChangeEvent> out) {
            if (((Number) event.getKeys().get("K")).longValue() == key) {
                throw new IllegalArgumentException("no deserializing key " + key);
            }
            out.collect(event);
        }

        @Override
        public TypeInformation<ChangeEvent> getProducedType() {
            return TypeInformation.of(ChangeEvent.class);
        }
    }

    /** The task's output, whose chained operators fail on the first record. */
    private static final class FailingOutput extends TestingReaderOutput<ChangeEvent> {
        @Override
        public void collect(ChangeEvent record) {
            fail();
        }

        @Override
        public void collect(ChangeEvent record, long timestamp) {
            fail();
        }

        private static void fail() {
            throw new IllegalStateException("the operator downstream failed");
        }
    }
}
