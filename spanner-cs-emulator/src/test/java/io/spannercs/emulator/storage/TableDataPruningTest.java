package io.spannercs.emulator.storage;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Value;
import io.spannercs.emulator.schema.DdlParser;
import io.spannercs.emulator.schema.SpannerTypes;
import io.spannercs.emulator.schema.TableDef;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Old row versions are kept exactly as long as reads within the retention period need them. */
class TableDataPruningTest {
    private static final TableDef T =
            DdlParser.parse("CREATE TABLE T (K INT64 NOT NULL, V STRING(MAX)) PRIMARY KEY (K)")
                    .table("T")
                    .orElseThrow();

    private static List<Value> row(long k, String v) {
        return List.of(SpannerTypes.str(Long.toString(k)), SpannerTypes.str(v));
    }

    private static List<Value> key(long k) {
        return List.of(SpannerTypes.str(Long.toString(k)));
    }

    @Test
    void keepsTheVersionsReadsAtOrAfterTheCutoffNeed() {
        TableData t = new TableData(T);
        t.write(key(1), row(1, "a"), 100, 0);
        t.write(key(1), row(1, "b"), 200, 0);
        t.write(key(1), row(1, "c"), 300, 0);
        assertThat(t.versionCount()).isEqualTo(3);
        // A cutoff of 250: a read at 250 sees "b", so "b" stays and "a" goes.
        t.write(key(1), row(1, "d"), 400, 250);
        assertThat(t.versionCount()).isEqualTo(3);
        assertThat(t.readAt(250)).containsExactly(row(1, "b"));
        assertThat(t.readAt(300)).containsExactly(row(1, "c"));
        assertThat(t.readAt(400)).containsExactly(row(1, "d"));
    }

    @Test
    void dropsRowsDeletedBeforeTheCutoff() {
        TableData t = new TableData(T);
        t.write(key(1), row(1, "a"), 100, 0);
        t.write(key(1), null, 200, 0);
        t.write(key(2), row(2, "x"), 150, 0);
        t.prune(199);
        assertThat(t.versionCount()).isEqualTo(3);
        assertThat(t.readAt(199)).containsExactly(row(1, "a"), row(2, "x"));
        t.prune(250);
        assertThat(t.versionCount()).isEqualTo(1);
        assertThat(t.readAt(250)).containsExactly(row(2, "x"));
        assertThat(t.currentKeys()).containsExactly(key(2));
    }
}
