package io.spannercs.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.spanner.Database;
import com.google.cloud.spanner.DatabaseAdminClient;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import io.spannercs.emulator.schema.Dialect;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.Rows;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The database's version_retention_period through the official client: information_schema,
 * GetDatabase, the builder, DDL at start and UpdateDatabaseDdl at run time, in both dialects.
 */
class VersionRetentionPeriodTest {
    private static final String GSQL = "CREATE TABLE T (K INT64 NOT NULL) PRIMARY KEY (K)";
    private static final String PG = "CREATE TABLE t (k bigint PRIMARY KEY)";

    private static final Statement GSQL_QUERY =
            Statement.of(
                    "SELECT option_value FROM information_schema.database_options WHERE"
                            + " option_name = 'version_retention_period'");

    private static final Statement PG_QUERY =
            Statement.of(
                    "SELECT option_value FROM information_schema.database_options WHERE"
                            + " option_name = 'version_retention_period'");

    private static String retention(EmulatorClients c, Dialect dialect) {
        try (ResultSet rs =
                c.client()
                        .singleUse()
                        .executeQuery(dialect == Dialect.POSTGRESQL ? PG_QUERY : GSQL_QUERY)) {
            List<String> rows = Rows.of(rs);
            assertThat(rows).hasSize(1);
            return rows.get(0);
        }
    }

    private static Database database(EmulatorClients c, SpannerEmulator e) {
        return c.spanner().getDatabaseAdminClient().getDatabase(e.instanceId(), e.databaseId());
    }

    @Test
    void defaultsToOneHourInBothDialects() {
        for (Dialect d : Dialect.values()) {
            try (SpannerEmulator e =
                            SpannerEmulator.builder()
                                    .dialect(d)
                                    .ddl(d == Dialect.POSTGRESQL ? PG : GSQL)
                                    .start();
                    EmulatorClients c = new EmulatorClients(e)) {
                assertThat(retention(c, d)).isEqualTo("1h");
                Database db = database(c, e);
                assertThat(db.getVersionRetentionPeriod()).isEqualTo("1h");
                assertThat(db.getEarliestVersionTime().toSqlTimestamp().toInstant())
                        .isEqualTo(e.database().earliestVersionTime());
                assertThat(e.database().versionRetention().period()).isEqualTo(Duration.ofHours(1));
            }
        }
    }

    @Test
    void builderAndDdlSetIt() {
        try (SpannerEmulator e =
                        SpannerEmulator.builder()
                                .ddl(GSQL)
                                .versionRetentionPeriod(Duration.ofDays(3))
                                .start();
                EmulatorClients c = new EmulatorClients(e)) {
            assertThat(retention(c, Dialect.GOOGLE_STANDARD_SQL)).isEqualTo("3d");
            assertThat(database(c, e).getVersionRetentionPeriod()).isEqualTo("3d");
        }
        try (SpannerEmulator e =
                        SpannerEmulator.builder()
                                .ddl(
                                        GSQL
                                                + ";\nALTER DATABASE `emulator-db` SET OPTIONS"
                                                + " (version_retention_period = '36h')")
                                .versionRetentionPeriod(Duration.ofDays(3))
                                .start();
                EmulatorClients c = new EmulatorClients(e)) {
            assertThat(retention(c, Dialect.GOOGLE_STANDARD_SQL))
                    .as("the DDL's ALTER DATABASE replaces the builder's value")
                    .isEqualTo("36h");
        }
        try (SpannerEmulator e =
                        SpannerEmulator.builder()
                                .dialect(Dialect.POSTGRESQL)
                                .ddl(
                                        PG
                                                + ";\nALTER DATABASE db SET"
                                                + " spanner.version_retention_period = '7d'")
                                .start();
                EmulatorClients c = new EmulatorClients(e)) {
            assertThat(retention(c, Dialect.POSTGRESQL)).isEqualTo("7d");
        }
        assertThatThrownBy(
                        () ->
                                SpannerEmulator.builder()
                                        .versionRetentionPeriod(Duration.ofMinutes(59)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("between 1h and 7d");
        assertThatThrownBy(
                        () -> SpannerEmulator.builder().versionRetentionPeriod(Duration.ofDays(8)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void updateDatabaseDdlChangesItAtRunTime() throws Exception {
        for (Dialect d : Dialect.values()) {
            try (SpannerEmulator e =
                            SpannerEmulator.builder()
                                    .dialect(d)
                                    .ddl(d == Dialect.POSTGRESQL ? PG : GSQL)
                                    .start();
                    EmulatorClients c = new EmulatorClients(e)) {
                DatabaseAdminClient admin = c.spanner().getDatabaseAdminClient();
                String set =
                        d == Dialect.POSTGRESQL
                                ? "ALTER DATABASE \"emulator-db\" SET"
                                        + " spanner.version_retention_period = '%s'"
                                : "ALTER DATABASE `emulator-db` SET OPTIONS"
                                        + " (version_retention_period = '%s')";
                admin.updateDatabaseDdl(
                                e.instanceId(),
                                e.databaseId(),
                                List.of(String.format(set, "2h")),
                                null)
                        .get(30, TimeUnit.SECONDS);
                assertThat(retention(c, d)).isEqualTo("2h");
                assertThat(database(c, e).getVersionRetentionPeriod()).isEqualTo("2h");

                for (String bad : List.of("30m", "8d", "soon")) {
                    assertThatThrownBy(
                                    () ->
                                            admin.updateDatabaseDdl(
                                                            e.instanceId(),
                                                            e.databaseId(),
                                                            List.of(String.format(set, bad)),
                                                            null)
                                                    .get(30, TimeUnit.SECONDS))
                            .isInstanceOf(ExecutionException.class)
                            .cause()
                            .isInstanceOfSatisfying(
                                    SpannerException.class,
                                    ex -> {
                                        assertThat(ex.getErrorCode())
                                                .isEqualTo(ErrorCode.INVALID_ARGUMENT);
                                        assertThat(ex.getMessage())
                                                .contains("version_retention_period")
                                                .contains(bad);
                                    });
                }
                assertThat(retention(c, d))
                        .as("a rejected statement changes nothing")
                        .isEqualTo("2h");
                assertThatThrownBy(
                                () ->
                                        admin.updateDatabaseDdl(
                                                        e.instanceId(),
                                                        e.databaseId(),
                                                        List.of(
                                                                "CREATE TABLE X (K INT64) PRIMARY KEY (K)"),
                                                        null)
                                                .get(30, TimeUnit.SECONDS))
                        .cause()
                        .isInstanceOfSatisfying(
                                SpannerException.class,
                                ex ->
                                        assertThat(ex.getErrorCode())
                                                .isEqualTo(ErrorCode.UNIMPLEMENTED));
            }
        }
    }
}
