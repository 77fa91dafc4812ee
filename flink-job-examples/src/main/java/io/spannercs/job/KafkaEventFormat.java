package io.spannercs.job;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.avro.ChangeEventAvroConverter;
import io.spannercs.flink.format.avro.StreamIdentity;
import io.spannercs.flink.format.datastream.DatastreamContext;
import io.spannercs.flink.format.datastream.DatastreamJsonSerializer;
import io.spannercs.flink.format.debezium.DebeziumJsonSerializer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * How {@code --format} turns a change into a Kafka record: the key is always the row's primary key
 * in the value's format family, so that a row stays in one partition.
 */
interface KafkaEventFormat extends Serializable {
    /** The header of {@code --format avro} records naming their schema ({@code schema_key}). */
    String SCHEMA_KEY_HEADER = "spanner.schema_key";

    /** A Kafka record's key, value and headers (null for none). */
    record Parts(byte[] key, byte[] value, Iterable<Header> headers) {}

    Parts serialize(ChangeEvent event);

    /** The format {@code --format} names. */
    static KafkaEventFormat of(JobOptions o, DatastreamContext context) {
        switch (o.format) {
            case DEBEZIUM_JSON:
                return new DebeziumJsonFormat(
                        new DebeziumJsonSerializer(context, o.includeOldValues, Clock.systemUTC()));
            case AVRO:
                return new AvroFormat(
                        new ChangeEventAvroConverter(
                                StreamIdentity.of(
                                        o.project, o.instance, o.database, o.changeStream),
                                Clock.systemUTC(),
                                o.includeOldValues));
            default:
                return new DatastreamJsonFormat(new DatastreamJsonSerializer(context));
        }
    }

    /** Datastream JSON events; the key a JSON object of the key columns as the payload has them. */
    final class DatastreamJsonFormat implements KafkaEventFormat {
        private static final long serialVersionUID = 1L;
        private final DatastreamJsonSerializer serializer;

        DatastreamJsonFormat(DatastreamJsonSerializer serializer) {
            this.serializer = serializer;
        }

        @Override
        public Parts serialize(ChangeEvent event) {
            return new Parts(
                    serializer.primaryKeyJsonBytes(event), serializer.toJsonBytes(event), null);
        }
    }

    /** Debezium envelopes; the key Debezium's schemas-less key. */
    final class DebeziumJsonFormat implements KafkaEventFormat {
        private static final long serialVersionUID = 1L;
        private final DebeziumJsonSerializer serializer;

        DebeziumJsonFormat(DebeziumJsonSerializer serializer) {
            this.serializer = serializer;
        }

        @Override
        public Parts serialize(ChangeEvent event) {
            return new Parts(serializer.keyJsonBytes(event), serializer.toJsonBytes(event), null);
        }
    }

    /**
     * The Avro records of the Avro files in Avro's binary encoding, without a schema registry: the
     * value a record of the table's schema, the key a record {@code <Table>Key} of the key columns
     * (typed as in the payload), and the header {@value #SCHEMA_KEY_HEADER} the value schema's
     * {@code schema_key}, so a consumer knows which schema to decode with.
     */
    final class AvroFormat implements KafkaEventFormat {
        private static final long serialVersionUID = 1L;
        private final ChangeEventAvroConverter converter;

        /** The key schema of each value schema. */
        private transient Map<Schema, Schema> keySchemas;

        AvroFormat(ChangeEventAvroConverter converter) {
            this.converter = converter;
        }

        @Override
        public Parts serialize(ChangeEvent event) {
            GenericRecord value = converter.convert(event);
            Schema keySchema = keySchema(value.getSchema());
            GenericRecord key = new GenericData.Record(keySchema);
            GenericRecord payload = (GenericRecord) value.get("payload");
            for (Schema.Field f : keySchema.getFields()) {
                key.put(f.name(), payload.get(f.name()));
            }
            byte[] schemaKey = value.get("schema_key").toString().getBytes(StandardCharsets.UTF_8);
            return new Parts(
                    binary(keySchema, key),
                    binary(value.getSchema(), value),
                    List.of(new RecordHeader(SCHEMA_KEY_HEADER, schemaKey)));
        }

        /**
         * The value schema's key columns (its required payload fields, in table order) as a record
         * {@code <Table>Key}, each with its payload type and properties.
         */
        static Schema keySchemaOf(Schema valueSchema) {
            Schema row = valueSchema.getField("payload").schema();
            List<Schema.Field> fields = new ArrayList<>();
            for (Schema.Field f : row.getFields()) {
                if (f.schema().getType() != Schema.Type.UNION) {
                    Schema.Field copy = new Schema.Field(f.name(), f.schema(), f.doc());
                    f.getObjectProps().forEach(copy::addProp);
                    fields.add(copy);
                }
            }
            return Schema.createRecord(
                    valueSchema.getName() + "Key", null, valueSchema.getNamespace(), false, fields);
        }

        private Schema keySchema(Schema valueSchema) {
            if (keySchemas == null) {
                keySchemas = new ConcurrentHashMap<>();
            }
            return keySchemas.computeIfAbsent(valueSchema, AvroFormat::keySchemaOf);
        }

        private static byte[] binary(Schema schema, GenericRecord record) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
            try {
                new GenericDatumWriter<GenericRecord>(schema).write(record, encoder);
                encoder.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return out.toByteArray();
        }
    }
}
