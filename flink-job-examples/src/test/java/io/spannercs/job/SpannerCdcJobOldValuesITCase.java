package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.Mutation;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.testing.EmulatorClients;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code --old-values}: the job, bounded, on the emulator, over one INSERT, UPDATE and DELETE of a
 * row, read through streams that capture old values ({@code NEW_ROW_AND_OLD_VALUES}, as the demo's
 * {@code Orders_cs}, and {@code OLD_AND_NEW_VALUES}) and one that does not ({@code NEW_ROW}). By
 * default the files carry the old values in {@code old_values} (JSON and Avro); with {@code
 * --old-values omit} they carry none.
 */
@org.junit.jupiter.api.Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class SpannerCdcJobOldValuesITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static final String DDL =
            "CREATE TABLE Orders (OrderId INT64 NOT NULL, Customer STRING(MAX), Amount INT64)"
                    + " PRIMARY KEY (OrderId);\n"
                    + "CREATE CHANGE STREAM new_row_and_old FOR Orders OPTIONS"
                    + " (value_capture_type = 'NEW_ROW_AND_OLD_VALUES');\n"
                    + "CREATE CHANGE STREAM old_and_new FOR Orders OPTIONS"
                    + " (value_capture_type = 'OLD_AND_NEW_VALUES');\n"
                    + "CREATE CHANGE STREAM new_row FOR Orders OPTIONS"
                    + " (value_capture_type = 'NEW_ROW');\n";

    private static final ObjectMapper JSON = new ObjectMapper();

    private static SpannerEmulator emulator;
    private static Instant start;
    private static Instant end;

    @TempDir Path out;

    /** Writes the row's three changes once; every case reads them through its stream. */
    @BeforeAll
    static void writeChanges() throws Exception {
        emulator = SpannerEmulator.builder().ddl(DDL).start();
        start = Instant.now();
        try (EmulatorClients clients = new EmulatorClients(emulator)) {
            clients.client()
                    .write(
                            List.of(
                                    Mutation.newInsertBuilder("Orders")
                                            .set("OrderId")
                                            .to(7L)
                                            .set("Customer")
                                            .to("ada")
                                            .set("Amount")
                                            .to(12L)
                                            .build()));
            clients.client()
                    .write(
                            List.of(
                                    Mutation.newUpdateBuilder("Orders")
                                            .set("OrderId")
                                            .to(7L)
                                            .set("Amount")
                                            .to(15L)
                                            .build()));
            clients.client()
                    .write(List.of(Mutation.delete("Orders", com.google.cloud.spanner.Key.of(7L))));
        }
        end = Instant.now();
    }

    @AfterAll
    static void stopEmulator() {
        if (emulator != null) {
            emulator.close();
        }
    }

    /**
     * The old values each change type must carry, by stream: an UPDATE the written column's old
     * value, a DELETE the whole old row, an INSERT none.
     */
    @ParameterizedTest(name = "{0} --format {1} --old-values {2}")
    @CsvSource({
        "new_row_and_old, json, include",
        "old_and_new, json, include",
        "new_row_and_old, avro, include",
        "old_and_new, avro, include",
        "new_row_and_old, json, omit",
        "new_row_and_old, avro, omit",
        "new_row, json, include",
        "new_row, avro, include"
    })
    void writesOldValuesWhereTheStreamHasThemUnlessOmitted(
            String stream, String format, String oldValues) throws Exception {
        JobOptions options =
                JobOptions.parse(
                        new String[] {
                            "--project", emulator.projectId(),
                            "--instance", emulator.instanceId(),
                            "--database", emulator.databaseId(),
                            "--change-stream", stream,
                            "--emulator-host", emulator.hostPort(),
                            "--start-timestamp", start.toString(),
                            "--end-timestamp", end.toString(),
                            "--output", out.toString(),
                            "--parallelism", "1",
                            "--checkpoint-interval", "200ms",
                            "--format", format,
                            "--old-values", oldValues
                        });
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        SpannerCdcJob.attach(env, options);
        env.execute("old values test");

        Map<String, Map<String, Object>> actual =
                format.equals("json") ? jsonOldValues() : avroOldValues();
        Map<String, Map<String, Object>> expected = new TreeMap<>();
        boolean captured = !stream.equals("new_row") && oldValues.equals("include");
        if (format.equals("json")) {
            // JSON: on every event with --old-values include ({} where there are none), the
            // captured non-key columns; INT64 as strings.
            if (oldValues.equals("include")) {
                expected.put("INSERT", Map.of());
                expected.put("UPDATE", captured ? Map.of("Amount", "12") : Map.of());
                expected.put(
                        "DELETE", captured ? Map.of("Customer", "ada", "Amount", "15") : Map.of());
            }
        } else if (captured) {
            // Avro: the whole row before the change, null where there is none. Under
            // OLD_AND_NEW_VALUES an UPDATE's record holds the key and the written column only.
            expected.put(
                    "UPDATE",
                    stream.equals("old_and_new")
                            ? Map.of("OrderId", 7L, "Amount", 12L)
                            : Map.of("OrderId", 7L, "Customer", "ada", "Amount", 12L));
            expected.put("DELETE", Map.of("OrderId", 7L, "Customer", "ada", "Amount", 15L));
        }
        assertThat(actual).isEqualTo(expected);
    }

    /** change_type to old_values of each committed JSON event that has the field. */
    private Map<String, Map<String, Object>> jsonOldValues() throws Exception {
        Map<String, Map<String, Object>> byType = new TreeMap<>();
        int events = 0;
        for (Path f : committed()) {
            for (String line : Files.readAllLines(f)) {
                events++;
                JsonNode e = JSON.readTree(line);
                if (e.has("old_values")) {
                    Map<String, Object> values = new LinkedHashMap<>();
                    e.get("old_values")
                            .fields()
                            .forEachRemaining(
                                    c -> values.put(c.getKey(), c.getValue().textValue()));
                    byType.put(e.get("source_metadata").get("change_type").textValue(), values);
                }
            }
        }
        assertThat(events).as("events").isEqualTo(3);
        return byType;
    }

    /** change_type to old_values of each committed Avro record where it is not null. */
    private Map<String, Map<String, Object>> avroOldValues() throws Exception {
        Map<String, Map<String, Object>> byType = new TreeMap<>();
        int records = 0;
        for (Path f : committed()) {
            try (DataFileReader<GenericRecord> reader =
                    new DataFileReader<>(f.toFile(), new GenericDatumReader<>())) {
                for (GenericRecord r : reader) {
                    records++;
                    GenericRecord old = (GenericRecord) r.get("old_values");
                    if (old != null) {
                        Map<String, Object> values = new LinkedHashMap<>();
                        old.getSchema()
                                .getFields()
                                .forEach(
                                        c -> {
                                            Object v = old.get(c.name());
                                            values.put(
                                                    c.name(),
                                                    v instanceof CharSequence ? v.toString() : v);
                                        });
                        String type =
                                ((GenericRecord) r.get("source_metadata"))
                                        .get("change_type")
                                        .toString();
                        byType.put(type, values);
                    }
                }
            }
        }
        assertThat(records).as("records").isEqualTo(3);
        return byType;
    }

    private List<Path> committed() throws Exception {
        List<Path> files = new ArrayList<>();
        for (Path f : ChangeFiles.files(out)) {
            if (f.getFileName().toString().startsWith("part-")) {
                files.add(f);
            }
        }
        return files;
    }
}
