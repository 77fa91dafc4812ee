package io.spannercs.flink.format.avro;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import com.google.protobuf.Value;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.schema.ColumnDef;
import io.spannercs.emulator.schema.Dialect;
import io.spannercs.emulator.schema.TableDef;
import io.spannercs.emulator.schema.ValueCaptureType;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.emulator.storage.RowChange;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.RandomClientWrites;
import io.spannercs.flink.format.SpannerTypeNames;
import io.spannercs.flink.format.SpannerValues;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The golden test: Datastream's reference flow (INSERT, UPDATE to NULL, DELETE of one row of
 * SAMPLE) and random transactions over every column type, read by the source from the emulator in a
 * checkpointed bounded job and written by {@link SpannerAvroFileSink}; the finished files are read
 * back with Avro's own DataFileReader and compared field by field with the emulator's ground truth
 * (the committed row images), each change exactly once.
 */
@Timeout(value = 4, unit = java.util.concurrent.TimeUnit.MINUTES)
class AvroFileSinkITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @TempDir File output;

    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource({
        "GOOGLE_STANDARD_SQL, IMMUTABLE_KEY_RANGE, NEW_ROW_AND_OLD_VALUES",
        "GOOGLE_STANDARD_SQL, MUTABLE_KEY_RANGE, NEW_ROW",
        "POSTGRESQL, MUTABLE_KEY_RANGE, NEW_ROW_AND_OLD_VALUES"
    })
    void filesHoldEveryChangeOnceAsTheGroundTruthHasIt(
            Dialect dialect, String partitionMode, String capture) throws Exception {
        boolean pg = dialect == Dialect.POSTGRESQL;
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .dialect(dialect)
                                .ddl(ddl(pg, partitionMode, capture))
                                .initialPartitions(2)
                                .maxPartitions(4)
                                .seed(5)
                                .start();
                EmulatorClients clients = new EmulatorClients(emulator)) {
            Instant start = Instant.now();
            writeReferenceFlow(clients.client(), pg);
            RandomClientWrites writes = new RandomClientWrites(21, 12, pg);
            for (int i = 0; i < 60; i++) {
                writes.writeOne(clients.client());
                if (i % 15 == 0) {
                    emulator.database().changeStreams().forEach(ChangeStream::churnRandomly);
                }
            }
            Instant end = Instant.now();

            runJob(emulator, start, end);

            File out = new File(output, "out");
            // full-row capture types describe every column in every record: one schema a table
            assertThat(out.list())
                    .containsExactlyInAnyOrder(
                            pg ? "items" : "Items",
                            pg ? "lines" : "Lines",
                            pg ? "sample" : "SAMPLE");
            for (File table : out.listFiles()) {
                assertThat(table.list()).as("schemas of " + table.getName()).hasSize(1);
            }
            Map<String, GenericRecord> actual = readFiles(out);
            Map<String, Expected> expected = expected(emulator, capture, start, end);
            assertThat(expected).hasSizeGreaterThan(60);
            assertThat(actual.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
            Set<String> uuids = new HashSet<>();
            for (Map.Entry<String, Expected> e : expected.entrySet()) {
                GenericRecord r = actual.get(e.getKey());
                e.getValue().check(r);
                assertThat(uuids.add(r.get("uuid").toString())).as("unique uuid").isTrue();
            }
            checkReferenceFlow(actual.values(), pg, capture);
        }
    }

    private static String ddl(boolean pg, String partitionMode, String capture) {
        String options =
                String.format(
                        "(partition_mode = '%s', value_capture_type = '%s')",
                        partitionMode, capture);
        return pg
                ? RandomClientWrites.PG_TABLES
                        + "CREATE TABLE sample (this_is_my_pk bigint NOT NULL, field1 varchar,"
                        + " field2 varchar NOT NULL, PRIMARY KEY (this_is_my_pk));\n"
                        + "CREATE CHANGE STREAM cs FOR ALL WITH "
                        + options
                        + ";\n"
                : RandomClientWrites.TABLES
                        + "CREATE TABLE SAMPLE (THIS_IS_MY_PK INT64 NOT NULL, FIELD1 STRING(MAX),"
                        + " FIELD2 STRING(MAX) NOT NULL) PRIMARY KEY (THIS_IS_MY_PK);\n"
                        + "CREATE CHANGE STREAM cs FOR ALL OPTIONS "
                        + options
                        + ";\n";
    }

    /** Datastream's example: INSERT at T0, FIELD1 set to NULL at T1, DELETE at T2. */
    private static void writeReferenceFlow(DatabaseClient db, boolean pg) {
        String table = pg ? "sample" : "SAMPLE";
        String pk = pg ? "this_is_my_pk" : "THIS_IS_MY_PK";
        String f1 = pg ? "field1" : "FIELD1";
        String f2 = pg ? "field2" : "FIELD2";
        db.write(
                List.of(
                        Mutation.newInsertBuilder(table)
                                .set(pk)
                                .to(1231535353L)
                                .set(f1)
                                .to("foo")
                                .set(f2)
                                .to("TLV")
                                .build()));
        db.write(
                List.of(
                        Mutation.newUpdateBuilder(table)
                                .set(pk)
                                .to(1231535353L)
                                .set(f1)
                                .to((String) null)
                                .build()));
        db.write(List.of(Mutation.delete(table, Key.of(1231535353L))));
    }

    private void runJob(SpannerEmulator emulator, Instant start, Instant end) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        SpannerChangeStreamSource<GenericRecord> source =
                SpannerChangeStreamSource.<GenericRecord>builder()
                        .setProjectId(emulator.projectId())
                        .setInstanceId(emulator.instanceId())
                        .setDatabaseId(emulator.databaseId())
                        .setChangeStream("cs")
                        .setStartTimestamp(start)
                        .setEndTimestamp(end)
                        .setHeartbeatInterval(Duration.ofMillis(100))
                        .setEmulatorHost(emulator.hostPort())
                        .setDeserializer(AvroChangeEventDeserializer.of(identity(emulator)))
                        .build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                .sinkTo(
                        SpannerAvroFileSink.builder(
                                        new Path(new File(output, "out").toURI()), "deflate")
                                .build());
        env.execute("spanner to avro files");
    }

    private static StreamIdentity identity(SpannerEmulator emulator) {
        return StreamIdentity.of(
                emulator.projectId(), emulator.instanceId(), emulator.databaseId(), "cs");
    }

    /**
     * Every finished file under {@code <out>/<table>/<schema_key>/}, read with DataFileReader,
     * checked for its layout; records by change identity. No in-progress file may be left.
     */
    private static Map<String, GenericRecord> readFiles(File out) throws IOException {
        Map<String, GenericRecord> byIdentity = new HashMap<>();
        List<java.nio.file.Path> files;
        try (Stream<java.nio.file.Path> walk = Files.walk(out.toPath())) {
            files = walk.filter(Files::isRegularFile).toList();
        }
        assertThat(files).isNotEmpty();
        for (java.nio.file.Path file : files) {
            String name = file.getFileName().toString();
            assertThat(name).as("finished part file").startsWith("part-").endsWith(".avro");
            String schemaDir = file.getParent().getFileName().toString();
            String tableDir = file.getParent().getParent().getFileName().toString();
            assertThat(file.getParent().getParent().getParent()).isEqualTo(out.toPath());
            try (DataFileReader<GenericRecord> reader =
                    new DataFileReader<>(file.toFile(), new GenericDatumReader<>())) {
                Schema header = reader.getSchema();
                assertThat(SpannerAvroSchemas.schemaKey(header)).isEqualTo(schemaDir);
                assertThat(reader.getMetaString("avro.codec")).isEqualTo("deflate");
                assertThat(reader.hasNext()).as("non-empty file " + file).isTrue();
                for (GenericRecord r : reader) {
                    assertThat(r.get("object").toString()).isEqualTo(tableDir);
                    assertThat(r.get("schema_key").toString()).isEqualTo(schemaDir);
                    GenericRecord previous = byIdentity.put(identity(r), r);
                    assertThat(previous).as("duplicate " + identity(r)).isNull();
                }
            }
        }
        return byIdentity;
    }

    private static String identity(GenericRecord r) {
        GenericRecord m = (GenericRecord) r.get("source_metadata");
        GenericRecord payload = (GenericRecord) r.get("payload");
        Map<String, Object> keys = new LinkedHashMap<>();
        for (Object k : (List<?>) m.get("primary_keys")) {
            keys.put(k.toString(), AvroDecoding.row(payload).get(k.toString()));
        }
        return identity(
                m.get("server_transaction_id").toString(),
                r.get("object").toString(),
                m.get("change_type").toString(),
                keys);
    }

    private static String identity(
            String txn, String table, String type, Map<String, Object> keys) {
        return txn + "|" + table + "|" + type + "|" + keys;
    }

    /** The record each change must become, from the committed row images. */
    private static Map<String, Expected> expected(
            SpannerEmulator emulator, String capture, Instant start, Instant end) {
        boolean old = ValueCaptureType.valueOf(capture).capturesOldValues();
        long from = AvroValues.micros(start);
        long to = AvroValues.micros(end);
        Map<String, Expected> out = new LinkedHashMap<>();
        for (CommittedTransaction txn : emulator.database().groundTruth()) {
            if (txn.commitMicros() < from || txn.commitMicros() > to) {
                continue;
            }
            for (RowChange c : txn.changes()) {
                TableDef t = c.table();
                String type = c.modType().name();
                if (type.equals("UPDATE") && !writesNonKeyColumn(c)) {
                    continue; // Spanner records no mod for it
                }
                Map<String, Object> keys = new LinkedHashMap<>();
                for (ColumnDef col : t.columns()) { // primary_keys are in table order
                    int k = t.keyColumns().indexOf(col);
                    if (k >= 0) {
                        keys.put(col.name(), SpannerValues.toJava(col.type(), c.key().get(k)));
                    }
                }
                Map<String, Object> payload;
                if (c.newRow() != null) {
                    payload = image(t, c.newRow());
                } else if (old) {
                    payload = image(t, c.oldRow());
                } else {
                    payload = image(t, null);
                    payload.putAll(keys);
                }
                Map<String, Object> oldValues =
                        old && !type.equals("INSERT") ? image(t, c.oldRow()) : null;
                out.put(
                        identity(txn.serverTransactionId(), t.name(), type, keys),
                        new Expected(txn, type, payload, oldValues, capture));
            }
        }
        return out;
    }

    private static boolean writesNonKeyColumn(RowChange c) {
        return c.table().columns().stream().anyMatch(col -> !col.primaryKey() && c.wrote(col));
    }

    /** The row as it must read back from Avro (null row: every column NULL). */
    private static Map<String, Object> image(TableDef t, List<Value> row) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < t.columns().size(); i++) {
            ColumnDef col = t.columns().get(i);
            Object v = row == null ? null : SpannerValues.toJava(col.type(), row.get(i));
            out.put(col.name(), AvroDecoding.expected(SpannerTypeNames.of(col.type()), v));
        }
        return out;
    }

    private record Expected(
            CommittedTransaction txn,
            String changeType,
            Map<String, Object> payload,
            Map<String, Object> oldValues,
            String capture) {

        void check(GenericRecord r) {
            String what = changeType + " in " + txn.serverTransactionId();
            GenericRecord m = (GenericRecord) r.get("source_metadata");
            assertThat(m.get("commit_timestamp")).as(what).isEqualTo(txn.commitMicros());
            assertThat(r.get("source_timestamp"))
                    .isEqualTo(Math.floorDiv(txn.commitMicros(), 1000));
            assertThat(m.get("transaction_tag").toString()).isEqualTo(txn.transactionTag());
            assertThat(m.get("value_capture_type").toString()).isEqualTo(capture);
            assertThat(m.get("is_deleted")).isEqualTo(changeType.equals("DELETE"));
            assertThat(m.get("change_stream_name").toString()).isEqualTo("cs");
            assertThat(r.get("read_method").toString()).isEqualTo("spanner-cdc-change-stream");
            checkRow(what + " payload", payload, (GenericRecord) r.get("payload"));
            if (oldValues == null) {
                assertThat(r.get("old_values")).as(what + " old_values").isNull();
            } else {
                checkRow(what + " old_values", oldValues, (GenericRecord) r.get("old_values"));
            }
        }

        private static void checkRow(String what, Map<String, Object> expected, GenericRecord row) {
            assertThat(row).as(what).isNotNull();
            Map<String, Object> actual = AvroDecoding.row(row);
            assertThat(actual.keySet()).as(what).containsExactlyElementsOf(expected.keySet());
            expected.forEach(
                    (column, value) ->
                            assertThat(AvroDecoding.sameValue(actual.get(column), value))
                                    .as(
                                            "%s %s: %s, expected %s",
                                            what, column, actual.get(column), value)
                                    .isTrue());
        }
    }

    /** The reference flow's three events, in commit order, as Datastream's example shows them. */
    private static void checkReferenceFlow(
            java.util.Collection<GenericRecord> records, boolean pg, String capture) {
        String table = pg ? "sample" : "SAMPLE";
        List<GenericRecord> flow = new ArrayList<>();
        records.stream().filter(r -> r.get("object").toString().equals(table)).forEach(flow::add);
        flow.sort(
                java.util.Comparator.comparingLong(
                        r ->
                                (Long)
                                        ((GenericRecord) r.get("source_metadata"))
                                                .get("commit_timestamp")));
        assertThat(flow)
                .extracting(
                        r ->
                                ((GenericRecord) r.get("source_metadata"))
                                        .get("change_type")
                                        .toString())
                .containsExactly("INSERT", "UPDATE", "DELETE");
        Map<String, Object> full = sampleRow(pg, "foo", "TLV");
        Map<String, Object> field1Null = sampleRow(pg, null, "TLV");
        boolean old = capture.contains("OLD");
        assertThat(AvroDecoding.row((GenericRecord) flow.get(0).get("payload"))).isEqualTo(full);
        assertThat(AvroDecoding.row((GenericRecord) flow.get(1).get("payload")))
                .isEqualTo(field1Null);
        assertThat(AvroDecoding.row((GenericRecord) flow.get(2).get("payload")))
                .isEqualTo(old ? field1Null : sampleRow(pg, null, null));
        if (old) {
            assertThat(AvroDecoding.row((GenericRecord) flow.get(1).get("old_values")))
                    .isEqualTo(full);
        }
        // the payload's schema: key required, other columns nullable, in table order
        Schema row = flow.get(0).getSchema().getField("payload").schema();
        assertThat(row.getFields().get(0).schema().isNullable()).isFalse();
        assertThat(row.getFields().get(1).schema().isNullable()).isTrue();
        assertThat(row.getFields().get(2).schema().isNullable()).isTrue();
    }

    private static Map<String, Object> sampleRow(boolean pg, String field1, String field2) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put(pg ? "this_is_my_pk" : "THIS_IS_MY_PK", 1231535353L);
        row.put(pg ? "field1" : "FIELD1", field1);
        row.put(pg ? "field2" : "FIELD2", field2);
        return row;
    }
}
