package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.pubsub.v1.ReceivedMessage;
import com.google.pubsub.v1.SubscriptionName;
import com.google.pubsub.v1.TopicName;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.RandomClientWrites;
import io.spannercs.flink.format.datastream.DatastreamContext;
import io.spannercs.flink.format.datastream.DatastreamJsonDeserializer;
import io.spannercs.job.pubsub.PubSubEmulator;
import io.spannercs.job.pubsub.PubSubTestEmulator;
import io.spannercs.testcluster.Jcmd;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The shaded job jar with {@code --sink pubsub} on a standalone Flink session cluster (its own
 * JVMs), submitted over REST: it runs with the Pub/Sub client bundled next to the Spanner client,
 * publishes every change into Google's Pub/Sub emulator, and once the job has finished the
 * TaskManager has no thread of the Pub/Sub sink, gax or gRPC left, and no user-code class loader
 * after full GCs: a session cluster can run such jobs one after another without leaking.
 */
// Only bounds a hang: each step has a bound of its own (a jar run up to 3 min, the job's end, the
// sink's output), and together they exceed 4 min on a loaded machine (two suites at once: 243 s).
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class SpannerCdcJobPubSubClusterIT {
    private static final Path HOME = Path.of("target", "pubsub-cluster-it");

    /** Transactions written before the job starts, each changing one or more rows. */
    private static final int CHANGES = 60;

    @Test
    void theJarPublishesEveryChangeAndLeavesNoClientThreadNorClassLoader() throws Exception {
        try (PubSubEmulator pubsub = PubSubTestEmulator.startOrSkip(getClass());
                JobJarCluster cluster = JobJarCluster.start(HOME, 2, List.of());
                SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(ChangeFiles.DDL)
                                .initialPartitions(2)
                                .maxPartitions(6)
                                .start();
                EmulatorClients clients = new EmulatorClients(emulator)) {
            Process taskManager = cluster.taskManager();
            String db = emulator.databaseId();
            List<SubscriptionName> subscriptions = new ArrayList<>();
            for (String table : List.of("Items", "Lines")) {
                TopicName topic =
                        pubsub.createTopic(
                                PubSubTestEmulator.PROJECT, "spanner." + db + "." + table);
                subscriptions.add(pubsub.createSubscription("sub-" + table, topic, null));
            }

            // The changes are written first and the job reads them as history, bounded by the
            // last commit: how long the submission takes on a loaded machine cannot leave the
            // job's window without changes.
            Instant start = Instant.now();
            RandomClientWrites writes = new RandomClientWrites(5, 20);
            for (int i = 0; i < CHANGES; i++) {
                writes.writeOne(clients.client());
                Thread.sleep(50); // a workload's pace, so partitions churn between writes
            }
            Instant end = Instant.now();
            List<String> args = new ArrayList<>(JobJarCluster.emulatorArgs(emulator));
            args.addAll(
                    List.of(
                            "--start-timestamp",
                            start.toString(),
                            "--end-timestamp",
                            end.toString(),
                            "--sink",
                            "pubsub",
                            "--pubsub-endpoint",
                            pubsub.hostPort(),
                            "--pubsub-project",
                            PubSubTestEmulator.PROJECT,
                            "--parallelism",
                            "2",
                            "--checkpoint-interval",
                            "1s"));
            String jobId = cluster.run(args);
            cluster.awaitFinished(jobId, Duration.ofSeconds(120));

            List<String> expected = ChangeFiles.expected(emulator, start, end);
            assertThat(expected).hasSizeGreaterThan(20);
            DatastreamJsonDeserializer json =
                    new DatastreamJsonDeserializer(
                            DatastreamContext.builder(
                                            emulator.projectId(),
                                            emulator.instanceId(),
                                            db,
                                            ChangeFiles.STREAM)
                                    .build());
            Set<String> received = new HashSet<>();
            cluster.await(
                    "every change in the tables' topics",
                    Duration.ofSeconds(60),
                    () -> {
                        for (SubscriptionName s : subscriptions) {
                            for (ReceivedMessage m : pubsub.pullAndAck(s, 1000)) {
                                received.add(
                                        ChangeFiles.identity(
                                                json.fromJson(
                                                        m.getMessage().getData().toByteArray())));
                            }
                        }
                        return received.containsAll(expected);
                    });
            assertThat(received).containsExactlyInAnyOrderElementsOf(expected);
            // The source's close waited its whole 15 s for gRPC's shared threads, which the
            // sink's publishers hold until the sink closes after it.
            assertThat(
                            Files.readAllLines(
                                    cluster.cluster().logDir().resolve("taskmanager-0.log"),
                                    StandardCharsets.UTF_8))
                    .as("the TaskManager's log")
                    .noneMatch(l -> l.contains("Threads of the Spanner client still run"));

            cluster.await(
                    "no Pub/Sub, gax or gRPC thread in the TaskManager",
                    Duration.ofSeconds(30),
                    () -> clientThreads(taskManager).isEmpty());
            assertThat(userClassLoadersAfterFullGc(taskManager))
                    .as("user-code class loaders alive in the TaskManager after full GCs")
                    .isZero();
        }
    }

    /** Names of the TaskManager's threads of the Pub/Sub sink, gax and gRPC. */
    private static List<String> clientThreads(Process p) throws Exception {
        List<String> out = new ArrayList<>();
        for (String line : Jcmd.run(p, "Thread.print").lines().toList()) {
            if (line.startsWith("\"spanner-cs-pubsub-")
                    || line.startsWith("\"Gax-")
                    || line.startsWith("\"grpc-")) {
                out.add(line.substring(1, line.indexOf('"', 1)));
            }
        }
        return out;
    }

    /** Flink's user-code class loaders alive after full GCs, for up to 15 s. */
    private static long userClassLoadersAfterFullGc(Process p) throws Exception {
        long alive =
                Jcmd.userCodeClassLoaders(
                        Jcmd.classLoaderStatsAfterFullGcs(p, Duration.ofSeconds(15)));
        if (alive > 0) {
            // A thread of the job's that did not end keeps its loader: its stack says where.
            Files.writeString(
                    HOME.resolve("threads-" + p.pid() + ".txt"),
                    Jcmd.run(p, "Thread.print"),
                    StandardCharsets.UTF_8);
        }
        return alive;
    }
}
