package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.workload.WorkloadConfig;
import io.spannercs.emulator.workload.WorkloadGenerator;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.datastream.DatastreamContext;
import io.spannercs.flink.format.datastream.DatastreamJsonDeserializer;
import io.spannercs.flink.operators.ChangeEventOrdering;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The shaded job jar with {@code --sink kafka} (exactly once) on a real standalone session cluster
 * (a JobManager and a TaskManager with 2 slots, each its own JVM, shared by the cases; a spare
 * TaskManager is started once a job runs), unbounded, into an in-process KRaft broker (Kafka's test
 * kit), in both partition modes: the job starts with a snapshot of filled tables ({@code
 * --startup-mode initial}) while partitions churn and a workload writes. Once changes after the
 * snapshot are in committed Kafka transactions, the TaskManager is killed (no shutdown hooks); the
 * job restores its last checkpoint on the spare. Then the writes stop, the test waits until a
 * {@code read_committed} consumer has seen every change, and cancels the job.
 *
 * <p>The topics must hold the snapshot rows (the tables at the snapshot's time) and every change
 * after it, each exactly once, in the topic of its table, each row in one partition and in commit
 * order there. The JVMs log to {@code target/kafka-cluster-it/log}.
 */
// Only bounds a hang: each step has a bound of its own (a jar run up to 3 min, the job's end, the
// sink's output), and together they exceed 4 min on a loaded machine (two suites at once: 243 s).
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class SpannerCdcJobKafkaClusterIT {
    private static final Path HOME = Path.of("target", "kafka-cluster-it");
    private static final int SLOTS = 2;
    private static final int PARTITIONS = 3;

    /** Its TaskManager runs the cases' jobs: the only one when a job is submitted. */
    private static JobJarCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        // A lost TaskManager fails the job; it restarts from the last checkpoint on the spare
        // TaskManager's slots.
        cluster =
                JobJarCluster.start(HOME, SLOTS, JobJarCluster.restartingFromCheckpoints(HOME, 30));
    }

    /** Cancels what a failed case left running, so the next case finds its slots. */
    @AfterEach
    void cancelRunningJobs() throws Exception {
        if (cluster != null) {
            cluster.cancelRunningJobs();
        }
    }

    @AfterAll
    static void stopCluster() throws InterruptedException {
        if (cluster != null) {
            cluster.close();
        }
    }

    @ParameterizedTest(name = "mutable key ranges: {0}")
    @ValueSource(booleans = {true, false})
    void everyChangeOnceAndInCommitOrderThroughAKilledTaskManager(boolean mutable)
            throws Exception {
        long t0 = System.nanoTime();
        try (KafkaClusterTestKit kafka = SpannerCdcJobKafkaITCase.startKafka();
                SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(ChangeFiles.ddl(mutable))
                                .initialPartitions(2)
                                .maxPartitions(6)
                                .churnInterval(Duration.ofMillis(300))
                                .start()) {
            String db = emulator.databaseId();
            List<String> topics = List.of("spanner." + db + ".Items", "spanner." + db + ".Lines");
            try (Admin admin = SpannerCdcJobKafkaITCase.admin(kafka)) {
                List<NewTopic> newTopics = new ArrayList<>();
                topics.forEach(t -> newTopics.add(new NewTopic(t, PARTITIONS, (short) 1)));
                admin.createTopics(newTopics).all().get(30, TimeUnit.SECONDS);
            }

            WorkloadGenerator workload =
                    new WorkloadGenerator(
                            emulator.database(),
                            WorkloadConfig.builder()
                                    .transactionsPerSecond(40)
                                    .rowsPerTransaction(1, 3)
                                    .mix(2, 3, 1)
                                    .keySpace(400)
                                    .seed(mutable ? 23 : 29)
                                    .build());
            workload.preload(200);
            Instant snapshotAt = Instant.now();
            List<String> snapshotRows = ChangeFiles.expectedSnapshot(emulator, snapshotAt);
            assertThat(snapshotRows).hasSizeGreaterThanOrEqualTo(300);

            cluster.awaitFreeSlots(SLOTS);
            workload.start();
            String jobId;
            try {
                List<String> args = new ArrayList<>(JobJarCluster.emulatorArgs(emulator));
                args.addAll(
                        List.of(
                                "--startup-mode", "initial",
                                "--start-timestamp", snapshotAt.toString(),
                                "--sink", "kafka",
                                "--delivery-guarantee", "exactly-once",
                                "--bootstrap-servers", kafka.bootstrapServers(),
                                "--parallelism", Integer.toString(SLOTS),
                                "--checkpoint-interval", "1s"));
                jobId = cluster.run(args);

                // The job holds all slots of the only TaskManager; a spare one takes over.
                cluster.awaitRunning(jobId, Duration.ofSeconds(60));
                Process spare = cluster.startTaskManager();

                // Transactions with changes after the snapshot committed, writes going on.
                cluster.await(
                        "committed changes after the snapshot",
                        Duration.ofSeconds(120),
                        () -> {
                            cluster.failIfEnded(jobId);
                            return readCommitted(kafka, topics, emulator).stream()
                                    .anyMatch(e -> !e.isSnapshot());
                        });
                cluster.killTaskManagerFor(spare);
                awaitRestoredAndCheckpointing(jobId);
                // The workload's pace is the machine's: it writes on until there are enough
                // changes, instead of only as long as the restore took.
                cluster.await(
                        "more than 200 changes after the snapshot",
                        Duration.ofSeconds(120),
                        () -> {
                            cluster.failIfEnded(jobId);
                            return ChangeFiles.moreThan(emulator, snapshotAt.plusNanos(1000), 200);
                        });
            } finally {
                workload.stop();
            }
            Instant writesStopped = Instant.now();

            List<String> expected = new ArrayList<>(snapshotRows);
            // The snapshot holds what committed up to its time; the stream reads after it.
            List<String> changes =
                    ChangeFiles.expected(emulator, snapshotAt.plusNanos(1000), writesStopped);
            assertThat(changes).as("changes after the snapshot").hasSizeGreaterThan(200);
            expected.addAll(changes);
            cluster.await(
                    "every change in the topics",
                    Duration.ofSeconds(90),
                    () -> {
                        cluster.failIfEnded(jobId);
                        Set<String> seen = new HashSet<>();
                        readCommitted(kafka, topics, emulator)
                                .forEach(e -> seen.add(ChangeFiles.identity(e)));
                        return seen.containsAll(expected);
                    });
            cluster.cancelAfterOneMoreCheckpoint(jobId);

            assertTopics(kafka, topics, emulator, expected);
            assertThat(cluster.rest().restoredCount(jobId))
                    .as("restores")
                    .isGreaterThanOrEqualTo(1);
        }
        System.out.printf(
                "Kafka on the cluster, a TaskManager killed (mutable %s): %.1f s%n",
                mutable, (System.nanoTime() - t0) / 1e9);
    }

    /**
     * Each change once, in the topic of its table; each row (topic and key) in one partition, its
     * changes in commit order there; and no topic but the tables'.
     */
    private static void assertTopics(
            KafkaClusterTestKit kafka,
            List<String> topics,
            SpannerEmulator emulator,
            List<String> expected)
            throws Exception {
        DatastreamJsonDeserializer json = json(emulator);
        List<String> actual = new ArrayList<>();
        Map<String, Set<Integer>> partitionsOfRow = new HashMap<>();
        Map<String, List<ChangeEvent>> changesOfRow = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r :
                SpannerCdcJobKafkaITCase.readCommitted(kafka.bootstrapServers(), topics)) {
            ChangeEvent e = json.fromJson(r.value());
            actual.add(ChangeFiles.identity(e));
            assertThat(r.topic())
                    .isEqualTo("spanner." + emulator.databaseId() + "." + e.getTable());
            String row = r.topic() + "|" + new String(r.key(), StandardCharsets.UTF_8);
            partitionsOfRow.computeIfAbsent(row, k -> new HashSet<>()).add(r.partition());
            changesOfRow.computeIfAbsent(row, k -> new ArrayList<>()).add(e);
        }
        assertThat(actual).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(expected);
        partitionsOfRow.forEach(
                (row, partitions) -> assertThat(partitions).as("partitions of " + row).hasSize(1));
        changesOfRow.forEach(
                (row, changes) -> {
                    for (int i = 1; i < changes.size(); i++) {
                        assertThat(
                                        ChangeEventOrdering.COMMIT_ORDER.compare(
                                                changes.get(i - 1), changes.get(i)))
                                .as("commit order of " + row + " at its change " + i)
                                .isNegative();
                    }
                });
        assertThat(changesOfRow.values())
                .as("rows with a snapshot row and later changes")
                .anyMatch(changes -> changes.size() > 1 && changes.get(0).isSnapshot());
        try (Admin admin = SpannerCdcJobKafkaITCase.admin(kafka)) {
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS))
                    .as("no topic but the tables'")
                    .containsExactlyInAnyOrderElementsOf(topics);
        }
    }

    /** The events a {@code read_committed} consumer sees now. */
    private static List<ChangeEvent> readCommitted(
            KafkaClusterTestKit kafka, List<String> topics, SpannerEmulator emulator)
            throws IOException {
        DatastreamJsonDeserializer json = json(emulator);
        List<ChangeEvent> events = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r :
                SpannerCdcJobKafkaITCase.readCommitted(kafka.bootstrapServers(), topics)) {
            events.add(json.fromJson(r.value()));
        }
        return events;
    }

    private static DatastreamJsonDeserializer json(SpannerEmulator emulator) {
        return new DatastreamJsonDeserializer(
                DatastreamContext.builder(
                                emulator.projectId(),
                                emulator.instanceId(),
                                emulator.databaseId(),
                                ChangeFiles.STREAM)
                        .build());
    }

    /**
     * Waits until the job was restored, runs, and has completed two checkpoints since: the restored
     * job commits transactions.
     */
    private static void awaitRestoredAndCheckpointing(String jobId) throws Exception {
        long[] completedAtRestore = {-1};
        cluster.await(
                "job " + jobId + " restored and checkpointing",
                Duration.ofSeconds(120),
                () -> {
                    cluster.failIfEnded(jobId);
                    if (completedAtRestore[0] < 0) {
                        if (cluster.rest().restoredCount(jobId) < 1
                                || !cluster.rest().jobState(jobId).equals("RUNNING")) {
                            return false;
                        }
                        completedAtRestore[0] = cluster.rest().completedCheckpoints(jobId);
                    }
                    return cluster.rest().completedCheckpoints(jobId) >= completedAtRestore[0] + 2;
                });
    }
}
