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
import io.spannercs.testcluster.FlinkRest;
import io.spannercs.testcluster.StandaloneFlinkCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The shaded job jar with {@code --sink pubsub} on a standalone Flink session cluster (its own
 * JVMs), submitted over REST: it runs with the Pub/Sub client bundled next to the Spanner client,
 * publishes every change into Google's Pub/Sub emulator, and once the job has finished the
 * TaskManager has no thread of the Pub/Sub sink, gax or gRPC left, and no user-code class loader
 * after full GCs: a session cluster can run such jobs one after another without leaking.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SpannerCdcJobPubSubClusterIT {
    private static final Path JOB_JAR = Path.of("target", "spanner-cs-job.jar");
    private static final Path HOME = Path.of("target", "pubsub-cluster-it");

    /** Transactions written before the job starts, each changing one or more rows. */
    private static final int CHANGES = 60;

    @Test
    void theJarPublishesEveryChangeAndLeavesNoClientThreadNorClassLoader() throws Exception {
        assertThat(JOB_JAR).as("the shaded job jar; run `mvn verify`").exists();
        deleteRecursively(HOME);
        try (PubSubEmulator pubsub = PubSubTestEmulator.startOrSkip(getClass());
                StandaloneFlinkCluster cluster =
                        StandaloneFlinkCluster.startJobManager(
                                HOME, List.of("taskmanager.numberOfTaskSlots: 2"));
                SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(ChangeFiles.DDL)
                                .initialPartitions(2)
                                .maxPartitions(6)
                                .start();
                EmulatorClients clients = new EmulatorClients(emulator)) {
            Process taskManager = cluster.startTaskManager();
            FlinkRest rest = new FlinkRest(cluster.restUrl());
            await("2 free slots", Duration.ofSeconds(90), () -> rest.availableSlots() >= 2);
            String db = emulator.databaseId();
            List<SubscriptionName> subscriptions = new ArrayList<>();
            for (String table : List.of("Items", "Lines")) {
                TopicName topic =
                        pubsub.createTopic(
                                PubSubTestEmulator.PROJECT, "spanner." + db + "." + table);
                subscriptions.add(pubsub.createSubscription("sub-" + table, topic, null));
            }

            // The changes are written first and the job reads them as history, bounded by the
            // last commit: how long the upload and the submission take on a loaded machine
            // cannot leave the job's window without changes.
            Instant start = Instant.now();
            RandomClientWrites writes = new RandomClientWrites(5, 20);
            for (int i = 0; i < CHANGES; i++) {
                writes.writeOne(clients.client());
                Thread.sleep(50); // a workload's pace, so partitions churn between writes
            }
            Instant end = Instant.now();
            String jarId = rest.uploadJar(JOB_JAR);
            String jobId =
                    rest.runJar(
                            jarId,
                            SpannerCdcJob.class.getName(),
                            List.of(
                                    "--project",
                                    emulator.projectId(),
                                    "--instance",
                                    emulator.instanceId(),
                                    "--database",
                                    db,
                                    "--change-stream",
                                    ChangeFiles.STREAM,
                                    "--emulator-host",
                                    emulator.hostPort(),
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
            await(
                    "job " + jobId + " FINISHED",
                    Duration.ofSeconds(120),
                    () -> {
                        String s = rest.jobState(jobId);
                        if (s.equals("FAILED") || s.equals("CANCELED")) {
                            throw new AssertionError(s + ": " + rest.exceptions(jobId));
                        }
                        return s.equals("FINISHED");
                    });

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
            await(
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

            await(
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
        for (String line : jcmd(p, "Thread.print").lines().toList()) {
            if (line.startsWith("\"spanner-cs-pubsub-")
                    || line.startsWith("\"Gax-")
                    || line.startsWith("\"grpc-")) {
                out.add(line.substring(1, line.indexOf('"', 1)));
            }
        }
        return out;
    }

    /** Flink's user-code class loaders alive after up to 5 full GCs, a second apart. */
    private static long userClassLoadersAfterFullGc(Process p) throws Exception {
        String stats = "";
        for (int i = 0; i < 5; i++) {
            jcmd(p, "GC.run");
            Thread.sleep(1000);
            stats = jcmd(p, "VM.classloader_stats");
            if (stats.lines().noneMatch(l -> l.contains("ChildFirstClassLoader"))) {
                return 0;
            }
        }
        Files.writeString(
                HOME.resolve("threads-" + p.pid() + ".txt"),
                jcmd(p, "Thread.print"),
                StandardCharsets.UTF_8);
        return stats.lines().filter(l -> l.contains("ChildFirstClassLoader")).count();
    }

    private static String jcmd(Process p, String command) throws Exception {
        Path jcmd = Paths.get(System.getProperty("java.home"), "bin", "jcmd");
        Process c =
                new ProcessBuilder(jcmd.toString(), String.valueOf(p.pid()), command)
                        .redirectErrorStream(true)
                        .start();
        String out = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(c.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    /** A check that may throw; an IOException means "not yet". */
    private interface Check {
        boolean ok() throws Exception;
    }

    private static void await(String what, Duration timeout, Check check) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                if (check.ok()) {
                    return;
                }
            } catch (IOException e) {
                last = e;
            }
            Thread.sleep(250);
        }
        throw new AssertionError(
                "Timed out after " + timeout + " waiting for " + what + "; logs in " + HOME, last);
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
