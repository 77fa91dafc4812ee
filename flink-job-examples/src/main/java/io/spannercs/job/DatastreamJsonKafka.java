package io.spannercs.job;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.datastream.DatastreamContext;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.KafkaSinkBuilder;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Change events in a Kafka topic per table ({@code --topic}), in the format of {@code --format}
 * ({@link KafkaEventFormat}: Datastream JSON, Debezium JSON or Avro), each keyed by its row's
 * primary key, so that all of a row's changes go to one partition: Flink's {@link KafkaSink}, whose
 * transactions commit on checkpoints under exactly-once.
 */
public final class DatastreamJsonKafka {
    private DatastreamJsonKafka() {}

    /** The producer property of how long a transaction may stay open. */
    static final String TRANSACTION_TIMEOUT = "transaction.timeout.ms";

    /**
     * The job's {@code transaction.timeout.ms} unless {@code --kafka-property} sets it: 15 minutes,
     * the brokers' default {@code transaction.max.timeout.ms}. Flink's sink asks for an hour, which
     * such brokers refuse, failing the job at its first transaction.
     */
    static final String DEFAULT_TRANSACTION_TIMEOUT_MS = "900000";

    /** Kafka's longest topic name. */
    static final int MAX_TOPIC_LENGTH = 249;

    private static final Pattern LEGAL = Pattern.compile("[A-Za-z0-9._-]*");
    private static final Pattern ILLEGAL_CHARACTER = Pattern.compile("[^A-Za-z0-9._-]");

    /** The Kafka sink the options describe ({@code --sink kafka}, {@code --format}). */
    public static KafkaSink<ChangeEvent> sink(JobOptions o, DatastreamContext context) {
        KafkaSinkBuilder<ChangeEvent> b =
                KafkaSink.<ChangeEvent>builder()
                        .setBootstrapServers(o.bootstrapServers)
                        .setRecordSerializer(
                                new Records(KafkaEventFormat.of(o, context), o.topic, o.database));
        if (o.deliveryGuarantee == JobOptions.DeliveryGuarantee.EXACTLY_ONCE) {
            b.setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                    .setTransactionalIdPrefix(o.transactionalIdPrefix)
                    .setProperty(TRANSACTION_TIMEOUT, DEFAULT_TRANSACTION_TIMEOUT_MS);
        } else {
            b.setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE);
        }
        // Last, so that the user's settings win; the sink logs none of the values.
        o.kafkaProperties.forEach(b::setProperty);
        return b.build();
    }

    /** Whether every character of {@code s} may stand in a Kafka topic name. */
    static boolean isLegal(String s) {
        return LEGAL.matcher(s).matches();
    }

    /**
     * The topic of a table: the pattern with {@code {database}} and {@code {table}} replaced, each
     * character Kafka forbids in those two values replaced by {@code _}.
     *
     * @throws IllegalArgumentException if the name is longer than Kafka allows
     */
    static String topic(String pattern, String database, String table) {
        String topic =
                pattern.replace("{database}", legal(database)).replace("{table}", legal(table));
        if (topic.length() > MAX_TOPIC_LENGTH) {
            throw new IllegalArgumentException(
                    "The topic of table "
                            + table
                            + " would be "
                            + topic.length()
                            + " characters long, more than Kafka's "
                            + MAX_TOPIC_LENGTH
                            + ": shorten --topic '"
                            + pattern
                            + "'");
        }
        return topic;
    }

    private static String legal(String value) {
        return ILLEGAL_CHARACTER.matcher(value).replaceAll("_");
    }

    /** Key: the primary key; value: the event, both in the format's form; topic per table. */
    static final class Records implements KafkaRecordSerializationSchema<ChangeEvent> {
        private static final long serialVersionUID = 1L;

        private final KafkaEventFormat format;
        private final String pattern;
        private final String database;
        private transient Map<String, String> topics = new HashMap<>();

        Records(KafkaEventFormat format, String pattern, String database) {
            this.format = format;
            this.pattern = pattern;
            this.database = database;
        }

        @Override
        public ProducerRecord<byte[], byte[]> serialize(
                ChangeEvent event, KafkaSinkContext context, Long timestamp) {
            String topic =
                    topics.computeIfAbsent(event.getTable(), t -> topic(pattern, database, t));
            // No partition: Kafka's partitioner hashes the key, so a row stays in one partition.
            // No timestamp: the broker's time; the commit time is in the event.
            KafkaEventFormat.Parts parts = format.serialize(event);
            return new ProducerRecord<>(
                    topic, null, null, parts.key(), parts.value(), parts.headers());
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            topics = new HashMap<>();
        }
    }
}
