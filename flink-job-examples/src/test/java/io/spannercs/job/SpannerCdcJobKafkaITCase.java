package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.datastream.DatastreamContext;
import io.spannercs.flink.format.datastream.DatastreamJsonDeserializer;
import io.spannercs.flink.operators.ChangeEventOrdering;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code --sink kafka}, exactly once, into a real Kafka: an in-process KRaft broker (Kafka's own
 * test kit) on 127.0.0.1. The job (parallelism 2, checkpoints every 200 ms) reads the emulator
 * while a client writes with partition churn, so rows move between source readers; its TaskManager
 * is stopped once transactions have committed and a new one started, so the job restores from a
 * checkpoint (re-committing and aborting the transactions it finds). A {@code read_committed}
 * consumer must then see every change of the ground truth once, in the topic of its table, keyed by
 * its primary key, each row in one partition and in commit order there.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SpannerCdcJobKafkaITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    /**
     * How long the job reads: the writes, the restart and the catching up fit in it, with room for
     * a machine under load (20 s was too short at a load of 25).
     */
    private static final Duration READ_FOR = Duration.ofSeconds(30);

    /**
     * Transactions written before the job starts (more follow while it reads): two churns of the
     * partitions, and changes of both tables.
     */
    private static final int MIN_WRITES = 20;

    private static final int PARTITIONS = 3;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyChangeOnceInItsTablesTopicAndEachRowInCommitOrderThroughARestart(
            @InjectMiniCluster MiniCluster miniCluster) throws Exception {
        try (KafkaClusterTestKit kafka = startKafka();
                SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(ChangeFiles.DDL)
                                .initialPartitions(2)
                                .maxPartitions(6)
                                .start();
                EmulatorClients clients = new EmulatorClients(emulator)) {
            String db = emulator.databaseId();
            List<String> topics = List.of("spanner." + db + ".Items", "spanner." + db + ".Lines");
            try (Admin admin = admin(kafka)) {
                List<NewTopic> newTopics = new ArrayList<>();
                topics.forEach(t -> newTopics.add(new NewTopic(t, PARTITIONS, (short) 1)));
                admin.createTopics(newTopics).all().get(30, TimeUnit.SECONDS);
            }

            Instant start = Instant.now();
            // History first, as fast as the machine writes it: the floor on the writes holds
            // whatever its pace; the job reads it and then the writes that go on live.
            ChurningWriter writer = new ChurningWriter(emulator, clients, 11);
            writer.write(MIN_WRITES);
            Instant end = Instant.now().plus(READ_FOR);
            JobOptions options =
                    JobOptions.parse(
                            new String[] {
                                "--project", emulator.projectId(),
                                "--instance", emulator.instanceId(),
                                "--database", db,
                                "--change-stream", ChangeFiles.STREAM,
                                "--emulator-host", emulator.hostPort(),
                                "--start-timestamp", start.toString(),
                                "--end-timestamp", end.toString(),
                                "--sink", "kafka",
                                "--bootstrap-servers", kafka.bootstrapServers(),
                                "--parallelism", "2",
                                "--checkpoint-interval", "200ms"
                            });
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(restarting());
            SpannerCdcJob.attach(env, options);
            JobClient job = env.executeAsync("kafka job test");
            CompletableFuture<Integer> writes =
                    CompletableFuture.supplyAsync(() -> writer.writeUntil(end));

            // Mid-run: transactions committed, more to come.
            await(
                    "committed records while the job runs",
                    Duration.ofSeconds(60),
                    () -> !readCommitted(kafka.bootstrapServers(), topics).isEmpty());
            assertThat(job.getJobStatus().get())
                    .as("the job runs when its TaskManager stops")
                    .isEqualTo(JobStatus.RUNNING);
            miniCluster.terminateTaskManager(0).get(30, TimeUnit.SECONDS);
            miniCluster.startTaskManager();

            job.getJobExecutionResult().get(120, TimeUnit.SECONDS);
            assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.FINISHED);
            assertThat(
                            miniCluster
                                    .getExecutionGraph(job.getJobID())
                                    .get()
                                    .getCheckpointStatsSnapshot()
                                    .getLatestRestoredCheckpoint())
                    .as("a restore from a checkpoint")
                    .isNotNull();
            assertThat(writes.get(30, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(MIN_WRITES);

            List<ConsumerRecord<byte[], byte[]>> records =
                    readCommitted(kafka.bootstrapServers(), topics);
            DatastreamJsonDeserializer json =
                    new DatastreamJsonDeserializer(
                            DatastreamContext.builder(
                                            emulator.projectId(),
                                            emulator.instanceId(),
                                            db,
                                            ChangeFiles.STREAM)
                                    .build());
            List<String> actual = new ArrayList<>();
            // Per row (topic and key): the partitions it is in and its changes in offset order.
            Map<String, Set<Integer>> partitionsOfRow = new HashMap<>();
            Map<String, List<ChangeEvent>> changesOfRow = new HashMap<>();
            for (ConsumerRecord<byte[], byte[]> r : records) {
                ChangeEvent e = json.fromJson(r.value());
                actual.add(ChangeFiles.identity(e));
                assertThat(r.topic()).isEqualTo("spanner." + db + "." + e.getTable());
                String key = new String(r.key(), StandardCharsets.UTF_8);
                assertKeyIsThePrimaryKey(key, e, r.value());
                String row = r.topic() + "|" + key;
                partitionsOfRow.computeIfAbsent(row, k -> new HashSet<>()).add(r.partition());
                changesOfRow.computeIfAbsent(row, k -> new ArrayList<>()).add(e);
            }

            List<String> expected = ChangeFiles.expected(emulator, start, end);
            assertThat(expected).hasSizeGreaterThanOrEqualTo(MIN_WRITES);
            assertThat(actual)
                    .doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(expected);
            partitionsOfRow.forEach(
                    (row, partitions) ->
                            assertThat(partitions).as("partitions of " + row).hasSize(1));
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
            assertThat(changesOfRow.values()).anyMatch(changes -> changes.size() > 1);
            try (Admin admin = admin(kafka)) {
                assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS))
                        .as("no topic but the tables'")
                        .containsExactlyInAnyOrderElementsOf(topics);
            }
        }
    }

    /** The key is a JSON object of the key columns, in key order, valued as in the payload. */
    private static void assertKeyIsThePrimaryKey(String key, ChangeEvent e, byte[] value)
            throws Exception {
        JsonNode keyJson = JSON.readTree(key);
        JsonNode payload = JSON.readTree(value).get("payload");
        List<String> columns = new ArrayList<>();
        keyJson.fieldNames().forEachRemaining(columns::add);
        assertThat(columns).as("key " + key).containsExactlyElementsOf(e.getKeys().keySet());
        for (String c : columns) {
            assertThat(keyJson.get(c)).as("key " + key + " column " + c).isEqualTo(payload.get(c));
        }
    }

    /**
     * One broker that is also the KRaft controller. Its client listener is bound to 127.0.0.1; the
     * test kit binds the controller's port itself, before the configuration applies.
     */
    static KafkaClusterTestKit startKafka() throws Exception {
        KafkaClusterTestKit kafka =
                new KafkaClusterTestKit.Builder(
                                new TestKitNodes.Builder()
                                        .setCombined(true)
                                        .setNumBrokerNodes(1)
                                        .setNumControllerNodes(1)
                                        .build())
                        .setConfigProp(
                                "listeners", "EXTERNAL://127.0.0.1:0,CONTROLLER://127.0.0.1:0")
                        // One broker: the internal topics cannot have the default three replicas.
                        .setConfigProp("transaction.state.log.replication.factor", "1")
                        .setConfigProp("transaction.state.log.min.isr", "1")
                        .setConfigProp("offsets.topic.replication.factor", "1")
                        // Its 50 partitions by default slow down the first transaction.
                        .setConfigProp("transaction.state.log.num.partitions", "1")
                        .build();
        try {
            kafka.format();
            kafka.startup();
            kafka.waitForReadyBrokers();
        } catch (Exception | Error e) {
            kafka.close();
            throw e;
        }
        return kafka;
    }

    static Admin admin(KafkaClusterTestKit kafka) {
        return Admin.create(
                Map.<String, Object>of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()));
    }

    /**
     * Every record of the topics that a {@code read_committed} consumer sees now, up to the last
     * stable offset of each partition, in offset order per partition.
     */
    static List<ConsumerRecord<byte[], byte[]>> readCommitted(
            String bootstrapServers, Collection<String> topics) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (String topic : topics) {
                for (PartitionInfo info : consumer.partitionsFor(topic)) {
                    partitions.add(new TopicPartition(topic, info.partition()));
                }
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            // Under read_committed, the end offsets are the last stable offsets.
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("Could not read up to " + ends + " in 30 s");
                }
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    /** Restarts the failed job at once, a few times. */
    private static Configuration restarting() {
        Configuration c = new Configuration();
        c.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        return c;
    }

    private static void await(String what, Duration timeout, BooleanSupplier condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out after " + timeout + " waiting for " + what);
            }
            Thread.sleep(200);
        }
    }
}
