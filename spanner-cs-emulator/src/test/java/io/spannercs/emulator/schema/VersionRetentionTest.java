package io.spannercs.emulator.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class VersionRetentionTest {
    @Test
    void parsesSpannerForms() {
        assertThat(VersionRetention.parse("1h").period()).isEqualTo(Duration.ofHours(1));
        assertThat(VersionRetention.parse("90m").period()).isEqualTo(Duration.ofMinutes(90));
        assertThat(VersionRetention.parse("3600s").period()).isEqualTo(Duration.ofHours(1));
        assertThat(VersionRetention.parse("7d").period()).isEqualTo(Duration.ofDays(7));
        assertThat(VersionRetention.parse("168h").text()).isEqualTo("168h");
        assertThat(VersionRetention.DEFAULT.text()).isEqualTo("1h");
        assertThat(VersionRetention.of(Duration.ofHours(48)).text()).isEqualTo("2d");
        assertThat(VersionRetention.of(Duration.ofMinutes(150)).text()).isEqualTo("150m");
    }

    @Test
    void rejectsValuesOutsideOneHourToSevenDays() {
        for (String bad : new String[] {"59m", "3599s", "8d", "169h", "0h"}) {
            assertThatThrownBy(() -> VersionRetention.parse(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("version_retention_period")
                    .hasMessageContaining("between 1h and 7d");
        }
        for (String bad : new String[] {"abc", "1.5h", "1w", "", "-1h"}) {
            assertThatThrownBy(() -> VersionRetention.parse(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'1h', '90m', '3600s' or '7d'");
        }
        assertThatThrownBy(() -> VersionRetention.of(Duration.ofMinutes(30)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ddlSetsItWithAlterDatabaseInBothDialects() {
        Schema g =
                DdlParser.parse(
                        "CREATE TABLE T (K INT64) PRIMARY KEY (K);\n"
                                + "ALTER DATABASE `my-db` SET OPTIONS (optimizer_version = 5,"
                                + " version_retention_period = '2d');");
        assertThat(g.versionRetention()).contains(VersionRetention.parse("2d"));
        assertThat(DdlParser.parse("CREATE TABLE T (K INT64) PRIMARY KEY (K)").versionRetention())
                .isEmpty();
        assertThat(
                        DdlParser.parseAlterDatabase(
                                "ALTER DATABASE d SET OPTIONS (version_retention_period = NULL)",
                                Dialect.GOOGLE_STANDARD_SQL))
                .contains(VersionRetention.DEFAULT);
        assertThatThrownBy(
                        () ->
                                DdlParser.parse(
                                        "ALTER DATABASE d SET OPTIONS (version_retention_period ="
                                                + " '30m')"))
                .hasMessageContaining("between 1h and 7d");

        Schema pg =
                DdlParser.parse(
                        "CREATE TABLE t (k bigint PRIMARY KEY);\n"
                                + "ALTER DATABASE \"my-db\" SET spanner.version_retention_period"
                                + " = '36h';",
                        Dialect.POSTGRESQL);
        assertThat(pg.versionRetention()).contains(VersionRetention.parse("36h"));
        assertThat(
                        DdlParser.parseAlterDatabase(
                                "ALTER DATABASE d SET spanner.version_retention_period TO '3h'",
                                Dialect.POSTGRESQL))
                .contains(VersionRetention.parse("3h"));
        assertThat(
                        DdlParser.parseAlterDatabase(
                                "ALTER DATABASE d RESET spanner.version_retention_period",
                                Dialect.POSTGRESQL))
                .contains(VersionRetention.DEFAULT);
        assertThatThrownBy(
                        () ->
                                DdlParser.parseAlterDatabase(
                                        "CREATE TABLE x (k bigint PRIMARY KEY)",
                                        Dialect.POSTGRESQL))
                .hasMessageContaining("fixed when it starts");
    }
}
