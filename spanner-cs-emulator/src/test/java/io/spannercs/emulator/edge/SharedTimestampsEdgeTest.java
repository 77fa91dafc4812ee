package io.spannercs.emulator.edge;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.Timestamp;
import com.google.protobuf.ListValue;
import com.google.spanner.v1.Mutation;
import io.spannercs.emulator.EdgeCase;
import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.schema.SpannerTypes;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.emulator.storage.Database;
import io.spannercs.emulator.storage.RowChange;
import io.spannercs.emulator.testing.EdgeChecks;
import io.spannercs.emulator.testing.EdgeScenario;
import io.spannercs.emulator.testing.ReadRecord;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** shared-timestamps: several transactions at one commit timestamp, also in one partition. */
class SharedTimestampsEdgeTest {

    @Test
    void transactionsShareTimestampsAndBothModesStayExact() {
        try (EdgeScenario s =
                EdgeScenario.start(EdgeCases.of(EdgeCase.SHARED_TIMESTAMPS), false, b -> {})
                        .write(400, 3, 15)) {
            List<CommittedTransaction> truth = s.emulator().database().groundTruth();
            Set<String> ids = new HashSet<>();
            Map<Long, Integer> perTimestamp = new HashMap<>();
            long last = Long.MIN_VALUE;
            for (CommittedTransaction t : truth) {
                assertThat(ids.add(t.serverTransactionId())).isTrue();
                assertThat(t.commitMicros()).isGreaterThanOrEqualTo(last);
                last = t.commitMicros();
                perTimestamp.merge(t.commitMicros(), 1, Integer::sum);
            }
            assertThat(perTimestamp.values()).anyMatch(n -> n >= 2).allMatch(n -> n <= 4);
            assertThat(s.emulator().edgeCaseCounts().get(EdgeCase.SHARED_TIMESTAMPS)).isPositive();

            Map<String, List<ReadRecord>> mutable = s.readAndCheck(EdgeScenario.MUTABLE, true);
            Map<String, List<ReadRecord>> legacy = s.readAndCheck(EdgeScenario.LEGACY, true);
            assertThat(sharedInOnePartition(mutable)).isTrue();
            assertThat(sharedInOnePartition(legacy)).isTrue();
            // Legacy sequences restart in each transaction: (timestamp, sequence) repeats.
            assertThat(repeatedTimestampAndSequence(legacy)).isTrue();
        }
    }

    /**
     * A read whose window starts at a timestamp where a partition has both data and partition
     * records (the churn event took the data's timestamp) still returns every change from there.
     */
    @ParameterizedTest
    @ValueSource(strings = {EdgeScenario.MUTABLE, EdgeScenario.LEGACY})
    void aReadStartingAtASharedChurnTimestampMissesNothing(String stream) {
        try (EdgeScenario s =
                EdgeScenario.start(EdgeCases.of(EdgeCase.SHARED_TIMESTAMPS), false, b -> {})
                        .write(300, 3, 3)) {
            Map<String, List<ReadRecord>> all = s.readAndCheck(stream, true);
            TreeSet<Long> shared = new TreeSet<>();
            for (List<ReadRecord> records : all.values()) {
                Set<Long> data = new HashSet<>();
                for (ReadRecord r : records) {
                    if (r.kind() == ReadRecord.Kind.DATA) {
                        data.add(r.micros());
                    } else if (data.contains(r.micros())) {
                        shared.add(r.micros());
                    }
                }
            }
            assertThat(shared).as("churn events at a data timestamp").isNotEmpty();
            boolean mutable = s.mutable(stream);
            for (long t : shared.stream().limit(3).toList()) {
                Map<String, List<ReadRecord>> fromT =
                        s.reader(stream).readAll(Timestamp.ofTimeMicroseconds(t), s.endTime());
                List<CommittedTransaction> truth =
                        s.emulator().database().groundTruth().stream()
                                .filter(x -> x.commitMicros() >= t)
                                .toList();
                EdgeChecks.checkStream(
                        s.emulator().database().changeStream(stream).def(),
                        truth,
                        s.emulator().edgeCases(),
                        mutable,
                        mutable,
                        fromT,
                        false);
            }
        }
    }

    /** Some partition returned data records of two transactions at one timestamp. */
    private static boolean sharedInOnePartition(Map<String, List<ReadRecord>> partitions) {
        for (List<ReadRecord> records : partitions.values()) {
            Map<Long, Set<String>> txns = new HashMap<>();
            for (ReadRecord r : records) {
                if (r.kind() == ReadRecord.Kind.DATA) {
                    txns.computeIfAbsent(r.micros(), k -> new HashSet<>())
                            .add(r.data().serverTransactionId());
                }
            }
            if (txns.values().stream().anyMatch(t -> t.size() >= 2)) {
                return true;
            }
        }
        return false;
    }

    private static boolean repeatedTimestampAndSequence(Map<String, List<ReadRecord>> partitions) {
        for (List<ReadRecord> records : partitions.values()) {
            Set<List<Object>> seen = new HashSet<>();
            for (ReadRecord r : records) {
                if (r.kind() == ReadRecord.Kind.DATA
                        && !seen.add(List.of(r.micros(), r.sequence()))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Commits in a tight loop, with safe timestamps read in between: no commit takes a timestamp at
     * or below a published safe one, one row is written at most once per timestamp, at most four
     * transactions share one, and no data commit follows a churn event at its timestamp.
     */
    @Test
    void sharingKeepsTheSafeTimestampPromise() {
        try (SpannerEmulator emulator =
                SpannerEmulator.builder()
                        .ddl(
                                "CREATE TABLE T (K INT64 NOT NULL, V STRING(MAX)) PRIMARY KEY (K);\n"
                                        + "CREATE CHANGE STREAM cs FOR ALL;")
                        .edgeCases(EdgeCases.of(EdgeCase.SHARED_TIMESTAMPS))
                        .seed(3)
                        .start()) {
            Database db = emulator.database().database();
            ChangeStream cs = emulator.database().changeStream("cs");
            Random random = new Random(5);
            long published = Long.MIN_VALUE;
            Set<List<Object>> rowsAtTimestamp = new HashSet<>();
            Map<Long, Integer> perTimestamp = new HashMap<>();
            for (int i = 0; i < 3000; i++) {
                int what = random.nextInt(20);
                if (what == 0) {
                    published = Math.max(published, db.safeMicros());
                    assertThat(db.safeMicros()).isGreaterThanOrEqualTo(published);
                    continue;
                }
                if (what == 1) {
                    long before = db.groundTruth().size();
                    cs.churnRandomly();
                    assertThat(db.groundTruth()).hasSize((int) before);
                    continue;
                }
                CommittedTransaction t =
                        emulator.database().commit(List.of(write(random.nextInt(30))), "");
                assertThat(t.commitMicros()).isGreaterThan(published);
                perTimestamp.merge(t.commitMicros(), 1, Integer::sum);
                for (RowChange c : t.changes()) {
                    assertThat(rowsAtTimestamp.add(List.of(t.commitMicros(), c.key())))
                            .as("row written twice at one timestamp")
                            .isTrue();
                }
            }
            assertThat(perTimestamp.values()).anyMatch(n -> n >= 2).allMatch(n -> n <= 4);
            assertThat(emulator.edgeCaseCounts().get(EdgeCase.SHARED_TIMESTAMPS)).isPositive();
        }
    }

    private static Mutation write(long key) {
        return Mutation.newBuilder()
                .setInsertOrUpdate(
                        Mutation.Write.newBuilder()
                                .setTable("T")
                                .addColumns("K")
                                .addColumns("V")
                                .addValues(
                                        ListValue.newBuilder()
                                                .addValues(SpannerTypes.str(Long.toString(key)))
                                                .addValues(SpannerTypes.str("v" + key))))
                .build();
    }
}
