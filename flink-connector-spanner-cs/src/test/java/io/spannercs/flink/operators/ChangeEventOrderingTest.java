package io.spannercs.flink.operators;

import static io.spannercs.flink.operators.OperatorEvents.change;
import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeType;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The row key and the commit order the operators rely on. */
class ChangeEventOrderingTest {

    @Test
    void keyOfIsTheRowWhateverTheChange() {
        assertThat(ChangeEventOrdering.keyOf(change(7, 100, 0, "t1", "0", 0)))
                .isEqualTo(ChangeEventOrdering.keyOf(change(7, 900, 3, "t9", "4", 2)))
                .isNotEqualTo(ChangeEventOrdering.keyOf(change(8, 100, 0, "t1", "0", 0)));
    }

    @Test
    void keyOfComparesBytesByContentAndNumericByValue() {
        assertThat(ChangeEventOrdering.keyOf(row("T", "K", new byte[] {1, 2})))
                .isEqualTo(ChangeEventOrdering.keyOf(row("T", "K", new byte[] {1, 2})))
                .isNotEqualTo(ChangeEventOrdering.keyOf(row("T", "K", new byte[] {1, 3})));
        assertThat(ChangeEventOrdering.keyOf(row("T", "K", new BigDecimal("1.50"))))
                .isEqualTo(ChangeEventOrdering.keyOf(row("T", "K", new BigDecimal("1.5"))));
    }

    @Test
    void keyOfCannotBeFooledBySeparatorsInValues() {
        // Without length prefixes, ("a|", "b") and ("a", "|b") could give the same string.
        assertThat(ChangeEventOrdering.keyOf(row("T", "A", "a1:", "B", "b")))
                .isNotEqualTo(ChangeEventOrdering.keyOf(row("T", "A", "a", "B", "1:b")));
        assertThat(ChangeEventOrdering.keyOf(row("T1", "K", "x")))
                .isNotEqualTo(ChangeEventOrdering.keyOf(row("T", "K", "1x")));
        assertThat(ChangeEventOrdering.keyOf(row("T", "A", null, "B", "x")))
                .isNotEqualTo(ChangeEventOrdering.keyOf(row("T", "A", "x", "B", null)));
    }

    @Test
    void commitOrderIsTimestampThenTransactionRecordAndMod() {
        ChangeEvent a = change(1, 100, 1, "b", "9", 0);
        ChangeEvent b = change(1, 100, 2, "a", "0", 0);
        ChangeEvent c = change(1, 100, 2, "b", "2", 1);
        // Record sequences compare as numbers, not strings: "10" follows "9".
        ChangeEvent d = change(1, 100, 2, "b", "10", 0);
        ChangeEvent e = change(1, 100, 2, "b", "10", 1);
        List<ChangeEvent> events = new ArrayList<>(List.of(e, d, c, b, a));
        events.sort(ChangeEventOrdering.COMMIT_ORDER);
        assertThat(events).containsExactly(a, b, c, d, e);
    }

    private static ChangeEvent row(String table, Object... keyValues) {
        Map<String, Object> keys = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            keys.put((String) keyValues[i], keyValues[i + 1]);
        }
        return ChangeEvent.builder()
                .table(table)
                .changeType(ChangeType.INSERT)
                .keys(keys)
                .newValues(Map.of())
                .oldValues(Map.of())
                .commitTimestamp(Instant.EPOCH)
                .serverTransactionId("t")
                .recordSequence("0")
                .modNumber(0)
                .transactionTag("")
                .systemTransaction(false)
                .partitionToken("p")
                .numberOfRecordsInTransaction(1)
                .numberOfPartitionsInTransaction(1)
                .valueCaptureType("NEW_ROW")
                .build();
    }
}
