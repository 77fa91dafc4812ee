package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.RandomClientWrites;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
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

    @TempDir Path out;

    @Test
    void writesEveryChangeOnceInAFolderPerTable() throws Exception {
        run(false);
    }

    /**
     * {@code --format avro --order commit}: the change events are keyed by row, reordered on the
     * watermark and converted to Avro after the shuffle; every change is in the committed container
     * files once (counted by the Datastream uuid, which is unique per change).
     */
    @Test
    void writesEveryChangeOnceAsAvroInCommitOrder() throws Exception {
        run(true);
    }

    private void run(boolean avroInCommitOrder) throws Exception {
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(ChangeFiles.DDL)
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
                                "--checkpoint-interval", "200ms",
                                "--format", avroInCommitOrder ? "avro" : "json",
                                "--order", avroInCommitOrder ? "commit" : "source"
                            });
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            SpannerCdcJob.attach(env, options);
            env.execute("job test");

            // Committed files only: in-progress ones (".part-...") must be gone at the end.
            for (Path f : ChangeFiles.files(out)) {
                assertThat(f.getFileName().toString()).startsWith("part-");
            }
            List<String> expected = ChangeFiles.expected(emulator, start, end);
            assertThat(expected).hasSizeGreaterThan(150);
            if (avroInCommitOrder) {
                List<String> uuids = new java.util.ArrayList<>();
                for (Path f : ChangeFiles.files(out)) {
                    try (org.apache.avro.file.DataFileReader<org.apache.avro.generic.GenericRecord>
                            records =
                                    new org.apache.avro.file.DataFileReader<>(
                                            f.toFile(),
                                            new org.apache.avro.generic.GenericDatumReader<>())) {
                        records.forEach(r -> uuids.add(r.get("uuid").toString()));
                    }
                }
                assertThat(uuids).doesNotHaveDuplicates().hasSameSizeAs(expected);
                return;
            }
            List<String> actual = ChangeFiles.committed(out, emulator);
            assertThat(ChangeFiles.folders(out)).contains("Items", "Lines");
            assertThat(actual)
                    .doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
    }
}
