package io.spannercs.flink.format.avro;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.file.SeekableByteArrayInput;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;

/** Change events and Avro container files in memory, for the format tests. */
final class TestEvents {
    static final StreamIdentity STREAM = StreamIdentity.of("p", "i", "d", "cs");
    static final Instant COMMIT = Instant.parse("2026-03-01T10:00:00.123456Z");

    private TestEvents() {}

    static ChangeEvent event(
            String table,
            ChangeType type,
            Map<String, Object> keys,
            Map<String, Object> newValues,
            Map<String, Object> oldValues,
            String capture,
            Map<String, String> columnTypes) {
        return ChangeEvent.builder()
                .table(table)
                .changeType(type)
                .keys(keys)
                .newValues(newValues)
                .oldValues(oldValues)
                .commitTimestamp(COMMIT)
                .serverTransactionId("txn-1")
                .recordSequence("00000003")
                .modNumber(2)
                .transactionTag("tag")
                .systemTransaction(false)
                .partitionToken("token")
                .numberOfRecordsInTransaction(5)
                .numberOfPartitionsInTransaction(1)
                .valueCaptureType(capture)
                .columnTypes(columnTypes)
                .build();
    }

    /** Writes the records to a container file and reads them back with Avro's own reader. */
    static List<GenericRecord> roundTripThroughFile(List<GenericRecord> records)
            throws IOException {
        Schema schema = records.get(0).getSchema();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataFileWriter<GenericRecord> w =
                new DataFileWriter<>(new GenericDatumWriter<>(schema))) {
            w.create(schema, bytes);
            for (GenericRecord r : records) {
                w.append(r);
            }
        }
        List<GenericRecord> out = new ArrayList<>();
        try (DataFileReader<GenericRecord> r =
                new DataFileReader<>(
                        new SeekableByteArrayInput(bytes.toByteArray()),
                        new GenericDatumReader<>())) {
            if (!r.getSchema().equals(schema)) {
                throw new AssertionError("header schema differs: " + r.getSchema());
            }
            r.forEach(out::add);
        }
        return out;
    }
}
