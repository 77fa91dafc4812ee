package io.spannercs.flink.format.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spannercs.flink.format.ChangeType;
import java.io.File;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SchemaPerFileAvroWriterFactoryTest {
    @TempDir File dir;

    private final ChangeEventAvroConverter converter =
            new ChangeEventAvroConverter(TestEvents.STREAM);

    @Test
    void writesContainerFilesWithTheRecordsSchemaInTheHeader() throws Exception {
        for (String codec : List.of("null", "deflate")) {
            File file = new File(dir, codec + ".avro");
            List<GenericRecord> written = List.of(record("T", 1), record("T", 2), record("T", 3));
            try (FSDataOutputStream out = create(file)) {
                BulkWriter<GenericRecord> w = new SchemaPerFileAvroWriterFactory(codec).create(out);
                for (GenericRecord r : written) {
                    w.addElement(r);
                }
                w.flush();
                w.finish();
            }
            try (DataFileReader<GenericRecord> reader =
                    new DataFileReader<>(file, new GenericDatumReader<>())) {
                assertThat(reader.getSchema()).isEqualTo(written.get(0).getSchema());
                assertThat(reader.getMetaString("avro.codec")).isEqualTo(codec);
                List<GenericRecord> read = new ArrayList<>();
                reader.forEach(read::add);
                assertThat(read).isEqualTo(written);
            }
        }
    }

    @Test
    void refusesASecondSchemaInOneFileAndUnknownCodecs() throws Exception {
        try (FSDataOutputStream out = create(new File(dir, "mixed.avro"))) {
            BulkWriter<GenericRecord> w = new SchemaPerFileAvroWriterFactory("null").create(out);
            w.addElement(record("T", 1));
            assertThatThrownBy(() -> w.addElement(record("U", 1)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("bucket records by schema_key");
        }
        assertThatThrownBy(() -> new SchemaPerFileAvroWriterFactory("nope"))
                .isInstanceOf(Exception.class);
    }

    @Test
    void bucketsAreTableThenSchemaKey() {
        GenericRecord r = record("sales.Orders", 1);
        assertThat(new TableBucketAssigner().getBucketId(r, null))
                .isEqualTo("sales.Orders/" + r.get("schema_key"));
        assertThat(TableBucketAssigner.directoryName("a/b c")).isEqualTo("a_b_c");
        assertThat(TableBucketAssigner.directoryName("..")).isEqualTo("_..");
    }

    private static FSDataOutputStream create(File file) throws Exception {
        return FileSystem.getLocalFileSystem()
                .create(new Path(file.toURI()), FileSystem.WriteMode.OVERWRITE);
    }

    private GenericRecord record(String table, long id) {
        Map<String, String> types = new LinkedHashMap<>();
        types.put("Id", "INT64");
        types.put("Name", "STRING");
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("Name", "n" + id);
        return converter.convert(
                TestEvents.event(
                        table,
                        ChangeType.INSERT,
                        Map.of("Id", id),
                        values,
                        Map.of(),
                        "NEW_ROW",
                        types));
    }
}
