package io.spannercs.emulator.edge;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.Struct;
import com.google.cloud.spanner.Type;
import io.spannercs.emulator.EdgeCase;
import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.testing.EdgeScenario;
import io.spannercs.emulator.testing.EdgeTolerantReader;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * null-struct-elements: legacy GoogleSQL rows whose unused arrays hold one element with every field
 * NULL, which Beam's and Debezium's mappers skip.
 */
class NullStructElementsEdgeTest {
    private static final List<String> ARRAYS =
            List.of("data_change_record", "heartbeat_record", "child_partitions_record");

    @Test
    void unusedArraysHoldAllNullElementsOnSomeRows() {
        try (EdgeScenario s =
                EdgeScenario.start(EdgeCases.of(EdgeCase.NULL_STRUCT_ELEMENTS), false, b -> {})
                        .write(150, 2, 10)) {
            EdgeTolerantReader reader = s.reader(EdgeScenario.LEGACY);
            s.check(EdgeScenario.LEGACY, s.read(reader), true);
            long fired = s.emulator().edgeCaseCounts().get(EdgeCase.NULL_STRUCT_ELEMENTS);
            assertThat(fired).isPositive();

            int rows = 0;
            int withNullElements = 0;
            for (var e : reader.partitionStarts().entrySet()) {
                Statement statement =
                        Statement.newBuilder("SELECT ChangeRecord FROM READ_imm(@s, @e, @t, 1000)")
                                .bind("s")
                                .to(e.getValue())
                                .bind("e")
                                .to(s.endTime())
                                .bind("t")
                                .to(e.getKey())
                                .build();
                try (ResultSet rs = s.clients().client().singleUse().executeQuery(statement)) {
                    while (rs.next()) {
                        rows++;
                        List<Struct> elements = rs.getStructList(0);
                        assertThat(elements).hasSize(1);
                        Struct element = elements.get(0);
                        int real = 0;
                        int nulls = 0;
                        for (String array : ARRAYS) {
                            List<Struct> records = element.getStructList(array);
                            assertThat(records).hasSizeLessThanOrEqualTo(1);
                            if (records.isEmpty()) {
                                continue;
                            }
                            if (allNull(records.get(0))) {
                                nulls++;
                            } else {
                                real++;
                            }
                        }
                        assertThat(real).isEqualTo(1);
                        assertThat(nulls).isIn(0, 2);
                        if (nulls == 2) {
                            withNullElements++;
                        }
                    }
                }
            }
            assertThat(withNullElements).isPositive().isLessThan(rows);

            // Only legacy GoogleSQL rows have arrays to fill.
            s.readAndCheck(EdgeScenario.MUTABLE, true);
            assertThat(s.emulator().edgeCaseCounts().get(EdgeCase.NULL_STRUCT_ELEMENTS))
                    .isEqualTo(fired + withNullElements);
        }
    }

    private static boolean allNull(Struct s) {
        List<Type.StructField> fields = s.getType().getStructFields();
        for (int i = 0; i < fields.size(); i++) {
            if (!s.isNull(i)) {
                return false;
            }
        }
        return true;
    }
}
