package io.spannercs.flink.source.google;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseId;
import io.spannercs.flink.source.NonRecoverableSourceException;
import io.spannercs.flink.source.TestConfigs;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.config.SpannerSourceConfig.PartitionMode;
import io.spannercs.flink.source.spanner.SpannerRootPartitions;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The errors a restart cannot fix, as Google's Cloud Spanner emulator ({@code gateway_main})
 * answers them, reach the enumerator as {@link NonRecoverableSourceException}s naming the option;
 * the detection queries the source adds for them run on it. Skips, saying why, where the gateway is
 * not installed.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class GoogleEmulatorErrorsITCase {
    private static final DatabaseId DB =
            DatabaseId.of(GoogleGateway.PROJECT, "errors-instance", "errors-db");

    private static GoogleGateway google;
    private static Instant created;

    @BeforeAll
    static void start() throws Exception {
        google = GoogleGateway.startOrSkip(GoogleEmulatorErrorsITCase.class);
        google.createDatabase(google.spanner(), DB, OrdersWriter.DDL);
        created = Instant.now();
        Thread.sleep(1100); // a start after the stream's creation, in whole seconds
    }

    @AfterAll
    static void stop() {
        if (google != null) {
            google.close();
        }
    }

    private static SpannerSourceConfig config(
            String database, String stream, Instant start, PartitionMode mode) {
        long micros = start.getEpochSecond() * 1_000_000L + start.getNano() / 1000;
        return TestConfigs.config(
                TestConfigs.builder(
                                GoogleGateway.PROJECT,
                                DB.getInstanceId().getInstance(),
                                database,
                                stream,
                                micros,
                                micros + 1_000_000L)
                        .setEmulatorHost(google.hostPort())
                        .setPartitionMode(mode));
    }

    private static Throwable rootQueryFailure(SpannerSourceConfig config) {
        try (SpannerRootPartitions root = new SpannerRootPartitions(config)) {
            return org.assertj.core.api.Assertions.catchThrowable(
                    () -> root.query(config.startMicros()));
        }
    }

    @Test
    void theStreamIsReadWithTheDetectionQueries() {
        try (SpannerRootPartitions root =
                new SpannerRootPartitions(config("errors-db", "everything", Instant.now(), null))) {
            assertThat(root.query(Instant.now().getEpochSecond() * 1_000_000L)).isNotEmpty();
            assertThat(root.query().partitionMode()).isEqualTo(PartitionMode.IMMUTABLE_KEY_RANGE);
        }
    }

    /** GoogleSQL resolves names in any case: so does the check. */
    @Test
    void theStreamNamedInAnotherCaseIsRead() {
        try (SpannerRootPartitions root =
                new SpannerRootPartitions(config("errors-db", "EveryThing", Instant.now(), null))) {
            assertThat(root.query(Instant.now().getEpochSecond() * 1_000_000L)).isNotEmpty();
        }
    }

    @Test
    void aDatabaseThatDoesNotExist() {
        assertThat(rootQueryFailure(config("no-such-db", "everything", Instant.now(), null)))
                .isInstanceOf(NonRecoverableSourceException.class)
                .hasMessageContaining("no-such-db")
                .hasMessageContaining("NOT_FOUND")
                .hasMessageContaining("setDatabaseId(...)");
    }

    @Test
    void aChangeStreamThatDoesNotExist() {
        assertThat(rootQueryFailure(config("errors-db", "nope_cs", Instant.now(), null)))
                .isInstanceOf(NonRecoverableSourceException.class)
                .hasMessageContaining("Change stream nope_cs does not exist in database")
                .hasMessageContaining("it has everything")
                .hasMessageContaining("'change-stream'");
        // Not detected: Spanner's answer to the query.
        assertThat(
                        rootQueryFailure(
                                config(
                                        "errors-db",
                                        "nope_cs",
                                        Instant.now(),
                                        PartitionMode.IMMUTABLE_KEY_RANGE)))
                .isInstanceOf(NonRecoverableSourceException.class)
                .hasMessageContaining("Table-valued function not found: READ_nope_cs")
                .hasMessageContaining("'change-stream'");
    }

    @Test
    void aStartBeforeTheStream() {
        assertThat(
                        rootQueryFailure(
                                config(
                                        "errors-db",
                                        "everything",
                                        created.minus(Duration.ofHours(1)),
                                        null)))
                .isInstanceOf(NonRecoverableSourceException.class)
                .hasMessageContaining("OUT_OF_RANGE")
                .hasMessageContaining("too far in the past")
                .hasMessageContaining("setStartTimestamp(...)");
    }
}
