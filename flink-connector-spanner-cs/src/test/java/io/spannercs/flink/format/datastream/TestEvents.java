package io.spannercs.flink.format.datastream;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeType;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Change events as the source builds them, and a comparison that looks into byte arrays. */
final class TestEvents {
    static final Instant COMMIT = Instant.parse("2026-03-01T12:00:00.123456Z");

    private TestEvents() {}

    static DatastreamContext.Builder context() {
        return DatastreamContext.builder("proj", "inst", "db", "cs");
    }

    static ChangeEvent event(
            String table,
            ChangeType type,
            Map<String, Object> keys,
            Map<String, Object> newValues,
            Map<String, Object> oldValues,
            String captureType) {
        return ChangeEvent.builder()
                .table(table)
                .changeType(type)
                .keys(keys)
                .newValues(newValues)
                .oldValues(oldValues)
                .commitTimestamp(COMMIT)
                .serverTransactionId("1234567890")
                .recordSequence("00000003")
                .modNumber(1)
                .transactionTag("tag-1")
                .systemTransaction(false)
                .partitionToken("token-abc")
                .numberOfRecordsInTransaction(5)
                .numberOfPartitionsInTransaction(2)
                .valueCaptureType(captureType)
                .build();
    }

    /** Every field equal; values compared deeply, byte arrays by content, NaN equal to NaN. */
    static void assertSameEvent(ChangeEvent actual, ChangeEvent expected) {
        assertThat(actual.getTable()).isEqualTo(expected.getTable());
        assertThat(actual.getChangeType()).isEqualTo(expected.getChangeType());
        assertSameValues(actual.getKeys(), expected.getKeys());
        assertSameValues(actual.getNewValues(), expected.getNewValues());
        assertSameValues(actual.getOldValues(), expected.getOldValues());
        assertThat(actual.getCommitTimestamp()).isEqualTo(expected.getCommitTimestamp());
        assertThat(actual.getServerTransactionId()).isEqualTo(expected.getServerTransactionId());
        assertThat(actual.getRecordSequence()).isEqualTo(expected.getRecordSequence());
        assertThat(actual.getModNumber()).isEqualTo(expected.getModNumber());
        assertThat(actual.getTransactionTag()).isEqualTo(expected.getTransactionTag());
        assertThat(actual.isSystemTransaction()).isEqualTo(expected.isSystemTransaction());
        assertThat(actual.getPartitionToken()).isEqualTo(expected.getPartitionToken());
        assertThat(actual.getNumberOfRecordsInTransaction())
                .isEqualTo(expected.getNumberOfRecordsInTransaction());
        assertThat(actual.getNumberOfPartitionsInTransaction())
                .isEqualTo(expected.getNumberOfPartitionsInTransaction());
        assertThat(actual.getValueCaptureType()).isEqualTo(expected.getValueCaptureType());
    }

    static void assertSameValues(Map<String, Object> actual, Map<String, Object> expected) {
        assertThat(actual.keySet()).containsExactlyElementsOf(expected.keySet());
        expected.forEach(
                (column, value) ->
                        assertThat(same(actual.get(column), value))
                                .as(
                                        "column %s: %s (%s) vs expected %s (%s)",
                                        column,
                                        show(actual.get(column)),
                                        typeOf(actual.get(column)),
                                        show(value),
                                        typeOf(value))
                                .isTrue());
    }

    private static boolean same(Object a, Object b) {
        if (a instanceof List && b instanceof List) {
            List<?> x = (List<?>) a;
            List<?> y = (List<?>) b;
            if (x.size() != y.size()) {
                return false;
            }
            for (int i = 0; i < x.size(); i++) {
                if (!same(x.get(i), y.get(i))) {
                    return false;
                }
            }
            return true;
        }
        // Objects.deepEquals: byte[] by content; Double.equals: NaN == NaN, 0.0 != -0.0;
        // BigDecimal.equals: scale must match too.
        return Objects.deepEquals(a, b) && Objects.equals(typeOf(a), typeOf(b));
    }

    private static String typeOf(Object v) {
        return v == null ? "null" : v.getClass().getSimpleName();
    }

    private static String show(Object v) {
        return v instanceof byte[] ? Arrays.toString((byte[]) v) : String.valueOf(v);
    }
}
