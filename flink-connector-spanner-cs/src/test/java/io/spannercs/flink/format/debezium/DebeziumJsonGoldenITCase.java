package io.spannercs.flink.format.debezium;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeType;
import io.spannercs.flink.format.datastream.DatastreamContext;
import io.spannercs.flink.format.datastream.DatastreamJsonGoldenITCase;
import io.spannercs.flink.format.datastream.EventUuids;
import io.spannercs.flink.format.datastream.GoldenJson;
import io.spannercs.flink.format.datastream.SortKeys;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import io.spannercs.flink.source.StartupMode;
import io.spannercs.flink.testing.AllTypesTable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Debezium envelope of the Datastream golden flow (INSERT, UPDATE to NULL, DELETE; a row of
 * every type inserted, updated, deleted; a transaction over two tables; a system transaction), read
 * through the real source on the emulator under each value capture type, plus a snapshot of the
 * every-type row ({@code "r"}): the envelopes must match {@code debezium/golden/<capture
 * type>.json} and {@code debezium/golden/SNAPSHOT.json} field by field. Markers stand for what
 * varies between runs and are checked against the emulator's ground truth (commit times) or the
 * run's clock ({@code ts_ms}).
 *
 * <p>With {@code -Ddebezium.golden.dump=DIR} the envelopes are also written to DIR, one file per
 * stream, for reviewing a change of the format.
 */
@org.junit.jupiter.api.Timeout(value = 4, unit = java.util.concurrent.TimeUnit.MINUTES)
class DebeziumJsonGoldenITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(1)
                            .build());

    private static final List<String> CAPTURE_TYPES =
            List.of("NEW_ROW", "NEW_ROW_AND_OLD_VALUES", "OLD_AND_NEW_VALUES", "NEW_VALUES");

    /** The stream name of the snapshot's events, here and in the expected file's name. */
    private static final String SNAPSHOT = "SNAPSHOT";

    private static final DateTimeFormatter NANOS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS'Z'")
                    .withZone(ZoneOffset.UTC);

    @ParameterizedTest
    @ValueSource(strings = {"MUTABLE_KEY_RANGE", "IMMUTABLE_KEY_RANGE"})
    void everyTypeAndChangeMatchesTheExpectedEnvelopes(String partitionMode) throws Exception {
        StringBuilder ddl = new StringBuilder(DatastreamJsonGoldenITCase.TABLES);
        for (String capture : CAPTURE_TYPES) {
            ddl.append("CREATE CHANGE STREAM ")
                    .append(stream(capture))
                    .append(" FOR ALL OPTIONS (partition_mode = '")
                    .append(partitionMode)
                    .append("', value_capture_type = '")
                    .append(capture)
                    .append("');\n");
        }
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder().ddl(ddl.toString()).initialPartitions(1).start();
                Spanner spanner = client(emulator)) {
            DatabaseClient db =
                    spanner.getDatabaseClient(
                            DatabaseId.of(
                                    emulator.projectId(),
                                    emulator.instanceId(),
                                    emulator.databaseId()));
            Instant start = Instant.now();
            DatastreamJsonGoldenITCase.writeTheFlow(db, emulator);
            Instant end = Instant.now();

            List<CommittedTransaction> truth = new ArrayList<>(emulator.database().groundTruth());
            truth.sort(Comparator.comparingLong(CommittedTransaction::commitMicros));
            assertThat(truth).hasSize(8);
            Map<String, Long> commitMicros = new HashMap<>();
            truth.forEach(t -> commitMicros.put(t.serverTransactionId(), t.commitMicros()));
            // The snapshot is taken when the every-type row has been inserted and updated.
            long snapshotMicros = truth.get(4).commitMicros();

            Instant jobStart = Instant.now();
            List<String> jsons = runJob(emulator, start, end, toInstant(snapshotMicros));
            Instant jobEnd = Instant.now();

            Map<String, List<JsonNode>> byStream = new LinkedHashMap<>();
            for (String json : jsons) {
                JsonNode event = GoldenJson.parse(json);
                JsonNode source = event.get("source");
                String stream =
                        source.get("snapshot").textValue().equals("true")
                                ? SNAPSHOT
                                : source.get("change_stream_name").textValue();
                byStream.computeIfAbsent(stream, s -> new ArrayList<>()).add(event);
            }
            List<String> expectedStreams = new ArrayList<>();
            CAPTURE_TYPES.forEach(c -> expectedStreams.add(stream(c)));
            expectedStreams.add(SNAPSHOT);
            assertThat(byStream.keySet()).containsExactlyInAnyOrderElementsOf(expectedStreams);
            String dump = System.getProperty("debezium.golden.dump");
            byStream.values().forEach(l -> l.sort(DebeziumJsonGoldenITCase::compareCommitOrder));
            if (dump != null) {
                Path dir = Paths.get(dump);
                Files.createDirectories(dir);
                for (String stream : expectedStreams) {
                    Files.writeString(
                            dir.resolve(stream + "-" + partitionMode + ".json"),
                            byStream.get(stream).toString(),
                            StandardCharsets.UTF_8);
                }
            }
            for (String stream : expectedStreams) {
                List<JsonNode> events = byStream.get(stream);
                String name = stream.equals(SNAPSHOT) ? SNAPSHOT : capture(stream);
                JsonNode expected = GoldenJson.resource("/debezium/golden/" + name + ".json");
                assertThat(events).as(stream).hasSize(expected.size());
                for (int i = 0; i < events.size(); i++) {
                    JsonNode actual = events.get(i);
                    String txn = actual.get("source").get("server_transaction_id").textValue();
                    long micros = stream.equals(SNAPSHOT) ? snapshotMicros : commitMicros.get(txn);
                    GoldenJson.assertMatches(
                            actual, expected.get(i), rules(micros, jobStart, jobEnd));
                }
            }
        }
    }

    private static String stream(String capture) {
        return "cs_" + capture.toLowerCase(Locale.ROOT);
    }

    private static String capture(String stream) {
        return stream.substring("cs_".length()).toUpperCase(Locale.ROOT);
    }

    private static Instant toInstant(long micros) {
        return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
    }

    /** One bounded job: the four streams and a snapshot, each made into JSON in its source. */
    private static List<String> runJob(
            SpannerEmulator emulator, Instant start, Instant end, Instant snapshotAt)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        DataStream<String> all = null;
        for (String capture : CAPTURE_TYPES) {
            DataStream<String> s =
                    env.fromSource(
                            source(emulator, stream(capture), StartupMode.timestamp(start), end),
                            WatermarkStrategy.noWatermarks(),
                            stream(capture));
            all = all == null ? s : all.union(s);
        }
        DataStream<String> snapshot =
                env.fromSource(
                        source(
                                emulator,
                                stream("NEW_ROW_AND_OLD_VALUES"),
                                StartupMode.snapshotOnly(snapshotAt),
                                null),
                        WatermarkStrategy.noWatermarks(),
                        "snapshot");
        all = all.union(snapshot);
        List<String> out = new ArrayList<>();
        try (CloseableIterator<String> it = all.executeAndCollect("debezium json golden")) {
            it.forEachRemaining(out::add);
        }
        return out;
    }

    private static SpannerChangeStreamSource<String> source(
            SpannerEmulator emulator, String stream, StartupMode mode, Instant end) {
        DatastreamContext context =
                DatastreamContext.builder(
                                emulator.projectId(),
                                emulator.instanceId(),
                                emulator.databaseId(),
                                stream)
                        .build();
        var b =
                SpannerChangeStreamSource.<String>builder()
                        .setProjectId(emulator.projectId())
                        .setInstanceId(emulator.instanceId())
                        .setDatabaseId(emulator.databaseId())
                        .setChangeStream(stream)
                        .setStartupMode(mode)
                        .setHeartbeatInterval(Duration.ofMillis(100))
                        .setEmulatorHost(emulator.hostPort())
                        .setDeserializer(DebeziumJson.deserializer(context));
        if (end != null) {
            b.setEndTimestamp(end);
        }
        return b.build();
    }

    /** Commit time, transaction, record sequence, mod number; snapshot rows by table and key. */
    private static int compareCommitOrder(JsonNode a, JsonNode b) {
        JsonNode x = a.get("source");
        JsonNode y = b.get("source");
        int c = Long.compare(x.get("ts_us").longValue(), y.get("ts_us").longValue());
        if (c == 0) {
            c =
                    x.get("server_transaction_id")
                            .textValue()
                            .compareTo(y.get("server_transaction_id").textValue());
        }
        if (c == 0) {
            c =
                    SortKeys.recordSequenceKey(x.get("record_sequence").textValue())
                            .compareTo(
                                    SortKeys.recordSequenceKey(
                                            y.get("record_sequence").textValue()));
        }
        if (c == 0) {
            c = Integer.compare(x.get("mod_number").intValue(), y.get("mod_number").intValue());
        }
        if (c == 0) {
            c =
                    (x.get("table").textValue() + a.get("after"))
                            .compareTo(y.get("table").textValue() + b.get("after"));
        }
        return c;
    }

    private static Map<String, BiConsumer<String, JsonNode>> rules(
            long commitMicros, Instant jobStart, Instant jobEnd) {
        Instant commit = toInstant(commitMicros);
        Map<String, BiConsumer<String, JsonNode>> rules = new HashMap<>();
        rules.put(
                "commit_ts_ms",
                (path, v) ->
                        assertThat(v.isIntegralNumber() ? v.longValue() : null)
                                .isEqualTo(commit.toEpochMilli()));
        rules.put(
                "commit_ts_us",
                (path, v) ->
                        assertThat(v.isIntegralNumber() ? v.longValue() : null)
                                .isEqualTo(commitMicros));
        rules.put(
                "commit_ts_ns",
                (path, v) ->
                        assertThat(v.isIntegralNumber() ? v.longValue() : null)
                                .isEqualTo(commitMicros * 1000));
        rules.put(
                "commit_timestamp",
                (path, v) -> assertThat(v.textValue()).isEqualTo(NANOS.format(commit)));
        rules.put(
                "ts_ms",
                (path, v) -> {
                    assertThat(v.isIntegralNumber()).as("ts_ms is a number").isTrue();
                    assertThat(v.longValue())
                            .isBetween(jobStart.toEpochMilli(), jobEnd.toEpochMilli())
                            .isGreaterThanOrEqualTo(commit.toEpochMilli());
                });
        rules.put(
                "snapshot_uuid",
                (path, v) ->
                        assertThat(v.textValue())
                                .isEqualTo(
                                        EventUuids.of(
                                                        "projects/emulator-project/instances/"
                                                                + "emulator-instance/databases/"
                                                                + "emulator-db",
                                                        snapshotRow(commit))
                                                .toString()));
        rules.put(
                "version",
                (path, v) -> assertThat(v.textValue()).isEqualTo(DebeziumJsonSerializer.VERSION));
        rules.put(
                "partition_token",
                (path, v) -> assertThat(v.isTextual() ? v.textValue() : "").isNotEmpty());
        return rules;
    }

    /** The snapshot's row of every type, as far as its uuid goes: table, key and time. */
    private static ChangeEvent snapshotRow(Instant snapshotAt) {
        return ChangeEvent.builder()
                .table("AllTypes")
                .changeType(ChangeType.INSERT)
                .keys(Map.of("Id", AllTypesTable.ID))
                .newValues(Map.of())
                .oldValues(Map.of())
                .commitTimestamp(snapshotAt)
                .serverTransactionId("")
                .recordSequence("")
                .modNumber(0)
                .transactionTag("")
                .systemTransaction(false)
                .partitionToken("")
                .numberOfRecordsInTransaction(0)
                .numberOfPartitionsInTransaction(0)
                .valueCaptureType("NEW_ROW")
                .build()
                .withSnapshot(true);
    }

    private static Spanner client(SpannerEmulator emulator) {
        return SpannerOptions.newBuilder()
                .setProjectId(emulator.projectId())
                .setEmulatorHost(emulator.hostPort())
                .setCredentials(NoCredentials.getInstance())
                .build()
                .getService();
    }
}
