package io.spannercs.flink.source.spanner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Dialect;
import com.google.cloud.spanner.Spanner;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.flink.source.NonRecoverableSourceException;
import io.spannercs.flink.source.TestConfigs;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.config.SpannerSourceConfig.PartitionMode;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Dialect and partition mode come from the database unless the options say otherwise. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChangeStreamQueryTest {
    private SpannerEmulator emulator;
    private Spanner spanner;

    @BeforeAll
    void start() {
        emulator =
                SpannerEmulator.builder()
                        .ddl(
                                "CREATE TABLE T (K INT64 NOT NULL) PRIMARY KEY (K);\n"
                                        + "CREATE CHANGE STREAM mutable_cs FOR ALL OPTIONS"
                                        + " (partition_mode = 'MUTABLE_KEY_RANGE');\n"
                                        + "CREATE CHANGE STREAM explicit_legacy_cs FOR ALL OPTIONS"
                                        + " (partition_mode = 'IMMUTABLE_KEY_RANGE');\n"
                                        + "CREATE CHANGE STREAM default_cs FOR ALL;\n")
                        .start();
        spanner = SpannerClients.create(config("mutable_cs", null, null));
    }

    @AfterAll
    void stop() {
        SpannerClients.close(spanner, true);
        emulator.close();
    }

    private SpannerSourceConfig config(String stream, PartitionMode mode, Dialect dialect) {
        return TestConfigs.config(
                TestConfigs.onEmulator(emulator, stream, 0, SpannerSourceConfig.NO_END)
                        .setProgressInterval(Duration.ofMillis(100))
                        .setPartitionMode(mode)
                        .setDialect(dialect));
    }

    private ChangeStreamQuery detect(String stream, PartitionMode mode, Dialect dialect) {
        SpannerSourceConfig config = config(stream, mode, dialect);
        DatabaseClient client = SpannerClients.databaseClient(spanner, config);
        return ChangeStreamQuery.detect(client, config);
    }

    @Test
    void detectsThePartitionModeFromTheInformationSchema() {
        assertThat(detect("mutable_cs", null, null).partitionMode())
                .isEqualTo(PartitionMode.MUTABLE_KEY_RANGE);
        assertThat(detect("explicit_legacy_cs", null, null).partitionMode())
                .isEqualTo(PartitionMode.IMMUTABLE_KEY_RANGE);
        assertThat(detect("default_cs", null, null).partitionMode())
                .as("no partition_mode option: Spanner's default")
                .isEqualTo(PartitionMode.IMMUTABLE_KEY_RANGE);
    }

    /** A stream the information schema does not list: a restart cannot help. */
    @Test
    void aStreamThatDoesNotExistFailsOnceNamingTheOption() {
        assertThatThrownBy(() -> detect("nope_cs", null, null))
                .isInstanceOf(NonRecoverableSourceException.class)
                .hasMessageContaining(
                        "Change stream nope_cs does not exist in database "
                                + config("nope_cs", null, null).databaseName())
                .hasMessageContaining("setChangeStream(...)")
                .hasMessageContaining("'change-stream'")
                .hasMessageContaining("--change-stream");
    }

    /** A database that does not exist answers the dialect's query: NOT_FOUND, named. */
    @Test
    void aDatabaseThatDoesNotExistFailsOnceNamingTheOptions() {
        SpannerSourceConfig config =
                TestConfigs.config(
                        TestConfigs.builder(
                                        emulator.projectId(),
                                        emulator.instanceId(),
                                        "no_such_db",
                                        "mutable_cs",
                                        0,
                                        SpannerSourceConfig.NO_END)
                                .setEmulatorHost(emulator.hostPort())
                                .setProgressInterval(Duration.ofMillis(100)));
        DatabaseClient client = SpannerClients.databaseClient(spanner, config);
        assertThatThrownBy(() -> ChangeStreamQuery.detect(client, config))
                .isInstanceOf(NonRecoverableSourceException.class)
                .hasMessageContaining("NOT_FOUND")
                .hasMessageContaining("no_such_db")
                .hasMessageContaining("setDatabaseId(...)")
                .hasMessageContaining("'database'")
                .hasMessageContaining("--database");
    }

    @Test
    void detectsTheDialect() {
        assertThat(detect("mutable_cs", null, null).dialect())
                .isEqualTo(Dialect.GOOGLE_STANDARD_SQL);
    }

    @Test
    void theOptionsOverrideDetection() {
        ChangeStreamQuery q =
                detect("mutable_cs", PartitionMode.IMMUTABLE_KEY_RANGE, Dialect.POSTGRESQL);
        assertThat(q.partitionMode()).isEqualTo(PartitionMode.IMMUTABLE_KEY_RANGE);
        assertThat(q.dialect()).isEqualTo(Dialect.POSTGRESQL);
        assertThat(q.toString()).contains("\"read_json_mutable_cs\"");
    }
}
