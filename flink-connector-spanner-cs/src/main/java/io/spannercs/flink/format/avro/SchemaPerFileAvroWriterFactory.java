package io.spannercs.flink.format.avro;

import java.io.IOException;
import org.apache.avro.Schema;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.formats.avro.AvroBuilder;
import org.apache.flink.formats.avro.AvroWriterFactory;

/**
 * Writes Avro container files whose header holds the schema of the records in them. A FileSink
 * creates part file writers knowing only the output stream, not the bucket, so each writer takes
 * its schema from its first record and then opens flink-avro's container file writer ({@link
 * AvroWriterFactory}) for it. Every record of one part file must have that schema: bucket by
 * schema, as {@link TableBucketAssigner} does.
 */
@PublicEvolving
public final class SchemaPerFileAvroWriterFactory implements BulkWriter.Factory<GenericRecord> {
    private static final long serialVersionUID = 1L;

    private final String codec;

    /**
     * @param codec an Avro codec name for {@link CodecFactory#fromString}: {@code null} (no
     *     compression), {@code deflate}, {@code bzip2}, {@code xz}, {@code zstandard} or {@code
     *     snappy} (the last three need their libraries on the class path)
     */
    public SchemaPerFileAvroWriterFactory(String codec) {
        CodecFactory.fromString(codec); // fail at job build time on an unknown codec
        this.codec = codec;
    }

    @Override
    public BulkWriter<GenericRecord> create(FSDataOutputStream out) {
        return new SchemaFromFirstRecordWriter(out, codec);
    }

    /** Opens the container file at the first record, with that record's schema. */
    private static final class SchemaFromFirstRecordWriter implements BulkWriter<GenericRecord> {
        private final FSDataOutputStream out;
        private final String codec;
        private Schema schema;
        private BulkWriter<GenericRecord> delegate;

        SchemaFromFirstRecordWriter(FSDataOutputStream out, String codec) {
            this.out = out;
            this.codec = codec;
        }

        @Override
        public void addElement(GenericRecord record) throws IOException {
            if (delegate == null) {
                schema = record.getSchema();
                delegate = new AvroWriterFactory<>(builder(schema, codec)).create(out);
            } else if (!schema.equals(record.getSchema())) {
                throw new IllegalStateException(
                        "A part file holds records of one schema, "
                                + schema.getFullName()
                                + ", but got one of "
                                + record.getSchema().getFullName()
                                + " ("
                                + SpannerAvroSchemas.schemaKey(record.getSchema())
                                + "): bucket records by schema_key, as TableBucketAssigner does");
            }
            delegate.addElement(record);
        }

        @Override
        public void flush() throws IOException {
            if (delegate != null) {
                delegate.flush();
            }
        }

        @Override
        public void finish() throws IOException {
            // FileSink opens part files for a record, so a writer without one does not occur
            if (delegate != null) {
                delegate.finish();
            }
        }

        private static AvroBuilder<GenericRecord> builder(Schema schema, String codec) {
            return stream -> {
                DataFileWriter<GenericRecord> w =
                        new DataFileWriter<>(new GenericDatumWriter<>(schema));
                w.setCodec(CodecFactory.fromString(codec));
                return w.create(schema, stream);
            };
        }
    }
}
