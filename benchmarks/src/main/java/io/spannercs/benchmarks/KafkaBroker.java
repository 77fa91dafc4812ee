package io.spannercs.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * Kafka's in-process KRaft cluster (one combined broker and controller) with its client listener on
 * 127.0.0.1, for {@link SinkBenchmark}. Closing stops it.
 */
final class KafkaBroker implements AutoCloseable {
    private final KafkaClusterTestKit kit;
    private final Admin admin;

    private KafkaBroker(KafkaClusterTestKit kit) {
        this.kit = kit;
        this.admin = Admin.create(Map.of("bootstrap.servers", kit.bootstrapServers()));
    }

    static KafkaBroker start() throws Exception {
        KafkaClusterTestKit kit =
                new KafkaClusterTestKit.Builder(
                                new TestKitNodes.Builder()
                                        .setCombined(true)
                                        .setNumBrokerNodes(1)
                                        .setNumControllerNodes(1)
                                        .build())
                        .setConfigProp(
                                "listeners", "EXTERNAL://127.0.0.1:0,CONTROLLER://127.0.0.1:0")
                        // One broker: its internal topics cannot have three replicas.
                        .setConfigProp("transaction.state.log.replication.factor", "1")
                        .setConfigProp("transaction.state.log.min.isr", "1")
                        .setConfigProp("offsets.topic.replication.factor", "1")
                        .setConfigProp("transaction.state.log.num.partitions", "1")
                        .setConfigProp("auto.create.topics.enable", "false")
                        .build();
        try {
            kit.format();
            kit.startup();
            kit.waitForReadyBrokers();
            return new KafkaBroker(kit);
        } catch (Exception | Error e) {
            kit.close();
            throw e;
        }
    }

    String bootstrapServers() {
        return kit.bootstrapServers();
    }

    void createTopic(String name, int partitions) throws Exception {
        admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
        // Created is not yet led: wait until every partition has its leader, for either writer.
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!led(name, partitions)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Topic " + name + " got no leaders in 60 s");
            }
            Thread.sleep(50);
        }
    }

    private boolean led(String topic, int partitions) throws Exception {
        TopicDescription d;
        try {
            d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return false; // created, but not yet in the broker's metadata
            }
            throw e;
        }
        return d.partitions().size() == partitions
                && d.partitions().stream().allMatch(p -> p.leader() != null);
    }

    /**
     * The records a {@code read_committed} consumer sees in {@code topic}, read to its end: the
     * ground truth that every change arrived, each once.
     */
    long countCommitted(String topic, Duration timeout) {
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(
                        Map.<String, Object>of(
                                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false"),
                        new ByteArrayDeserializer(),
                        new ByteArrayDeserializer())) {
            List<TopicPartition> partitions =
                    c.partitionsFor(topic).stream()
                            .map(p -> new TopicPartition(topic, p.partition()))
                            .toList();
            c.assign(partitions);
            c.seekToBeginning(partitions);
            // With read_committed, the end offsets are the last stable offsets.
            Map<TopicPartition, Long> end = c.endOffsets(partitions);
            long count = 0;
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!reached(c, end, Set.copyOf(partitions))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "Reading " + topic + " took longer than " + timeout);
                }
                count += c.poll(Duration.ofMillis(200)).count();
            }
            return count;
        }
    }

    private static boolean reached(
            KafkaConsumer<byte[], byte[]> c,
            Map<TopicPartition, Long> end,
            Set<TopicPartition> partitions) {
        for (TopicPartition p : partitions) {
            if (c.position(p) < end.get(p)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() throws Exception {
        try {
            admin.close();
        } finally {
            kit.close();
        }
    }
}
