package io.spannercs.flink.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChangeEventOldRowTest {

    private static ChangeEvent event(
            ChangeType type,
            Map<String, Object> newValues,
            Map<String, Object> oldValues,
            String capture) {
        return ChangeEvent.builder()
                .table("T")
                .changeType(type)
                .keys(Map.of("Id", 1L))
                .newValues(newValues)
                .oldValues(oldValues)
                .commitTimestamp(Instant.EPOCH)
                .serverTransactionId("tx")
                .recordSequence("00000000")
                .modNumber(0)
                .transactionTag("")
                .systemTransaction(false)
                .partitionToken("p")
                .numberOfRecordsInTransaction(1)
                .numberOfPartitionsInTransaction(1)
                .valueCaptureType(capture)
                .build();
    }

    private static Map<String, Object> row(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void rebuildsTheOldRowOfAnUpdateFromTheNewRowAndTheOldValues() {
        ChangeEvent e =
                event(
                        ChangeType.UPDATE,
                        row("A", "a2", "B", "b"),
                        row("A", "a1"),
                        "NEW_ROW_AND_OLD_VALUES");
        assertThat(e.getOldRow())
                .containsExactly(Map.entry("Id", 1L), Map.entry("A", "a1"), Map.entry("B", "b"));
    }

    @Test
    void aDeleteWithOldValuesHasItsWholeOldRow() {
        for (String capture : new String[] {"OLD_AND_NEW_VALUES", "NEW_ROW_AND_OLD_VALUES"}) {
            ChangeEvent e = event(ChangeType.DELETE, row(), row("A", "a", "B", null), capture);
            assertThat(e.getOldRow()).containsOnlyKeys("Id", "A", "B");
        }
    }

    @Test
    void nothingWhereTheCaptureTypeCannotGiveIt() {
        assertThat(
                        event(
                                        ChangeType.UPDATE,
                                        row("A", "a2"),
                                        row("A", "a1"),
                                        "OLD_AND_NEW_VALUES")
                                .getOldRow())
                .as("unwritten columns unknown")
                .isEmpty();
        assertThat(event(ChangeType.DELETE, row(), row(), "NEW_ROW").getOldRow()).isEmpty();
        assertThat(
                        event(ChangeType.INSERT, row("A", "a"), row(), "NEW_ROW_AND_OLD_VALUES")
                                .getOldRow())
                .isEmpty();
    }
}
