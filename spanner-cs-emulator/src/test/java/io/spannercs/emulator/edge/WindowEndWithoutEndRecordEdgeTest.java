package io.spannercs.emulator.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.SpannerException;
import io.spannercs.emulator.EdgeCase;
import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.changestream.ChurnOp;
import io.spannercs.emulator.changestream.Partition;
import io.spannercs.emulator.testing.ClientChangeStreamReader;
import io.spannercs.emulator.testing.EdgeScenario;
import io.spannercs.emulator.testing.EdgeTolerantReader;
import io.spannercs.emulator.testing.ReadRecord;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * window-end-without-end-record (Beam #40232): a query whose window holds its partition's end
 * sometimes ends normally without the end record, at most once per partition; a query started after
 * a partition's end fails INVALID_ARGUMENT.
 */
class WindowEndWithoutEndRecordEdgeTest {

    /** Merges and splits by turns, so partitions of both modes end in the window. */
    private static EdgeScenario scenario(EdgeCases edges) {
        Map<String, Integer> turns = new HashMap<>();
        return EdgeScenario.start(edges, false, b -> b.maxPartitions(5))
                .write(
                        150,
                        2,
                        6,
                        cs -> {
                            int turn = turns.merge(cs.def().name(), 1, Integer::sum);
                            try {
                                cs.churn(turn % 2 == 1 ? ChurnOp.MERGE : ChurnOp.SPLIT);
                            } catch (IllegalStateException e) {
                                cs.churn(ChurnOp.SPLIT);
                            }
                        });
    }

    @ParameterizedTest
    @ValueSource(strings = {EdgeScenario.MUTABLE, EdgeScenario.LEGACY})
    void somePartitionsWithholdTheirEndRecordOnceThenSendIt(String stream) {
        try (EdgeScenario s = scenario(EdgeCases.of(EdgeCase.WINDOW_END_WITHOUT_END_RECORD))) {
            ChangeStream cs = s.emulator().database().changeStream(stream);
            ClientChangeStreamReader raw =
                    new ClientChangeStreamReader(s.clients().client(), stream, s.mutable(stream));
            long windowEnd = micros(s.endTime());
            Deque<Object[]> queue = new ArrayDeque<>();
            Set<String> seen = new HashSet<>();
            for (ReadRecord r : raw.query(null, s.startTime(), s.endTime())) {
                r.tokens().forEach(t -> enqueue(queue, seen, t, s.startTime()));
            }
            int withheld = 0;
            int ended = 0;
            while (!queue.isEmpty()) {
                Object[] next = queue.poll();
                String token = (String) next[0];
                Partition p = cs.partition(token);
                boolean endsInWindow = p.endMicros() <= windowEnd;
                List<ReadRecord> first = raw.query(token, (Timestamp) next[1], s.endTime());
                boolean hasEnd = first.stream().anyMatch(WindowEndWithoutEndRecordEdgeTest::isEnd);
                assertThat(!hasEnd || endsInWindow).isTrue();
                List<ReadRecord> records = new ArrayList<>(first);
                if (endsInWindow) {
                    ended++;
                    if (!hasEnd) {
                        withheld++;
                        // Restart from the last real record: the end record comes this time.
                        long last =
                                first.stream()
                                        .filter(r -> r.kind() != ReadRecord.Kind.HEARTBEAT)
                                        .mapToLong(ReadRecord::micros)
                                        .max()
                                        .orElse(micros((Timestamp) next[1]));
                        List<ReadRecord> second =
                                raw.query(token, Timestamp.ofTimeMicroseconds(last), s.endTime());
                        assertThat(second).anyMatch(WindowEndWithoutEndRecordEdgeTest::isEnd);
                        records.addAll(second);
                    }
                    // A partition withholds its end record at most once.
                    assertThat(raw.query(token, (Timestamp) next[1], s.endTime()))
                            .anyMatch(WindowEndWithoutEndRecordEdgeTest::isEnd);
                }
                for (ReadRecord r : records) {
                    if (r.kind() == ReadRecord.Kind.CHILD_PARTITIONS
                            || r.kind() == ReadRecord.Kind.PARTITION_START) {
                        r.tokens()
                                .forEach(
                                        t ->
                                                enqueue(
                                                        queue,
                                                        seen,
                                                        t,
                                                        Timestamp.ofTimeMicroseconds(r.micros())));
                    }
                }
            }
            assertThat(ended).isGreaterThan(2);
            assertThat(withheld).isPositive().isLessThan(ended);
            assertThat(s.emulator().edgeCaseCounts().get(EdgeCase.WINDOW_END_WITHOUT_END_RECORD))
                    .isEqualTo(withheld);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {EdgeScenario.MUTABLE, EdgeScenario.LEGACY})
    void aTolerantReaderReadsEverything(String stream) {
        try (EdgeScenario s = scenario(EdgeCases.of(EdgeCase.WINDOW_END_WITHOUT_END_RECORD))) {
            EdgeTolerantReader reader = s.reader(stream);
            s.check(stream, s.read(reader), true);
            assertThat(reader.endingsWithoutEndRecord()).isPositive();
            assertThat(s.emulator().edgeCaseCounts().get(EdgeCase.WINDOW_END_WITHOUT_END_RECORD))
                    .isPositive();
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aStartAfterThePartitionsEndIsInvalid(boolean edgeOn) {
        try (EdgeScenario s =
                scenario(
                        edgeOn
                                ? EdgeCases.of(EdgeCase.WINDOW_END_WITHOUT_END_RECORD)
                                : EdgeCases.none())) {
            for (String stream : List.of(EdgeScenario.MUTABLE, EdgeScenario.LEGACY)) {
                ChangeStream cs = s.emulator().database().changeStream(stream);
                Partition ended =
                        cs.partitionsLiveAt(micros(s.startTime())).stream()
                                .filter(p -> p.endMicros() < micros(s.endTime()))
                                .findFirst()
                                .orElseThrow();
                ClientChangeStreamReader raw =
                        new ClientChangeStreamReader(
                                s.clients().client(), stream, s.mutable(stream));
                assertThatThrownBy(
                                () ->
                                        raw.query(
                                                ended.token(),
                                                Timestamp.ofTimeMicroseconds(ended.endMicros() + 1),
                                                s.endTime()))
                        .isInstanceOfSatisfying(
                                SpannerException.class,
                                e -> {
                                    // With the edge off, today's answer stays.
                                    assertThat(e.getErrorCode())
                                            .isEqualTo(
                                                    edgeOn
                                                            ? ErrorCode.INVALID_ARGUMENT
                                                            : ErrorCode.OUT_OF_RANGE);
                                    assertThat(e.getMessage())
                                            .contains("Specified start_timestamp is invalid");
                                });
            }
        }
    }

    private static boolean isEnd(ReadRecord r) {
        return r.kind() == ReadRecord.Kind.CHILD_PARTITIONS
                || r.kind() == ReadRecord.Kind.PARTITION_END;
    }

    private static void enqueue(Deque<Object[]> queue, Set<String> seen, String t, Timestamp at) {
        if (seen.add(t)) {
            queue.add(new Object[] {t, at});
        }
    }

    private static long micros(Timestamp t) {
        return t.getSeconds() * 1_000_000L + t.getNanos() / 1000;
    }
}
