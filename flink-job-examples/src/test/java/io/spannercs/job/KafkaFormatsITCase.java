package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.ByteArray;
import com.google.cloud.Date;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.TimestampBound;
import com.google.cloud.spanner.Value;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.flink.format.avro.SpannerAvroSchemas;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code --sink kafka} with {@code --format debezium-json} and {@code --format avro}, into a real
 * Kafka (Kafka's in-process KRaft test kit on 127.0.0.1), read back the way their consumers read
 * them:
 *
 * <ul>
 *   <li>Flink SQL reads the Debezium topic with {@code 'format' = 'debezium-json'}: the changelog,
 *       folded, must equal Spanner's table at the end timestamp, column by column for every type
 *       Flink SQL maps, after a snapshot ({@code r}) and an update-heavy workload ({@code u}); and
 *       every {@code -U}/{@code -D} Flink reads must be the row as the fold holds it then, so each
 *       {@code before} is the true old row.
 *   <li>The Avro topic decoded with the schema the docs describe ({@link SpannerAvroSchemas}, made
 *       here from the table's DDL, and a key record of the key columns): the rows folded from it
 *       must equal Spanner's table, and each record's schema header must name that schema.
 * </ul>
 *
 * <p>Both jobs are bounded by an end timestamp and run after the writes, so they finish once read.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class KafkaFormatsITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static final String DDL =
            "CREATE TABLE Accounts (Id INT64 NOT NULL, Name STRING(MAX), Balance NUMERIC,"
                    + " Score FLOAT64, Active BOOL, Data BYTES(MAX), Day DATE, UpdatedAt TIMESTAMP,"
                    + " Tags ARRAY<INT64>, Doc JSON) PRIMARY KEY (Id);\n"
                    + "CREATE CHANGE STREAM accounts_cs FOR Accounts OPTIONS (value_capture_type"
                    + " = 'NEW_ROW_AND_OLD_VALUES');\n";

    /** The table's columns as {@link SpannerAvroSchemas} names their types, in table order. */
    private static final Map<String, String> COLUMN_TYPES = columnTypes();

    private static final int KEYS = 30;
    private static final ObjectMapper JSON = new ObjectMapper();

    private static KafkaClusterTestKit kafka;

    @BeforeAll
    static void startKafka() throws Exception {
        kafka = SpannerCdcJobKafkaITCase.startKafka();
    }

    @AfterAll
    static void stopKafka() throws Exception {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void flinkSqlReadsTheDebeziumTopicAsAChangelogThatFoldsIntoSpannersTable() throws Exception {
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder().ddl(DDL).initialPartitions(2).start();
                EmulatorClients clients = new EmulatorClients(emulator)) {
            String topic = "debezium-json." + emulator.databaseId() + ".Accounts";
            createTopic(topic);
            Workload workload = new Workload(clients.client(), new Random(27), true);
            workload.insertAll();
            Instant start = Instant.now();
            int transactions = workload.run(400);
            Instant end = Instant.now();
            assertThat(workload.updates).as("an update-heavy workload").isGreaterThan(250);

            runJob(emulator, start, end, "debezium-json");

            // What the topic holds: every kind of op, and updates as one record each.
            Map<String, Integer> ops = new TreeMap<>();
            for (ConsumerRecord<byte[], byte[]> r :
                    SpannerCdcJobKafkaITCase.readCommitted(
                            kafka.bootstrapServers(), List.of(topic))) {
                JsonNode event = JSON.readTree(r.value());
                ops.merge(event.get("op").textValue(), 1, Integer::sum);
                JsonNode key = JSON.readTree(r.key());
                assertThat(key.size()).isEqualTo(1);
                JsonNode row =
                        event.get("op").textValue().equals("d")
                                ? event.get("before")
                                : event.get("after");
                assertThat(key.get("Id")).isEqualTo(row.get("Id"));
            }
            assertThat(ops.get("r")).as("snapshot rows").isEqualTo(KEYS);
            assertThat(ops.get("u")).as("updates").isEqualTo(workload.updates);
            assertThat(ops.get("d")).as("deletes").isEqualTo(workload.deletes);
            assertThat(ops.get("c")).as("inserts").isEqualTo(workload.inserts);
            assertThat(transactions).isGreaterThan(0);

            Map<Long, List<String>> folded = foldInFlinkSql(topic);
            Map<Long, List<String>> spanner = tableAt(clients.client(), end);
            assertThat(spanner).hasSizeGreaterThan(KEYS / 3);
            assertThat(folded).isEqualTo(spanner);
        }
    }

    @Test
    void theAvroTopicDecodesWithTheDocumentedSchemaAndFoldsIntoSpannersTable() throws Exception {
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder().ddl(DDL).initialPartitions(2).start();
                EmulatorClients clients = new EmulatorClients(emulator)) {
            String topic = "avro." + emulator.databaseId() + ".Accounts";
            createTopic(topic);
            // Avro's timestamp-micros holds microseconds: no nanoseconds written here.
            Workload workload = new Workload(clients.client(), new Random(5), false);
            workload.insertAll();
            Instant start = Instant.now();
            workload.run(60);
            Instant end = Instant.now();

            runJob(emulator, start, end, "avro");

            Schema valueSchema =
                    SpannerAvroSchemas.forTable("Accounts", COLUMN_TYPES, List.of("Id"));
            Schema keySchema =
                    SchemaBuilder.record("AccountsKey")
                            .namespace(SpannerAvroSchemas.NAMESPACE)
                            .fields()
                            .requiredLong("Id")
                            .endRecord();
            String schemaKey = SpannerAvroSchemas.schemaKey(valueSchema);
            Map<Long, List<String>> folded = new HashMap<>();
            Map<String, Integer> changeTypes = new TreeMap<>();
            List<ConsumerRecord<byte[], byte[]>> records =
                    SpannerCdcJobKafkaITCase.readCommitted(
                            kafka.bootstrapServers(), List.of(topic));
            for (ConsumerRecord<byte[], byte[]> r : records) {
                Header header = r.headers().lastHeader(KafkaEventFormat.SCHEMA_KEY_HEADER);
                assertThat(new String(header.value(), StandardCharsets.UTF_8)).isEqualTo(schemaKey);
                GenericRecord value = decode(valueSchema, r.value());
                GenericRecord key = decode(keySchema, r.key());
                GenericRecord metadata = (GenericRecord) value.get("source_metadata");
                String changeType = metadata.get("change_type").toString();
                changeTypes.merge(
                        (Boolean) metadata.get("snapshot") ? "SNAPSHOT" : changeType,
                        1,
                        Integer::sum);
                assertThat(value.get("schema_key").toString()).isEqualTo(schemaKey);
                GenericRecord payload = (GenericRecord) value.get("payload");
                long id = (Long) key.get("Id");
                assertThat(payload.get("Id")).isEqualTo(id);
                if (changeType.equals("DELETE")) {
                    assertThat(folded.remove(id)).as("deleted row " + id).isNotNull();
                } else {
                    folded.put(id, avroRow(payload));
                }
            }
            assertThat(changeTypes)
                    .containsEntry("SNAPSHOT", KEYS)
                    .containsEntry("UPDATE", workload.updates)
                    .containsEntry("DELETE", workload.deletes);
            assertThat(folded).isEqualTo(tableAt(clients.client(), end));
        }
    }

    /**
     * The statements of docs/sql.md, "Into Kafka", as written (the broker's address replaced):
     * {@code spanner-cdc} into {@code upsert-kafka} and into {@code kafka} with {@code
     * debezium-json}, bounded; both topics, folded, equal Spanner's Orders at the end timestamp.
     * The table over the job's topic is planned (options, format, metadata key).
     */
    @Test
    void theSqlPagesKafkaStatementsWriteTopicsThatFoldIntoSpannersTable() throws Exception {
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(io.spannercs.emulator.workload.DemoSchema.ddl())
                                .initialPartitions(2)
                                .start();
                EmulatorClients clients = new EmulatorClients(emulator)) {
            createTopic("orders-latest");
            createTopic("orders-changes");
            DatabaseClient db = clients.client();
            Random random = new Random(11);
            for (long id = 0; id < 20; id++) {
                db.write(List.of(order(Mutation.newInsertBuilder("Orders"), id, random)));
            }
            Instant start = Instant.now();
            for (int i = 0; i < 120; i++) {
                long id = random.nextInt(20);
                db.write(
                        List.of(
                                random.nextInt(8) == 0
                                        ? Mutation.delete("Orders", Key.of(id))
                                        : order(
                                                Mutation.newInsertOrUpdateBuilder("Orders"),
                                                id,
                                                random)));
            }
            Instant end = Instant.now();

            StreamTableEnvironment tables =
                    StreamTableEnvironment.create(
                            StreamExecutionEnvironment.getExecutionEnvironment());
            tables.executeSql(
                    "CREATE TABLE orders (OrderId BIGINT, CustomerId BIGINT, Amount DECIMAL(38, 9),"
                            + " UpdatedAt TIMESTAMP_LTZ(9), PRIMARY KEY (OrderId) NOT ENFORCED)"
                            + " WITH ('connector' = 'spanner-cdc', 'project' = '"
                            + emulator.projectId()
                            + "', 'instance' = '"
                            + emulator.instanceId()
                            + "', 'database' = '"
                            + emulator.databaseId()
                            + "', 'emulator-host' = '"
                            + emulator.hostPort()
                            + "', 'change-stream' = 'Orders_cs', 'table' = 'Orders',"
                            + " 'scan.startup.mode' = 'initial', 'scan.startup.timestamp' = '"
                            + start
                            + "', 'scan.end.timestamp' = '"
                            + end
                            + "', 'changelog-mode' = 'all')");
            List<String> statements = docStatements();
            assertThat(statements).hasSize(5);
            List<TableResult> inserts = new ArrayList<>();
            for (String statement : statements) {
                String sql = statement.replace("127.0.0.1:9092", kafka.bootstrapServers());
                if (sql.startsWith("INSERT")) {
                    inserts.add(tables.executeSql(sql));
                } else {
                    tables.executeSql(sql);
                }
            }
            for (TableResult insert : inserts) {
                insert.await(2, TimeUnit.MINUTES);
            }
            tables.explainSql("SELECT * FROM orders_from_job");

            Map<Long, List<String>> spanner = ordersAt(db, end);
            assertThat(spanner).hasSizeGreaterThan(5);
            Map<Long, List<String>> latest = new HashMap<>();
            for (ConsumerRecord<byte[], byte[]> r :
                    SpannerCdcJobKafkaITCase.readCommitted(
                            kafka.bootstrapServers(), List.of("orders-latest"))) {
                long id = JSON.readTree(r.key()).get("OrderId").longValue();
                if (r.value() == null) {
                    latest.remove(id);
                } else {
                    latest.put(id, orderRow(JSON.readTree(r.value())));
                }
            }
            assertThat(latest).as("upsert-kafka").isEqualTo(spanner);
            Map<Long, List<String>> changes = new HashMap<>();
            Map<String, Integer> ops = new TreeMap<>();
            for (ConsumerRecord<byte[], byte[]> r :
                    SpannerCdcJobKafkaITCase.readCommitted(
                            kafka.bootstrapServers(), List.of("orders-changes"))) {
                JsonNode event = JSON.readTree(r.value());
                String op = event.get("op").textValue();
                ops.merge(op, 1, Integer::sum);
                if (op.equals("d")) {
                    JsonNode before = event.get("before");
                    assertThat(changes.remove(before.get("OrderId").longValue()))
                            .isEqualTo(orderRow(before));
                } else {
                    JsonNode after = event.get("after");
                    changes.put(after.get("OrderId").longValue(), orderRow(after));
                }
            }
            assertThat(ops).as("Flink's writer: updates as d and c").containsOnlyKeys("c", "d");
            assertThat(changes).as("kafka, debezium-json").isEqualTo(spanner);
        }
    }

    /** The statements of the text blocks of docs/sql.md's section "Into Kafka". */
    private static List<String> docStatements() throws Exception {
        String page =
                java.nio.file.Files.readString(
                        java.nio.file.Paths.get("..", "docs", "sql.md"), StandardCharsets.UTF_8);
        String section = page.substring(page.indexOf("## Into Kafka"));
        section = section.substring(0, section.indexOf("\n## ", 1));
        List<String> statements = new ArrayList<>();
        java.util.regex.Matcher block =
                java.util.regex.Pattern.compile("```text\n(.*?)```", java.util.regex.Pattern.DOTALL)
                        .matcher(section);
        while (block.find()) {
            for (String statement : block.group(1).split(";\\s*\n")) {
                if (!statement.isBlank()) {
                    statements.add(statement.trim().replaceAll(";$", ""));
                }
            }
        }
        return statements;
    }

    private static Mutation order(Mutation.WriteBuilder b, long id, Random random) {
        return b.set("OrderId")
                .to(id)
                .set("CustomerId")
                .to((long) random.nextInt(100))
                .set("Amount")
                .to(BigDecimal.valueOf(random.nextInt(1_000_000), 2))
                .set("UpdatedAt")
                .to(
                        Timestamp.ofTimeSecondsAndNanos(
                                1_700_000_000L + random.nextInt(1000),
                                random.nextInt(1_000_000_000)))
                .build();
    }

    private static Map<Long, List<String>> ordersAt(DatabaseClient db, Instant at) {
        Map<Long, List<String>> out = new HashMap<>();
        TimestampBound bound =
                TimestampBound.ofReadTimestamp(
                        Timestamp.ofTimeSecondsAndNanos(at.getEpochSecond(), at.getNano()));
        try (ResultSet rs =
                db.singleUse(bound)
                        .executeQuery(
                                Statement.of(
                                        "SELECT OrderId, CustomerId, Amount, UpdatedAt FROM Orders"))) {
            while (rs.next()) {
                out.put(
                        rs.getLong(0),
                        List.of(
                                norm(rs.getLong(0)),
                                norm(rs.getLong(1)),
                                norm(rs.getBigDecimal(2)),
                                norm(rs.getTimestamp(3).toSqlTimestamp().toInstant())));
            }
        }
        return out;
    }

    /** A row as Flink's json formats write it (timestamps in their SQL form). */
    private static List<String> orderRow(JsonNode row) {
        return List.of(
                norm(row.get("OrderId").longValue()),
                norm(row.get("CustomerId").longValue()),
                norm(new BigDecimal(row.get("Amount").asText())),
                norm(Instant.parse(row.get("UpdatedAt").textValue().replace(' ', 'T'))));
    }

    private static void createTopic(String topic) throws Exception {
        try (Admin admin = SpannerCdcJobKafkaITCase.admin(kafka)) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    /** The job jar's job: a snapshot at {@code start}, then the changes up to {@code end}. */
    private static void runJob(SpannerEmulator emulator, Instant start, Instant end, String format)
            throws Exception {
        JobOptions options =
                JobOptions.parse(
                        new String[] {
                            "--project",
                            emulator.projectId(),
                            "--instance",
                            emulator.instanceId(),
                            "--database",
                            emulator.databaseId(),
                            "--change-stream",
                            "accounts_cs",
                            "--emulator-host",
                            emulator.hostPort(),
                            "--startup-mode",
                            "initial",
                            "--start-timestamp",
                            start.toString(),
                            "--end-timestamp",
                            end.toString(),
                            "--heartbeat-interval",
                            "100ms",
                            "--sink",
                            "kafka",
                            "--format",
                            format,
                            "--topic",
                            format + ".{database}.{table}",
                            "--bootstrap-servers",
                            kafka.bootstrapServers(),
                            "--transactional-id-prefix",
                            "formats-" + format,
                            "--parallelism",
                            "2",
                            "--checkpoint-interval",
                            "200ms"
                        });
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        SpannerCdcJob.attach(env, options);
        env.execute("kafka " + format);
    }

    /**
     * Reads the topic in Flink SQL as a Debezium changelog, bounded at the offsets of now, and
     * folds it by key. A {@code -U} or {@code -D} must retract the row the fold holds.
     */
    private static Map<Long, List<String>> foldInFlinkSql(String topic) throws Exception {
        Configuration conf = new Configuration();
        conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.STREAMING);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.executeSql(
                "CREATE TABLE accounts (Id BIGINT, Name STRING, Balance DECIMAL(38, 9),"
                        + " Score DOUBLE, Active BOOLEAN, Data BYTES, `Day` DATE,"
                        + " UpdatedAt TIMESTAMP_LTZ(9), Tags ARRAY<BIGINT>, Doc STRING) WITH ("
                        + " 'connector' = 'kafka',"
                        + " 'topic' = '"
                        + topic
                        + "', 'properties.bootstrap.servers' = '"
                        + kafka.bootstrapServers()
                        + "', 'properties.group.id' = 'sql-reader',"
                        + " 'properties.isolation.level' = 'read_committed',"
                        + " 'scan.startup.mode' = 'earliest-offset',"
                        + " 'scan.bounded.mode' = 'latest-offset',"
                        + " 'format' = 'debezium-json',"
                        + " 'debezium-json.timestamp-format.standard' = 'ISO-8601')");
        TableResult result = tables.executeSql("SELECT * FROM accounts");
        Map<Long, List<String>> folded = new HashMap<>();
        try (CloseableIterator<Row> rows = result.collect()) {
            while (rows.hasNext()) {
                Row row = rows.next();
                long id = (Long) row.getField("Id");
                List<String> values = sqlRow(row);
                RowKind kind = row.getKind();
                if (kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER) {
                    folded.put(id, values);
                } else {
                    assertThat(folded.remove(id)).as(kind + " of row " + id).isEqualTo(values);
                }
            }
        }
        return folded;
    }

    /** Spanner's table at a timestamp, by key, each value in the form {@link #norm} gives. */
    private static Map<Long, List<String>> tableAt(DatabaseClient db, Instant at) {
        Map<Long, List<String>> out = new HashMap<>();
        TimestampBound bound =
                TimestampBound.ofReadTimestamp(
                        Timestamp.ofTimeSecondsAndNanos(at.getEpochSecond(), at.getNano()));
        try (ResultSet rs =
                db.singleUse(bound).executeQuery(Statement.of("SELECT * FROM Accounts"))) {
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                row.add(norm(rs.getLong("Id")));
                row.add(rs.isNull("Name") ? null : rs.getString("Name"));
                row.add(rs.isNull("Balance") ? null : norm(rs.getBigDecimal("Balance")));
                row.add(rs.isNull("Score") ? null : norm(rs.getDouble("Score")));
                row.add(rs.isNull("Active") ? null : norm(rs.getBoolean("Active")));
                row.add(rs.isNull("Data") ? null : norm(rs.getBytes("Data").toByteArray()));
                row.add(rs.isNull("Day") ? null : rs.getDate("Day").toString());
                row.add(
                        rs.isNull("UpdatedAt")
                                ? null
                                : norm(rs.getTimestamp("UpdatedAt").toSqlTimestamp().toInstant()));
                row.add(rs.isNull("Tags") ? null : norm(rs.getLongList("Tags")));
                row.add(rs.isNull("Doc") ? null : normJson(rs.getJson("Doc")));
                out.put(rs.getLong("Id"), row);
            }
        }
        return out;
    }

    private static List<String> sqlRow(Row r) {
        List<String> row = new ArrayList<>();
        row.add(norm(r.getField("Id")));
        row.add((String) r.getField("Name"));
        row.add(norm(r.getField("Balance")));
        row.add(norm(r.getField("Score")));
        row.add(norm(r.getField("Active")));
        row.add(norm(r.getField("Data")));
        row.add(r.getField("Day") == null ? null : r.getField("Day").toString());
        row.add(norm(r.getField("UpdatedAt")));
        Object tags = r.getField("Tags");
        row.add(tags == null ? null : norm(Arrays.asList((Object[]) tags)));
        row.add(normJson((String) r.getField("Doc")));
        return row;
    }

    private static List<String> avroRow(GenericRecord p) {
        List<String> row = new ArrayList<>();
        row.add(norm(p.get("Id")));
        row.add(p.get("Name") == null ? null : p.get("Name").toString());
        Object balance = p.get("Balance");
        row.add(
                balance == null
                        ? null
                        : norm(
                                new Conversions.DecimalConversion()
                                        .fromBytes(
                                                (ByteBuffer) balance,
                                                null,
                                                LogicalTypes.decimal(38, 9))));
        row.add(norm(p.get("Score")));
        row.add(norm(p.get("Active")));
        Object data = p.get("Data");
        row.add(data == null ? null : norm(toBytes((ByteBuffer) data)));
        Object day = p.get("Day");
        row.add(day == null ? null : LocalDate.ofEpochDay((Integer) day).toString());
        Object at = p.get("UpdatedAt");
        long micros = at == null ? 0 : (Long) at;
        row.add(
                at == null
                        ? null
                        : norm(
                                Instant.ofEpochSecond(
                                        Math.floorDiv(micros, 1_000_000L),
                                        Math.floorMod(micros, 1_000_000L) * 1000)));
        Object tags = p.get("Tags");
        row.add(tags == null ? null : norm(new ArrayList<>((List<?>) tags)));
        row.add(p.get("Doc") == null ? null : normJson(p.get("Doc").toString()));
        return row;
    }

    private static byte[] toBytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    /** One text per value, whichever reader produced it. */
    private static String norm(Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof BigDecimal d) {
            return d.setScale(9).toPlainString();
        }
        if (v instanceof byte[] b) {
            return Base64.getEncoder().encodeToString(b);
        }
        return v.toString();
    }

    private static String normJson(String json) {
        if (json == null) {
            return null;
        }
        try {
            return JSON.readTree(json).toString();
        } catch (Exception e) {
            throw new AssertionError("Not JSON: " + json, e);
        }
    }

    private static GenericRecord decode(Schema schema, byte[] bytes) throws Exception {
        return new GenericDatumReader<GenericRecord>(schema)
                .read(null, DecoderFactory.get().binaryDecoder(bytes, null));
    }

    private static Map<String, String> columnTypes() {
        Map<String, String> types = new LinkedHashMap<>();
        types.put("Id", "INT64");
        types.put("Name", "STRING");
        types.put("Balance", "NUMERIC");
        types.put("Score", "FLOAT64");
        types.put("Active", "BOOL");
        types.put("Data", "BYTES");
        types.put("Day", "DATE");
        types.put("UpdatedAt", "TIMESTAMP");
        types.put("Tags", "ARRAY<INT64>");
        types.put("Doc", "JSON");
        return types;
    }

    /**
     * Transactions of one to three mutations on distinct rows of {@link #KEYS}: mostly updates of a
     * few random columns (NULLs included), some deletes, inserts of deleted rows.
     */
    private static final class Workload {
        private final DatabaseClient db;
        private final Random random;
        private final boolean nanos;
        private final Set<Long> present = new HashSet<>();
        int updates;
        int deletes;
        int inserts;

        Workload(DatabaseClient db, Random random, boolean nanos) {
            this.db = db;
            this.random = random;
            this.nanos = nanos;
        }

        /** Every row, before the snapshot; not counted as changes. */
        void insertAll() {
            List<Mutation> all = new ArrayList<>();
            for (long id = 0; id < KEYS; id++) {
                all.add(fullRow(Mutation.newInsertBuilder("Accounts"), id));
                present.add(id);
            }
            db.write(all);
        }

        int run(int transactions) {
            for (int t = 0; t < transactions; t++) {
                List<Mutation> mutations = new ArrayList<>();
                Set<Long> touched = new HashSet<>();
                int n = 1 + random.nextInt(3);
                while (mutations.size() < n) {
                    long id = random.nextInt(KEYS);
                    if (!touched.add(id)) {
                        continue;
                    }
                    if (!present.contains(id)) {
                        mutations.add(fullRow(Mutation.newInsertBuilder("Accounts"), id));
                        present.add(id);
                        inserts++;
                    } else if (random.nextInt(10) == 0) {
                        mutations.add(Mutation.delete("Accounts", Key.of(id)));
                        present.remove(id);
                        deletes++;
                    } else {
                        mutations.add(someColumns(id));
                        updates++;
                    }
                }
                db.write(mutations);
            }
            return transactions;
        }

        private Mutation fullRow(Mutation.WriteBuilder b, long id) {
            b.set("Id").to(id);
            for (String column : COLUMN_TYPES.keySet()) {
                if (!column.equals("Id")) {
                    set(b, column);
                }
            }
            return b.build();
        }

        private Mutation someColumns(long id) {
            Mutation.WriteBuilder b = Mutation.newUpdateBuilder("Accounts").set("Id").to(id);
            List<String> columns = new ArrayList<>(COLUMN_TYPES.keySet());
            columns.remove("Id");
            int n = 1 + random.nextInt(3);
            for (int i = 0; i < n; i++) {
                set(b, columns.remove(random.nextInt(columns.size())));
            }
            return b.build();
        }

        private void set(Mutation.WriteBuilder b, String column) {
            boolean nul = random.nextInt(8) == 0;
            switch (column) {
                case "Name":
                    b.set(column).to(nul ? null : "n" + random.nextInt(1000) + " é\"");
                    break;
                case "Balance":
                    b.set(column)
                            .to(
                                    nul
                                            ? null
                                            : BigDecimal.valueOf(
                                                    random.nextLong() % 100_000_000_000L,
                                                    random.nextInt(10)));
                    break;
                case "Score":
                    b.set(column)
                            .to(
                                    nul
                                            ? null
                                            : random.nextInt(5) == 0
                                                    ? Double.NaN
                                                    : random.nextDouble() * 1e6);
                    break;
                case "Active":
                    b.set(column).to(nul ? null : random.nextBoolean());
                    break;
                case "Data":
                    byte[] bytes = new byte[random.nextInt(6)];
                    random.nextBytes(bytes);
                    b.set(column).to(nul ? null : ByteArray.copyFrom(bytes));
                    break;
                case "Day":
                    b.set(column)
                            .to(
                                    nul
                                            ? null
                                            : Date.fromYearMonthDay(
                                                    1 + random.nextInt(9999),
                                                    1 + random.nextInt(12),
                                                    1 + random.nextInt(28)));
                    break;
                case "UpdatedAt":
                    b.set(column)
                            .to(
                                    nul
                                            ? null
                                            : Timestamp.ofTimeSecondsAndNanos(
                                                    random.nextInt(2_000_000_000),
                                                    nanos
                                                            ? random.nextInt(1_000_000_000)
                                                            : random.nextInt(1_000_000) * 1000));
                    break;
                case "Tags":
                    b.set(column)
                            .toInt64Array(
                                    nul
                                            ? null
                                            : Arrays.asList(
                                                    random.nextLong(),
                                                    null,
                                                    (long) random.nextInt(9)));
                    break;
                default: // Doc
                    b.set(column)
                            .to(
                                    nul
                                            ? Value.json(null)
                                            : Value.json(
                                                    "{\"k\":"
                                                            + random.nextInt(100)
                                                            + ",\"s\":[\"x\",null]}"));
                    break;
            }
        }
    }
}
