package io.spannercs.benchmarks;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.datastream.DatastreamContext;
import io.spannercs.flink.format.datastream.DatastreamJsonSerializer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Kafka: the job with {@code --sink kafka --delivery-guarantee exactly-once} (Datastream JSON, key
 * the primary key) against plain {@link KafkaProducer}s sending the same keys and values, one
 * producer per job subtask, to a topic with as many partitions.
 */
final class KafkaWriters implements SinkBenchmark.Writers {
    private final KafkaBroker broker;
    private final SinkJobRun run;
    private final SinkBenchmark.Settings settings;
    private final List<byte[][]> keyValues = new ArrayList<>();

    KafkaWriters(
            KafkaBroker broker,
            SinkJobRun run,
            List<ChangeEvent> events,
            DatastreamContext context,
            SinkBenchmark.Settings settings)
            throws Exception {
        this.broker = broker;
        this.run = run;
        this.settings = settings;
        // Every round's topics now, so that leadership has settled long before a round writes:
        // into a topic made just before, the broker first answered NOT_LEADER_OR_FOLLOWER and an
        // idempotent producer then retried one batch for minutes (out-of-order sequence).
        for (int round = 1; round <= rounds(settings); round++) {
            broker.createTopic(plainTopic(round), settings.kafkaPartitions());
            broker.createTopic(jobTopic(round), settings.kafkaPartitions());
        }
        // The job's --format datastream-json: the same serializer, the same key and value.
        DatastreamJsonSerializer json = new DatastreamJsonSerializer(context);
        for (ChangeEvent e : events) {
            keyValues.add(new byte[][] {json.primaryKeyJsonBytes(e), json.toJsonBytes(e)});
        }
    }

    /** Rounds of either writer: one number per round of every writer, as SinkBenchmark counts. */
    private static int rounds(SinkBenchmark.Settings s) {
        return (s.warmup() + s.rounds()) * SinkBenchmark.WRITERS;
    }

    private static String plainTopic(int round) {
        return "sinkbench-plain-r" + round + "-" + BenchSchema.TABLE;
    }

    private static String jobTopic(int round) {
        return "sinkbench-job-r" + round + "-" + BenchSchema.TABLE;
    }

    @Override
    public String plainName() {
        return "plain KafkaProducer";
    }

    @Override
    public long plain(int round) throws Exception {
        String topic = plainTopic(round);
        int writers = settings.parallelism();
        List<List<ProducerRecord<byte[], byte[]>>> slices = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            slices.add(new ArrayList<>());
        }
        for (int i = 0; i < keyValues.size(); i++) {
            byte[][] kv = keyValues.get(i);
            slices.get(i % writers).add(new ProducerRecord<>(topic, kv[0], kv[1]));
        }
        // Producers made, and the new topic's leaders known, before the clock starts: a plain
        // application's producer is long-lived. (Sending into a topic whose metadata is still
        // settling made an idempotent producer retry one batch for minutes under load.)
        List<KafkaProducer<byte[], byte[]>> producers = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            for (int w = 0; w < writers; w++) {
                KafkaProducer<byte[], byte[]> p = producer();
                producers.add(p);
                p.partitionsFor(topic);
            }
            long t0 = System.nanoTime();
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                KafkaProducer<byte[], byte[]> p = producers.get(w);
                List<ProducerRecord<byte[], byte[]>> slice = slices.get(w);
                done.add(pool.submit(() -> send(p, slice)));
            }
            for (Future<?> f : done) {
                f.get();
            }
            long nanos = System.nanoTime() - t0;
            verify(topic);
            return nanos;
        } finally {
            pool.shutdownNow();
            producers.forEach(KafkaProducer::close);
        }
    }

    /** Kafka's defaults (acks=all, idempotence on), as the sink's producers have them. */
    private KafkaProducer<byte[], byte[]> producer() {
        return new KafkaProducer<>(
                Map.<String, Object>of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    /** Sends a slice and waits until the broker acknowledged all of it. */
    private static Void send(
            KafkaProducer<byte[], byte[]> p, List<ProducerRecord<byte[], byte[]>> slice)
            throws Exception {
        List<Future<?>> acks = new ArrayList<>(slice.size());
        for (ProducerRecord<byte[], byte[]> r : slice) {
            acks.add(p.send(r));
        }
        p.flush();
        for (Future<?> f : acks) {
            f.get(); // fails on a record the broker refused
        }
        return null;
    }

    @Override
    public long job(int round) throws Exception {
        String topic = jobTopic(round);
        long nanos =
                run.job(
                        "sink benchmark kafka",
                        "--sink",
                        "kafka",
                        "--bootstrap-servers",
                        broker.bootstrapServers(),
                        "--topic",
                        "sinkbench-job-r" + round + "-{table}",
                        "--delivery-guarantee",
                        "exactly-once",
                        "--transactional-id-prefix",
                        "sinkbench-r" + round);
        verify(topic);
        return nanos;
    }

    private void verify(String topic) {
        long n = broker.countCommitted(topic, settings.timeout());
        if (n != keyValues.size()) {
            throw new IllegalStateException(
                    topic + " holds " + n + " committed records, not the " + keyValues.size());
        }
    }

    @Override
    public void close() throws Exception {
        broker.close();
    }
}
