package io.spannercs.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.TimestampBound;
import io.spannercs.emulator.testing.EmulatorClients;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Table and information_schema queries through the official client. */
class QueriesTest {
    private static final String DDL =
            "CREATE TABLE T (K INT64 NOT NULL, V STRING(MAX)) PRIMARY KEY (K);\n"
                    + "CREATE CHANGE STREAM a FOR ALL OPTIONS (partition_mode = 'MUTABLE_KEY_RANGE',"
                    + " value_capture_type = 'NEW_ROW');\n"
                    + "CREATE CHANGE STREAM b FOR T(V);\n";

    private static List<String> rows(ResultSet rs) {
        List<String> out = new ArrayList<>();
        while (rs.next()) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < rs.getColumnCount(); i++) {
                sb.append(i == 0 ? "" : "|").append(rs.getValue(i).toString());
            }
            out.add(sb.toString());
        }
        return out;
    }

    @Test
    void readsTablesAtATimestamp() {
        try (SpannerEmulator emulator = SpannerEmulator.builder().ddl(DDL).start();
                EmulatorClients c = new EmulatorClients(emulator)) {
            Timestamp first =
                    c.client()
                            .write(
                                    List.of(
                                            Mutation.newInsertBuilder("T")
                                                    .set("K")
                                                    .to(2)
                                                    .set("V")
                                                    .to("two")
                                                    .build(),
                                            Mutation.newInsertBuilder("T")
                                                    .set("K")
                                                    .to(1)
                                                    .set("V")
                                                    .to("one")
                                                    .build()));
            c.client()
                    .write(
                            List.of(
                                    Mutation.newUpdateBuilder("T")
                                            .set("K")
                                            .to(1)
                                            .set("V")
                                            .to("uno")
                                            .build()));
            try (ResultSet rs =
                    c.client().singleUse().executeQuery(Statement.of("SELECT * FROM T"))) {
                assertThat(rows(rs)).containsExactly("1|uno", "2|two");
            }
            try (ResultSet rs =
                    c.client()
                            .singleUse(TimestampBound.ofReadTimestamp(first))
                            .executeQuery(Statement.of("SELECT V FROM T WHERE K = 1"))) {
                assertThat(rows(rs)).containsExactly("one");
            }
        }
    }

    @Test
    void commitTimestampPlaceholderResolvesInKeysButNotInStrings() {
        String ddl =
                "CREATE TABLE E (At TIMESTAMP NOT NULL, Note STRING(MAX)) PRIMARY KEY (At);"
                        + "CREATE CHANGE STREAM cs FOR ALL;";
        try (SpannerEmulator emulator = SpannerEmulator.builder().ddl(ddl).start();
                EmulatorClients c = new EmulatorClients(emulator)) {
            Timestamp ts =
                    c.client()
                            .write(
                                    List.of(
                                            Mutation.newInsertBuilder("E")
                                                    .set("At")
                                                    .to(
                                                            com.google.cloud.spanner.Value
                                                                    .COMMIT_TIMESTAMP)
                                                    .set("Note")
                                                    .to("spanner.commit_timestamp()")
                                                    .build()));
            try (ResultSet rs =
                    c.client().singleUse().executeQuery(Statement.of("SELECT * FROM E"))) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getTimestamp(0)).isEqualTo(ts);
                assertThat(rs.getString(1)).isEqualTo("spanner.commit_timestamp()");
            }
            assertThat(emulator.database().groundTruth()).hasSize(1);
        }
    }

    @Test
    void informationSchemaNamesTheTrackedTablesColumnsAndKeysInKeyOrder() {
        String ddl =
                "CREATE TABLE T (K INT64 NOT NULL, V STRING(MAX)) PRIMARY KEY (K);\n"
                        + "CREATE TABLE C (B STRING(MAX) NOT NULL, V INT64, A INT64 NOT NULL)"
                        + " PRIMARY KEY (A, B);\n"
                        + "CREATE CHANGE STREAM sAll FOR ALL;\n"
                        + "CREATE CHANGE STREAM sT FOR T(V), C;\n"
                        + "CREATE CHANGE STREAM sK FOR C();\n";
        try (SpannerEmulator emulator = SpannerEmulator.builder().ddl(ddl).start();
                EmulatorClients c = new EmulatorClients(emulator)) {
            java.util.function.Function<String, List<String>> q =
                    sql -> {
                        try (ResultSet rs =
                                c.client().singleUse().executeQuery(Statement.of(sql))) {
                            return rows(rs);
                        }
                    };
            assertThat(
                            q.apply(
                                    "SELECT CHANGE_STREAM_NAME, ALL FROM information_schema.change_streams"))
                    .containsExactlyInAnyOrder("sAll|true", "sT|false", "sK|false");
            // FOR ALL streams list no tables; a column list, even an empty one, is not ALL_COLUMNS
            // (as Google's emulator answers).
            assertThat(
                            q.apply(
                                    "SELECT CHANGE_STREAM_NAME, TABLE_NAME, ALL_COLUMNS FROM"
                                            + " information_schema.change_stream_tables"))
                    .containsExactlyInAnyOrder("sT|T|false", "sT|C|true", "sK|C|false");
            assertThat(
                            q.apply(
                                    "SELECT CHANGE_STREAM_NAME, TABLE_NAME, COLUMN_NAME FROM"
                                            + " information_schema.change_stream_columns"))
                    .containsExactly("sT|T|V");
            assertThat(
                            q.apply(
                                    "SELECT COLUMN_NAME, ORDINAL_POSITION, COLUMN_ORDERING,"
                                            + " SPANNER_TYPE FROM information_schema.index_columns"
                                            + " WHERE TABLE_NAME = 'C' AND INDEX_TYPE ="
                                            + " 'PRIMARY_KEY'"))
                    .containsExactly("A|1|ASC|INT64", "B|2|ASC|STRING(MAX)");
            assertThat(
                            q.apply(
                                    "SELECT CONSTRAINT_NAME, COLUMN_NAME, ORDINAL_POSITION FROM"
                                            + " information_schema.key_column_usage WHERE"
                                            + " TABLE_NAME = 'C'"))
                    .containsExactly("PK_C|A|1", "PK_C|B|2");
            assertThat(
                            q.apply(
                                    "SELECT CONSTRAINT_NAME FROM information_schema.table_constraints"
                                            + " WHERE TABLE_NAME = 'C' AND CONSTRAINT_TYPE ="
                                            + " 'PRIMARY KEY'"))
                    .containsExactly("PK_C");
        }
    }

    @Test
    void answersInformationSchema() {
        try (SpannerEmulator emulator = SpannerEmulator.builder().ddl(DDL).start();
                EmulatorClients c = new EmulatorClients(emulator)) {
            try (ResultSet rs =
                    c.client()
                            .singleUse()
                            .executeQuery(
                                    Statement.newBuilder(
                                                    "SELECT OPTION_NAME, OPTION_VALUE FROM"
                                                            + " information_schema.change_stream_options WHERE"
                                                            + " CHANGE_STREAM_NAME = @n")
                                            .bind("n")
                                            .to("a")
                                            .build())) {
                assertThat(rows(rs))
                        .containsExactly(
                                "partition_mode|MUTABLE_KEY_RANGE", "value_capture_type|NEW_ROW");
            }
            try (ResultSet rs =
                    c.client()
                            .singleUse()
                            .executeQuery(
                                    Statement.of(
                                            "SELECT OPTION_NAME FROM information_schema.change_stream_options"
                                                    + " WHERE CHANGE_STREAM_NAME = 'b'"))) {
                assertThat(rows(rs))
                        .as("no partition_mode row means IMMUTABLE_KEY_RANGE")
                        .isEmpty();
            }
            try (ResultSet rs =
                    c.client()
                            .singleUse()
                            .executeQuery(
                                    Statement.of(
                                            "SELECT CHANGE_STREAM_NAME, ALL FROM information_schema.change_streams"))) {
                assertThat(rows(rs)).containsExactly("a|true", "b|false");
            }
            try (ResultSet rs =
                    c.client()
                            .singleUse()
                            .executeQuery(
                                    Statement.of(
                                            "SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.change_stream_columns"
                                                    + " WHERE CHANGE_STREAM_NAME = 'b'"))) {
                assertThat(rows(rs)).containsExactly("T|V");
            }
            try (ResultSet rs =
                    c.client()
                            .singleUse()
                            .executeQuery(
                                    Statement.of(
                                            "SELECT COLUMN_NAME, SPANNER_TYPE FROM information_schema.columns"
                                                    + " WHERE TABLE_NAME = 'T'"))) {
                assertThat(rows(rs)).containsExactly("K|INT64", "V|STRING(MAX)");
            }
        }
    }
}
