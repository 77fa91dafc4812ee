package io.spannercs.flink.table;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.Statement;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.flink.testing.AllTypesTable;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every Spanner column type reaches SQL with its value intact: a row of edge values (NaN and
 * infinities, 2^53 + 1, 38-digit NUMERIC, nanoseconds, NULL array elements) and a row of NULLs.
 */
@Timeout(value = 2, unit = java.util.concurrent.TimeUnit.MINUTES)
class SpannerCdcTypesITCase {
    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = SqlTests.cluster();

    private static final String DDL =
            AllTypesTable.DDL
                    + "CREATE CHANGE STREAM cs FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE', value_capture_type = 'NEW_ROW_AND_OLD_VALUES');\n";

    private static final String COLUMNS =
            "(Id BIGINT, Float64Col DOUBLE, Float32Col FLOAT, NumericCol DECIMAL(38, 9),"
                    + " BoolCol BOOLEAN, StringCol STRING, JsonCol STRING, BytesCol BYTES,"
                    + " DateCol DATE, TimestampCol TIMESTAMP_LTZ(9), Int64Array ARRAY<BIGINT>,"
                    + " Float64Array ARRAY<DOUBLE>, Float32Array ARRAY<FLOAT>,"
                    + " NumericArray ARRAY<DECIMAL(38, 9)>, BoolArray ARRAY<BOOLEAN>,"
                    + " StringArray ARRAY<STRING>, JsonArray ARRAY<STRING>,"
                    + " BytesArray ARRAY<BYTES>, DateArray ARRAY<DATE>,"
                    + " TimestampArray ARRAY<TIMESTAMP_LTZ(9)>)";

    @Test
    void everyTypeRoundTripsThroughSql() throws Exception {
        try (SpannerEmulator emulator = SpannerEmulator.builder().ddl(DDL).start();
                Spanner spanner = SqlTests.client(emulator)) {
            DatabaseClient db = SqlTests.db(spanner, emulator);
            Instant start = Instant.now();
            db.write(List.of(AllTypesTable.edgeRow()));
            db.write(List.of(Mutation.newInsertBuilder("AllTypes").set("Id").to(7L).build()));
            Instant end = Instant.now();

            StreamTableEnvironment tEnv = SqlTests.tableEnv();
            tEnv.executeSql(
                    "CREATE TABLE all_types "
                            + COLUMNS
                            + SqlTests.with(emulator, "cs", "AllTypes", start, end, ""));
            List<Row> rows = SqlTests.collect(tEnv.executeSql("SELECT * FROM all_types"));

            assertThat(rows).hasSize(2);
            assertThat(rows).allMatch(r -> r.getKind() == RowKind.INSERT);
            Row edge =
                    rows.stream()
                            .filter(r -> r.getField(0).equals(AllTypesTable.ID))
                            .findFirst()
                            .get();
            Row nulls = rows.stream().filter(r -> r.getField(0).equals(7L)).findFirst().get();
            String[] json = jsonAsStored(db);
            Object[] expected = {
                AllTypesTable.ID,
                Double.NaN,
                Float.NEGATIVE_INFINITY,
                new BigDecimal("99999999999999999999999999999.999999999"),
                true,
                "é \"quoted\"",
                json[0],
                new byte[] {0, 1, (byte) 254, (byte) 255},
                LocalDate.parse("2026-02-28"),
                Instant.parse("2026-02-28T12:34:56.123456789Z"),
                new Long[] {Long.MIN_VALUE, null, Long.MAX_VALUE},
                new Double[] {Double.POSITIVE_INFINITY, null, Double.NEGATIVE_INFINITY, 0.5},
                new Float[] {0.1f, null, Float.NaN},
                new BigDecimal[] {new BigDecimal("-0.000000001"), null},
                new Boolean[] {true, null, false},
                new String[] {"", null, "NULL"},
                new String[] {json[1], null, json[2]},
                new byte[][] {{-1}, null},
                new LocalDate[] {LocalDate.parse("0001-01-01"), null},
                new Instant[] {Instant.parse("1970-01-01T00:00:00Z"), null},
            };
            for (int i = 0; i < expected.length; i++) {
                assertThat(edge.getField(i)).as("column " + i).isEqualTo(expected[i]);
                if (i > 0) {
                    assertThat(nulls.getField(i)).as("column " + i + " of the NULL row").isNull();
                }
            }
        }
    }

    /** JSON as Spanner stores it (normalized): what SQL must show. */
    private static String[] jsonAsStored(DatabaseClient db) {
        try (ResultSet rs =
                db.singleUse()
                        .executeQuery(
                                Statement.of(
                                        "SELECT JsonCol, JsonArray FROM AllTypes WHERE Id = "
                                                + AllTypesTable.ID))) {
            rs.next();
            List<String> array = rs.getJsonList(1);
            return new String[] {rs.getJson(0), array.get(0), array.get(2)};
        }
    }
}
