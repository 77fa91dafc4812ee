package io.spannercs.flink.format.avro;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.formats.avro.utils.DataInputDecoder;
import org.apache.flink.formats.avro.utils.DataOutputEncoder;

/**
 * Serializes {@link GenericRecord}s of any schema: each record is written with its schema, because
 * the schemas of change events are derived at run time, in whichever task reads the table, so a
 * receiving task may never have seen them. Format: the schema's JSON (int length, UTF-8 bytes),
 * then the record as flink-avro's {@code AvroSerializer} encodes it. Parsed schemas, readers and
 * writers are kept (by the schema's JSON), so each schema is parsed once per serializer. The schema
 * costs bytes on every record: chain the conversion with its consumer where that matters (a
 * FileSink may be chained to the source).
 *
 * <p>Strings come back as Avro {@code Utf8} and bytes as ByteBuffers, as Avro's generic reader
 * gives them; {@link GenericData} compares them equal to the records written.
 */
@PublicEvolving
public final class AnySchemaGenericRecordSerializer extends TypeSerializer<GenericRecord> {
    private static final long serialVersionUID = 1L;

    private static final int MAX_CACHED_SCHEMAS = 1_000;

    private transient Map<Schema, Writing> writing;
    private transient Map<Long, GenericDatumReader<GenericRecord>> reading;
    private transient DataOutputEncoder encoder;
    private transient DataInputDecoder decoder;

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<GenericRecord> duplicate() {
        return new AnySchemaGenericRecordSerializer(); // stateful: caches and coders
    }

    @Override
    public GenericRecord createInstance() {
        return null; // there is no record without a schema
    }

    @Override
    public GenericRecord copy(GenericRecord from) {
        return from == null ? null : GenericData.get().deepCopy(from.getSchema(), from);
    }

    @Override
    public GenericRecord copy(GenericRecord from, GenericRecord reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(GenericRecord record, DataOutputView target) throws IOException {
        init();
        Writing w = writing.get(record.getSchema());
        if (w == null) {
            w =
                    new Writing(
                            record.getSchema().toString().getBytes(StandardCharsets.UTF_8),
                            new GenericDatumWriter<>(record.getSchema()));
            writing.put(record.getSchema(), w);
        }
        target.writeInt(w.json().length);
        target.write(w.json());
        encoder.setOut(target);
        w.writer().write(record, encoder);
        encoder.flush();
    }

    @Override
    public GenericRecord deserialize(DataInputView source) throws IOException {
        init();
        byte[] json = new byte[source.readInt()];
        source.readFully(json);
        GenericDatumReader<GenericRecord> reader = reader(json);
        decoder.setIn(source);
        return reader.read(null, decoder);
    }

    @Override
    public GenericRecord deserialize(GenericRecord reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AnySchemaGenericRecordSerializer;
    }

    @Override
    public int hashCode() {
        return AnySchemaGenericRecordSerializer.class.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<GenericRecord> snapshotConfiguration() {
        return new Snapshot();
    }

    private GenericDatumReader<GenericRecord> reader(byte[] json) {
        long fingerprint = SchemaNormalization.fingerprint64(json);
        GenericDatumReader<GenericRecord> reader = reading.get(fingerprint);
        if (reader == null) {
            Schema schema = new Schema.Parser().parse(new String(json, StandardCharsets.UTF_8));
            reader = new GenericDatumReader<>(schema);
            reading.put(fingerprint, reader);
        }
        return reader;
    }

    private void init() {
        if (encoder == null) {
            writing = boundedMap();
            reading = boundedMap();
            encoder = new DataOutputEncoder();
            decoder = new DataInputDecoder();
        }
    }

    private static <K, V> Map<K, V> boundedMap() {
        return new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > MAX_CACHED_SCHEMAS;
            }
        };
    }

    /** A schema's JSON and writer. */
    private record Writing(byte[] json, GenericDatumWriter<GenericRecord> writer) {}

    /** The serializer has no configuration: any record's schema travels with it. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<GenericRecord> {
        public Snapshot() {
            super(AnySchemaGenericRecordSerializer::new);
        }
    }
}
