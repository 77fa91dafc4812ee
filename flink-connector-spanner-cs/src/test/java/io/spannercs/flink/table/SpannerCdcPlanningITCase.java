package io.spannercs.flink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spannercs.emulator.SpannerEmulator;
import java.time.Instant;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Planning a {@code spanner-cdc} table fails with the option or column named: bad and unknown
 * options, a declared schema that does not match Spanner, a changelog mode the stream's capture
 * type cannot give. No job runs.
 */
@Timeout(value = 2, unit = java.util.concurrent.TimeUnit.MINUTES)
class SpannerCdcPlanningITCase {
    private static final String DDL =
            SpannerCdcSqlITCase.DDL + "CREATE CHANGE STREAM default_cs FOR ALL;\n";

    private static final String ORDERS = SpannerCdcSqlITCase.ORDERS_COLUMNS;

    private static SpannerEmulator emulator;
    private static TableEnvironment tEnv;
    private static int tables;

    @BeforeAll
    static void start() {
        emulator = SpannerEmulator.builder().ddl(DDL).start();
        tEnv = SqlTests.tableEnv();
    }

    @AfterAll
    static void stop() {
        emulator.close();
    }

    /** Creates a table and plans a query on it; returns the plan. */
    private static String plan(String columns, String stream, String table, String options) {
        String name = "t" + tables++;
        Instant now = Instant.now();
        tEnv.executeSql(
                "CREATE TABLE "
                        + name
                        + " "
                        + columns
                        + SqlTests.with(emulator, stream, table, now, now.plusSeconds(1), options));
        return tEnv.explainSql("SELECT * FROM " + name);
    }

    private static void assertFails(
            String columns, String stream, String table, String options, String... parts) {
        assertThatThrownBy(() -> plan(columns, stream, table, options))
                .satisfies(
                        e -> {
                            String text = ExceptionUtils.stringifyException(e);
                            for (String part : parts) {
                                assertThat(text).contains(part);
                            }
                        });
    }

    @Test
    void unknownAndBadOptionsAreNamed() {
        assertFails(
                ORDERS,
                "full_cs",
                "Orders",
                ", 'scan.startup.offset' = '1'",
                "scan.startup.offset");
        assertFails(
                ORDERS, "full_cs", "Orders", ", 'changelog-mode' = 'retract'", "changelog-mode");
        assertFails(
                ORDERS,
                "full_cs",
                "Orders",
                ", 'heartbeat.interval' = '10ms'",
                "heartbeat.interval");
        assertFails(
                ORDERS,
                "full_cs",
                "Orders",
                ", 'scan.end.timestamp' = 'yesterday'",
                "'scan.end.timestamp' = 'yesterday'",
                "ISO-8601");
        assertFails(ORDERS, "nope_cs", "Orders", "", "'nope_cs' does not exist", "change-stream");
        assertFails(ORDERS, "full_cs", "Nope", "", "'Nope' does not exist", "'table'");
    }

    @Test
    void missingRequiredOptionIsNamed() {
        tEnv.executeSql(
                "CREATE TABLE no_table "
                        + ORDERS
                        + " WITH ('connector' = 'spanner-cdc', 'project' = 'p', 'instance' = 'i',"
                        + " 'database' = 'd', 'change-stream' = 'full_cs')");
        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM no_table"))
                .satisfies(
                        e ->
                                assertThat(ExceptionUtils.stringifyException(e))
                                        .contains("Missing required options")
                                        .contains("table"));
    }

    @Test
    void schemaMismatchNamesTheColumn() {
        assertFails(
                "(OrderId BIGINT, Amount INT)",
                "full_cs",
                "Orders",
                "",
                "column 'Amount' is declared INT but is NUMERIC",
                "DECIMAL(38, 9)");
        assertFails(
                "(OrderId BIGINT, Discount DOUBLE)",
                "full_cs",
                "Orders",
                "",
                "column 'Discount' does not exist in Spanner table 'Orders'");
        assertFails(
                "(OrderId INT, UpdatedAt TIMESTAMP_LTZ(9))",
                "full_cs",
                "Orders",
                "",
                "column 'OrderId' is declared INT but is INT64",
                "BIGINT");
    }

    @Test
    void changelogModeTheCaptureTypeCannotGiveIsRejected() {
        assertFails(
                ORDERS,
                "new_row_cs",
                "Orders",
                ", 'changelog-mode' = 'all'",
                "value_capture_type NEW_ROW",
                "'changelog-mode' = 'upsert'");
        assertFails(
                ORDERS,
                "default_cs",
                "Orders",
                ", 'changelog-mode' = 'upsert'",
                "value_capture_type OLD_AND_NEW_VALUES",
                "NEW_ROW");
        assertFails(
                "(OrderId BIGINT, Customer STRING)",
                "new_row_cs",
                "Orders",
                ", 'changelog-mode' = 'upsert'",
                "needs a PRIMARY KEY");
    }

    @Test
    void projectionIsPushedIntoTheSource() {
        plan(ORDERS, "full_cs", "Orders", "");
        String explained = tEnv.explainSql("SELECT Customer FROM t" + (tables - 1));
        assertThat(explained).contains("project=[Customer]");
    }
}
