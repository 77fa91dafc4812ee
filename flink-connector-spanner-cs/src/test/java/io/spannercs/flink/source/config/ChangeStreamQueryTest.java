package io.spannercs.flink.source.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Dialect;
import com.google.cloud.spanner.Spanner;
import io.spannercs.emulator.SpannerEmulator;
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
        return new SpannerSourceConfig(
                emulator.projectId(),
                emulator.instanceId(),
                emulator.databaseId(),
                stream,
                0,
                SpannerSourceConfig.NO_END,
                Duration.ofSeconds(1),
                emulator.hostPort(),
                null,
                null,
                null,
                true,
                Duration.ofMinutes(1),
                10,
                Duration.ofMinutes(30),
                true,
                100,
                Duration.ofMillis(100),
                mode,
                dialect,
                io.spannercs.flink.source.UnknownValueHandling.FAIL);
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
