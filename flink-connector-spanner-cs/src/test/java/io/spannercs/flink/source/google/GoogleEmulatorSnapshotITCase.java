package io.spannercs.flink.source.google;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.KeySet;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.TimestampBound;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.format.ChangeEventTypeInfo;
import io.spannercs.flink.source.EmulatorSources;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import io.spannercs.flink.source.StartupMode;
import io.spannercs.flink.source.snapshot.TableFold;
import io.spannercs.flink.testing.FailInSnapshotAndStream;
import io.spannercs.flink.testing.InjectedFailures;
import io.spannercs.flink.testing.SnapshotOrder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Snapshot then stream against Google's Cloud Spanner emulator ({@code gateway_main}), whose
 * information schema, timestamp reads and legacy change stream are not ours: tables pre-filled
 * through the official client, a writer committing while the job (parallelism 2, checkpoints every
 * 200 ms) reads the snapshot at T and then the stream from T + 1 µs, failing once in the snapshot
 * and once in the stream. The snapshot rows must be the tables as the client reads them at T, once
 * each; the changes must be exactly what the client committed after T; applied per key in commit
 * order, the output must equal the tables as the client reads them at the end; and no key's change
 * may come before its snapshot row. The range ends by what is written, not by a clock: the writer
 * goes on until it has committed the changes the checks need, the range ends a live tail after its
 * last commit, and the job starts then. Skips, saying why, where the gateway is not installed.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class GoogleEmulatorSnapshotITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = EmulatorSources.twoSlotCluster();

    private static final String PROJECT = GoogleGateway.PROJECT;
    private static final DatabaseId DB = DatabaseId.of(PROJECT, "snap-instance", "snap-db");
    private static final int BULK_ORDERS = 6000;

    /** Changes committed after T that the checks require; past the stream failure at 300. */
    private static final int MIN_CHANGES = 600;

    /** How long past the last commit seen before the job starts the range reads at the head. */
    private static final Duration LIVE_TAIL = Duration.ofSeconds(3);

    private static final Map<String, List<String>> COLUMNS =
            Map.of(
                    "Orders", List.of("OrderId", "Customer", "Amount"),
                    "Customers", List.of("Name", "Tier"));

    @Test
    void snapshotThenStreamEqualsWhatTheClientReadsAndWrote() throws Exception {
        FailInSnapshotAndStream.reset(2500, 300);
        try (GoogleGateway google = GoogleGateway.startOrSkip(getClass())) {
            Spanner spanner = google.spanner();
            google.createDatabase(spanner, DB, OrdersWriter.DDL);
            DatabaseClient client = spanner.getDatabaseClient(DB);
            OrdersWriter orders = new OrdersWriter(client, 17);
            orders.prefill(BULK_ORDERS);
            Instant snapshotAt = Instant.now();
            LiveWriter writer = new LiveWriter(orders, micros(snapshotAt), Integer.MAX_VALUE, 20);
            Thread writing = new Thread(writer, "google-emulator-writer");
            writing.start();
            // Not a fixed 22 s of writes: a loaded run committed 524 of the 600 changes needed.
            Instant end = writer.endAfterChanges(MIN_CHANGES, LIVE_TAIL);

            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(
                            InjectedFailures.restartingConfiguration());
            env.setParallelism(2);
            env.enableCheckpointing(200);
            SpannerChangeStreamSource<ChangeEvent> source =
                    SpannerChangeStreamSource.<ChangeEvent>builder()
                            .setProjectId(PROJECT)
                            .setInstanceId(DB.getInstanceId().getInstance())
                            .setDatabaseId(DB.getDatabase())
                            .setChangeStream("everything")
                            .setStartupMode(StartupMode.snapshotThenStream(snapshotAt))
                            .setSnapshotChunkRows(1000)
                            .setEndTimestamp(end)
                            .setHeartbeatInterval(Duration.ofMillis(500))
                            .setEmulatorHost(google.hostPort())
                            .setDeserializer(ChangeEventDeserializer.changeEvents())
                            .build();
            List<ChangeEvent> events = new ArrayList<>();
            try (CloseableIterator<ChangeEvent> it =
                    env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                            .map(new FailInSnapshotAndStream(), ChangeEventTypeInfo.INSTANCE)
                            .executeAndCollect("snapshot then stream on Google's emulator")) {
                it.forEachRemaining(events::add);
            } finally {
                writing.join();
            }
            if (writer.failure() != null) {
                throw writer.failure();
            }
            assertThat(FailInSnapshotAndStream.failed())
                    .as("failures in the snapshot and in the stream")
                    .containsExactly("snapshot", "stream");

            TableFold snapshot = new TableFold();
            List<String> snapshotKeys = new ArrayList<>();
            List<String> changes = new ArrayList<>();
            for (ChangeEvent e : events) {
                if (e.isSnapshot()) {
                    snapshot.apply(e);
                    snapshotKeys.add(e.getTable() + "|" + e.getKeys());
                } else {
                    changes.add(OrdersWriter.identity(e));
                }
            }
            Map<String, String> atSnapshot = tablesAt(client, snapshotAt);
            assertThat(atSnapshot).hasSizeGreaterThan(BULK_ORDERS);
            assertThat(snapshotKeys).as("snapshot rows").doesNotHaveDuplicates();
            assertThat(snapshot.image()).as("snapshot rows").isEqualTo(atSnapshot);

            long t = micros(snapshotAt);
            List<String> written = new ArrayList<>();
            for (String w : orders.written()) {
                long committed = LiveWriter.committedMicros(w);
                // The writer's last commit may come after the end it wrote up to.
                if (committed > t && committed <= micros(end)) {
                    written.add(w);
                }
            }
            assertThat(written).as("changes written after T").hasSizeGreaterThan(600);
            ExactlyOnce.assertExactlyOnce(changes, written);

            TableFold fold = TableFold.inCommitOrder(events);
            assertThat(fold.image())
                    .as("the output folded per key")
                    .isEqualTo(tablesAt(client, end));
            assertThat(SnapshotOrder.changesBeforeTheirSnapshotRow(events))
                    .as("changes emitted before their key's snapshot row")
                    .isZero();
        }
    }

    /** The tables as the official client reads them at {@code at}, in {@link TableFold}'s form. */
    private static Map<String, String> tablesAt(DatabaseClient client, Instant at) {
        Map<String, String> out = new TreeMap<>();
        TimestampBound bound =
                TimestampBound.ofReadTimestamp(Timestamp.ofTimeMicroseconds(micros(at)));
        for (Map.Entry<String, List<String>> table : COLUMNS.entrySet()) {
            List<String> columns = table.getValue();
            try (ResultSet rs =
                    client.singleUse(bound).read(table.getKey(), KeySet.all(), columns)) {
                while (rs.next()) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    for (int i = 0; i < columns.size(); i++) {
                        row.put(columns.get(i), rs.isNull(i) ? null : value(rs, i));
                    }
                    Map<String, Object> key = Map.of(columns.get(0), row.get(columns.get(0)));
                    out.put(table.getKey() + "|" + key, TableFold.text(row));
                }
            }
        }
        return out;
    }

    private static Object value(ResultSet rs, int i) {
        return switch (rs.getColumnType(i).getCode()) {
            case INT64 -> rs.getLong(i);
            default -> rs.getString(i);
        };
    }

    private static long micros(Instant i) {
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1000;
    }
}
