package io.spannercs.flink.source.google;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Spanner;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.format.ChangeEventTypeInfo;
import io.spannercs.flink.source.EmulatorSources;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import io.spannercs.flink.source.StartupMode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A snapshot at T of a database whose schema changed after T, on Google's Cloud Spanner emulator
 * (ours has no DDL after start): the snapshot holds the tables as they were at T, and a table
 * created after T is not part of it instead of failing the planning. Skips, saying why, where the
 * gateway is not installed.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class GoogleEmulatorSnapshotSchemaITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = EmulatorSources.twoSlotCluster();

    private static final DatabaseId DB =
            DatabaseId.of(GoogleGateway.PROJECT, "schema-instance", "schema-db");

    @Test
    void aTableCreatedAfterTheSnapshotTimestampIsNotPartOfTheSnapshot() throws Exception {
        try (GoogleGateway google = GoogleGateway.startOrSkip(getClass())) {
            Spanner spanner = google.spanner();
            google.createDatabase(
                    spanner,
                    DB,
                    List.of(
                            "CREATE TABLE Early (Id INT64 NOT NULL, V STRING(MAX)) PRIMARY KEY (Id)",
                            "CREATE CHANGE STREAM everything FOR ALL"));
            DatabaseClient client = spanner.getDatabaseClient(DB);
            List<Mutation> rows = new ArrayList<>();
            for (long id = 0; id < 20; id++) {
                rows.add(
                        Mutation.newInsertBuilder("Early")
                                .set("Id")
                                .to(id)
                                .set("V")
                                .to("v" + id)
                                .build());
            }
            client.write(rows);
            Instant snapshotAt = Instant.now();
            spanner.getDatabaseAdminClient()
                    .updateDatabaseDdl(
                            DB.getInstanceId().getInstance(),
                            DB.getDatabase(),
                            List.of("CREATE TABLE Later (Id INT64 NOT NULL) PRIMARY KEY (Id)"),
                            null)
                    .get(1, TimeUnit.MINUTES);
            client.write(List.of(Mutation.newInsertBuilder("Later").set("Id").to(1L).build()));

            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(1);
            SpannerChangeStreamSource<ChangeEvent> source =
                    SpannerChangeStreamSource.<ChangeEvent>builder()
                            .setProjectId(GoogleGateway.PROJECT)
                            .setInstanceId(DB.getInstanceId().getInstance())
                            .setDatabaseId(DB.getDatabase())
                            .setChangeStream("everything")
                            .setStartupMode(StartupMode.snapshotOnly(snapshotAt))
                            .setHeartbeatInterval(Duration.ofMillis(500))
                            .setEmulatorHost(google.hostPort())
                            .setDeserializer(ChangeEventDeserializer.changeEvents())
                            .build();
            List<String> tables = new ArrayList<>();
            try (CloseableIterator<ChangeEvent> it =
                    env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                            .returns(ChangeEventTypeInfo.INSTANCE)
                            .executeAndCollect("snapshot before a schema change")) {
                it.forEachRemaining(e -> tables.add(e.getTable()));
            }
            assertThat(tables).hasSize(20).containsOnly("Early");
        }
    }
}
