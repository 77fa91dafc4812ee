package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.emulator.storage.RowChange;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.RandomClientWrites;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.datastream.DatastreamContext;
import io.spannercs.flink.format.datastream.DatastreamJsonDeserializer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job, bounded, on the emulator in a MiniCluster: the committed JSON files hold every change of
 * the ground truth once, in a folder per table.
 */
@org.junit.jupiter.api.Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class SpannerCdcJobITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static final String DDL =
            RandomClientWrites.TABLES
                    + "CREATE CHANGE STREAM everything FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE', value_capture_type = 'NEW_ROW');\n";

    @TempDir Path out;

    @Test
    void writesEveryChangeOnceInAFolderPerTable() throws Exception {
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(DDL)
                                .initialPartitions(2)
                                .maxPartitions(6)
                                .start();
                EmulatorClients clients = new EmulatorClients(emulator)) {
            Instant start = Instant.now();
            RandomClientWrites writes = new RandomClientWrites(4, 30);
            ChangeStream cs = emulator.database().changeStream("everything");
            for (int i = 0; i < 150; i++) {
                writes.writeOne(clients.client());
                if (i % 20 == 0) {
                    cs.churnRandomly();
                }
            }
            Instant end = Instant.now();

            JobOptions options =
                    JobOptions.parse(
                            new String[] {
                                "--project", emulator.projectId(),
                                "--instance", emulator.instanceId(),
                                "--database", emulator.databaseId(),
                                "--change-stream", "everything",
                                "--emulator-host", emulator.hostPort(),
                                "--start-timestamp", start.toString(),
                                "--end-timestamp", end.toString(),
                                "--output", out.toString(),
                                "--parallelism", "2",
                                "--checkpoint-interval", "200ms"
                            });
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            SpannerCdcJob.attach(env, options);
            env.execute("job test");

            DatastreamJsonDeserializer json =
                    new DatastreamJsonDeserializer(
                            DatastreamContext.builder(
                                            emulator.projectId(),
                                            emulator.instanceId(),
                                            emulator.databaseId(),
                                            "everything")
                                    .build());
            List<String> actual = new ArrayList<>();
            List<String> folders = new ArrayList<>();
            try (Stream<Path> files = Files.walk(out)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    // Committed files only: in-progress ones are hidden (".part-...").
                    assertThat(f.getFileName().toString()).startsWith("part-");
                    folders.add(f.getParent().getFileName().toString());
                    for (String line : Files.readAllLines(f)) {
                        ChangeEvent e = json.fromJson(line);
                        assertThat(f.getParent().getFileName().toString()).isEqualTo(e.getTable());
                        actual.add(identity(e));
                    }
                }
            }
            List<String> expected = expected(emulator, start, end);
            assertThat(expected).hasSizeGreaterThan(150);
            assertThat(folders).contains("Items", "Lines");
            assertThat(actual)
                    .doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    private static String identity(ChangeEvent e) {
        return e.getServerTransactionId()
                + "|"
                + e.getTable()
                + "|"
                + e.getChangeType()
                + "|"
                + e.getKeys().values();
    }

    /**
     * Every row change committed in [start, end] (the stream watches all tables and columns), as
     * the emulator recorded them.
     */
    private static List<String> expected(SpannerEmulator emulator, Instant start, Instant end) {
        long s = start.getEpochSecond() * 1_000_000L + start.getNano() / 1000;
        long t = end.getEpochSecond() * 1_000_000L + end.getNano() / 1000;
        List<String> out = new ArrayList<>();
        for (CommittedTransaction txn : emulator.database().groundTruth()) {
            if (txn.commitMicros() < s || txn.commitMicros() > t) {
                continue;
            }
            for (RowChange c : txn.changes()) {
                // Spanner records no UPDATE that writes no non-key column.
                if (c.modType().name().equals("UPDATE")
                        && c.table().columns().stream()
                                .noneMatch(col -> !col.primaryKey() && c.wrote(col))) {
                    continue;
                }
                List<Object> keys = new ArrayList<>();
                for (int i = 0; i < c.table().keyColumns().size(); i++) {
                    com.google.protobuf.Value v = c.key().get(i);
                    keys.add(
                            c.table().keyColumns().get(i).name().equals("OrderId")
                                            || c.table().keyColumns().get(i).name().equals("Id")
                                    ? (Object) Long.parseLong(v.getStringValue())
                                    : v.getStringValue());
                }
                out.add(
                        txn.serverTransactionId()
                                + "|"
                                + c.table().name()
                                + "|"
                                + c.modType().name()
                                + "|"
                                + keys);
            }
        }
        return out;
    }
}
