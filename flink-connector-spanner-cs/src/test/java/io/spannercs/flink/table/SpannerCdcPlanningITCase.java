package io.spannercs.flink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import java.lang.reflect.Field;
import java.lang.reflect.ParameterizedType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.factories.FactoryUtil;
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
                "'2026-03-01T12:00:00Z'");
        assertFails(ORDERS, "nope_cs", "Orders", "", "'nope_cs' does not exist", "change-stream");
        assertFails(ORDERS, "full_cs", "Nope", "", "'Nope' does not exist", "'table'");
    }

    /** The options of a bounded read of full_cs and Orders, changed by {@code changes}. */
    private static String withOptions(Map<String, String> changes) {
        Instant now = Instant.now();
        Map<String, String> options = new LinkedHashMap<>();
        options.put("connector", "spanner-cdc");
        options.put("project", emulator.projectId());
        options.put("instance", emulator.instanceId());
        options.put("database", emulator.databaseId());
        options.put("change-stream", "full_cs");
        options.put("table", "Orders");
        options.put("emulator-host", emulator.hostPort());
        options.put("scan.startup.mode", "timestamp");
        options.put("scan.startup.timestamp", now.toString());
        options.put("scan.end.timestamp", now.plusSeconds(1).toString());
        options.putAll(changes);
        options.values().removeIf(v -> v == null);
        StringBuilder with = new StringBuilder(" WITH (");
        options.forEach(
                (k, v) ->
                        with.append(with.length() > 7 ? ", " : "")
                                .append('\'')
                                .append(k)
                                .append("' = '")
                                .append(v.replace("'", "''"))
                                .append('\''));
        return with.append(')').toString();
    }

    private static String plan(Map<String, String> changes) {
        String name = "t" + tables++;
        tEnv.executeSql("CREATE TABLE " + name + " " + ORDERS + withOptions(changes));
        return tEnv.explainSql("SELECT * FROM " + name);
    }

    /** The table source the factory makes of these options, as the planner asks for it. */
    private static SpannerCdcTableSource tableSource(Map<String, String> changes) {
        String name = "t" + tables++;
        tEnv.executeSql("CREATE TABLE " + name + " " + ORDERS + withOptions(changes));
        ObjectIdentifier id =
                ObjectIdentifier.of(tEnv.getCurrentCatalog(), tEnv.getCurrentDatabase(), name);
        ResolvedCatalogTable table =
                ((TableEnvironmentInternal) tEnv)
                        .getCatalogManager()
                        .getTableOrError(id)
                        .getResolvedTable();
        return (SpannerCdcTableSource)
                FactoryUtil.createDynamicTableSource(
                        new SpannerCdcDynamicTableFactory(),
                        id,
                        table,
                        Map.of(),
                        new Configuration(),
                        SpannerCdcPlanningITCase.class.getClassLoader(),
                        false);
    }

    private static Throwable rootCause(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root;
    }

    /**
     * Planning fails, and the root cause (all that Flink's SQL client shows) is a
     * ValidationException whose message has every part and no Java class name of the client's
     * libraries (the SQL jar relocates them under io.spannercs.shaded).
     */
    private static void assertRootCause(Map<String, String> changes, String... parts) {
        assertThatThrownBy(() -> plan(changes))
                .satisfies(
                        e -> {
                            Throwable root = rootCause(e);
                            assertThat(root)
                                    .as(ExceptionUtils.stringifyException(e))
                                    .isInstanceOf(ValidationException.class);
                            assertThat(root.getMessage()).contains(parts);
                            assertThat(root.getMessage())
                                    .doesNotContain(
                                            "io.spannercs.shaded",
                                            "io.grpc",
                                            "com.google.",
                                            "Exception:",
                                            "$");
                        });
    }

    @Test
    void badEnumBooleanAndDurationValuesAreRootCausesNamingOptionValueAndForms() {
        assertRootCause(
                Map.of("changelog-mode", "retract"),
                "'changelog-mode' = 'retract'",
                "'all' or 'upsert'");
        assertRootCause(
                Map.of("scan.startup.mode", "earliest"),
                "'scan.startup.mode' = 'earliest'",
                "'latest', 'timestamp', 'initial' or 'snapshot'");
        assertRootCause(
                Map.of("scan.reorder", "yes"), "'scan.reorder' = 'yes'", "'true' or 'false'");
        assertRootCause(
                Map.of("rpc-priority", "urgent"),
                "'rpc-priority' = 'urgent'",
                "'low', 'medium' or 'high'");
        assertRootCause(
                Map.of("heartbeat.interval", "often"),
                "'heartbeat.interval' = 'often'",
                "'500 ms'",
                "units: ms, s, min, h, d");
        assertRootCause(
                Map.of("scan.snapshot.chunk.size", "0"),
                "'scan.snapshot.chunk.size' = '0'",
                "a whole number of at least 1");
        assertRootCause(
                Map.of("scan.startup.mode", "snapshot", "scan.end.timestamp", "2026-12-03"),
                "'scan.end.timestamp' cannot be used with 'scan.startup.mode' = 'snapshot'");
        assertRootCause(
                Map.of("heartbeat.interval", "10ms"),
                "'heartbeat.interval' = '10ms'",
                "100 ms to 5 min");
    }

    /** Every enum, boolean and duration option of the factory, not only the ones listed above. */
    @Test
    void everyTypedOptionNamesItselfWhenItsValueIsBad() throws IllegalAccessException {
        SpannerCdcDynamicTableFactory factory = new SpannerCdcDynamicTableFactory();
        List<String> checked = new ArrayList<>();
        for (ConfigOption<?> option : factory.optionalOptions()) {
            Class<?> type = valueType(option);
            if (type.isEnum()
                    || type == Duration.class
                    || type == Boolean.class
                    || type == Integer.class) {
                assertRootCause(
                        Map.of(option.key(), "bogus value"),
                        "'" + option.key() + "' = 'bogus value'",
                        "use ");
                checked.add(option.key());
            }
        }
        assertThat(checked)
                .containsExactlyInAnyOrder(
                        "scan.startup.mode",
                        "changelog-mode",
                        "scan.reorder",
                        "heartbeat.interval",
                        "scan.unknown-values",
                        "scan.snapshot.chunk.size",
                        "rpc-priority");
    }

    /**
     * The value type an option is declared with: options without a default have no value whose
     * class could tell.
     */
    private static Class<?> valueType(ConfigOption<?> option) throws IllegalAccessException {
        for (Field f : SpannerCdcOptions.class.getFields()) {
            if (f.get(null) == option) {
                return (Class<?>)
                        ((ParameterizedType) f.getGenericType()).getActualTypeArguments()[0];
            }
        }
        throw new AssertionError("'" + option.key() + "' is not declared in SpannerCdcOptions");
    }

    @Test
    void priorityRoleAndHeartbeatReachTheSource() {
        SpannerSourceConfig config =
                tableSource(
                                Map.of(
                                        "rpc-priority", "low",
                                        "database-role", "cdc_reader",
                                        "heartbeat.interval", "250 ms"))
                        .sourceConfig();
        assertThat(config.rpcPriority()).isEqualTo(SpannerSourceConfig.RpcPriority.LOW);
        assertThat(config.databaseRole()).isEqualTo("cdc_reader");
        assertThat(config.heartbeatInterval()).isEqualTo(Duration.ofMillis(250));
        assertThat(tableSource(Map.of("rpc-priority", "MEDIUM")).sourceConfig().rpcPriority())
                .isEqualTo(SpannerSourceConfig.RpcPriority.MEDIUM);
        // Unset: no priority is sent, and Spanner treats the queries as high priority.
        SpannerSourceConfig defaults = tableSource(Map.of()).sourceConfig();
        assertThat(defaults.rpcPriority()).isNull();
        assertThat(defaults.databaseRole()).isNull();
        assertThat(defaults.heartbeatInterval()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void badTimestampsAreRootCausesNamingOptionAndForms() {
        for (String bad :
                List.of("yesterday", "2026-13-03 04:00:00", "2026-12-03 04:00:00 Mars/Olympus")) {
            assertRootCause(
                    Map.of("scan.end.timestamp", bad),
                    "'scan.end.timestamp' = '" + bad + "'",
                    "'2026-03-01 12:00:00'",
                    "'2026-03-01T12:00:00Z'",
                    "UTC");
        }
        assertRootCause(
                Map.of("scan.startup.timestamp", "2026-12-03 04:00:00 +25:00"),
                "'scan.startup.timestamp' = '2026-12-03 04:00:00 +25:00'",
                "'2026-03-01 12:00:00'");
    }

    @Test
    void snapshotModesAndTheirChunkSizeAreAccepted() {
        plan(Map.of("scan.startup.mode", "initial", "scan.snapshot.chunk.size", "500"));
        Map<String, String> snapshotNow = new LinkedHashMap<>();
        snapshotNow.put("scan.startup.mode", "INITIAL");
        snapshotNow.put("scan.startup.timestamp", null);
        snapshotNow.put("scan.end.timestamp", "2099-01-01 00:00:00");
        plan(snapshotNow);
        Map<String, String> snapshotOnly = new LinkedHashMap<>();
        snapshotOnly.put("scan.startup.mode", "snapshot");
        snapshotOnly.put("scan.end.timestamp", null);
        plan(snapshotOnly);
    }

    @Test
    void sqlTimestampFormsAreAccepted() {
        plan(
                Map.of(
                        "scan.startup.timestamp", "2026-12-03 04:00:00",
                        "scan.end.timestamp", "2026-12-03T05:00:00.123456+01:00"));
        plan(
                Map.of(
                        "scan.startup.timestamp", "2026-12-03T04:00:00Z",
                        "scan.end.timestamp", "2026-12-03 05:00:00 Europe/Berlin"));
    }

    @Test
    void anUnreachableDatabaseIsARootCauseNamingTheOptions() {
        assertRootCause(
                Map.of("database", "no-such-db"),
                "does not exist",
                "'database'",
                "'project'",
                "no-such-db",
                "NOT_FOUND");
    }

    @Test
    void aMissingCredentialsFileIsARootCauseNamingTheOption() {
        Map<String, String> changes = new java.util.HashMap<>();
        changes.put("emulator-host", null);
        changes.put("credentials-file", "/no/such/key.json");
        assertRootCause(changes, "'credentials-file' = '/no/such/key.json'", "key file");
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
