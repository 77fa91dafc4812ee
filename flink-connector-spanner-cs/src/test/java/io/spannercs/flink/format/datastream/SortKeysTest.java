package io.spannercs.flink.format.datastream;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeType;
import io.spannercs.flink.source.record.RecordSequences;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * sort_keys put events into commit order; uuids are stable per change and differ across changes.
 */
class SortKeysTest {
    @Test
    void recordSequenceKeysSortAsTheSourceOrdersSequences() {
        Random random = new Random(5);
        List<String> sequences = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            sequences.add(randomSequence(random));
        }
        sequences.addAll(
                List.of(
                        "9",
                        "10",
                        "00000009",
                        "00000010",
                        "1cac8f3f38eeaf53-00000000",
                        "1cac8f3f38eeaf53-00000001",
                        "1cac8f3f38eeaf53",
                        "1CAC8F3F38EEAF54-0",
                        "ffffffffffffffff-ffffffff",
                        "1" + "0".repeat(20)));
        for (String a : sequences) {
            for (String b : sequences.subList(0, 200)) {
                assertThat(
                                Integer.signum(
                                        SortKeys.recordSequenceKey(a)
                                                .compareTo(SortKeys.recordSequenceKey(b))))
                        .as("%s vs %s", a, b)
                        .isEqualTo(Integer.signum(RecordSequences.compare(a, b)));
            }
        }
    }

    private static String randomSequence(Random r) {
        switch (r.nextInt(3)) {
            case 0:
                return String.format("%08d", r.nextInt(200));
            case 1:
                return Long.toString(r.nextInt(200)); // unpadded: width must not matter
            default:
                return String.format("%016x-%08d", r.nextInt(3), r.nextInt(20));
        }
    }

    @Test
    void keysAreReadableForSpannersFormats() {
        assertThat(SortKeys.recordSequenceKey("00000012")).isEqualTo("0000000000000012");
        assertThat(SortKeys.recordSequenceKey("1cac8f3f38eeaf53-00000000"))
                .isEqualTo("1cac8f3f38eeaf53-0000000000000000");
    }

    @Test
    void sortingBySortKeysRestoresCommitOrder() {
        // Two transactions at one timestamp, several records and mods each, one later commit.
        Instant t = Instant.parse("2026-01-01T00:00:00.000001Z");
        List<ChangeEvent> commitOrder = new ArrayList<>();
        commitOrder.add(event(t, "10", "00000000", 0));
        commitOrder.add(event(t, "10", "00000000", 1));
        commitOrder.add(event(t, "10", "00000009", 0));
        commitOrder.add(event(t, "10", "00000010", 0));
        commitOrder.add(event(t, "11", "00000000", 0));
        commitOrder.add(event(t.plusNanos(1000), "2", "00000000", 0));
        commitOrder.add(event(t.plusSeconds(1), "3", "1cac8f3f38eeaf53-00000002", 0));
        commitOrder.add(event(t.plusSeconds(1), "3", "1cac8f3f38eeaf53-00000010", 0));
        List<ChangeEvent> shuffled = new ArrayList<>(commitOrder);
        Collections.shuffle(shuffled, new Random(1));
        shuffled.sort(Comparator.comparing(SortKeys::of, SortKeysTest::compareSortKeys));
        assertThat(shuffled).containsExactlyElementsOf(commitOrder);
    }

    /** Element by element, numbers as numbers and strings as strings, as a consumer would. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static int compareSortKeys(List<Object> a, List<Object> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = ((Comparable) a.get(i)).compareTo(b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    @Test
    void uuidsAreStablePerChangeAndDistinctAcrossChanges() {
        String db = "projects/p/instances/i/databases/d";
        UUID u = EventUuids.of(db, "42", "00000003", 1);
        assertThat(EventUuids.of(db, "42", "00000003", 1)).isEqualTo(u);
        assertThat(EventUuids.of(db, "42", "3", 1)).as("padding does not matter").isEqualTo(u);
        assertThat(
                        List.of(
                                EventUuids.of(db, "42", "00000003", 2),
                                EventUuids.of(db, "42", "00000004", 1),
                                EventUuids.of(db, "43", "00000003", 1),
                                EventUuids.of("projects/p/instances/i/databases/e", "42", "3", 1)))
                .doesNotContain(u)
                .doesNotHaveDuplicates();
        assertThat(u.version()).isEqualTo(3);
        // Pinned (computed independently, with Python's hashlib): a change must keep its uuid
        // across versions of this connector.
        assertThat(u).hasToString("79d8ee32-fb6f-340a-babe-37c5d23c9ee5");
    }

    private static ChangeEvent event(Instant t, String txn, String sequence, int mod) {
        return ChangeEvent.builder()
                .table("T")
                .changeType(ChangeType.INSERT)
                .keys(Map.of("K", 1L))
                .newValues(Map.of())
                .oldValues(Map.of())
                .commitTimestamp(t)
                .serverTransactionId(txn)
                .recordSequence(sequence)
                .modNumber(mod)
                .transactionTag("")
                .systemTransaction(false)
                .partitionToken("p")
                .numberOfRecordsInTransaction(1)
                .numberOfPartitionsInTransaction(1)
                .valueCaptureType("NEW_ROW")
                .build();
    }
}
