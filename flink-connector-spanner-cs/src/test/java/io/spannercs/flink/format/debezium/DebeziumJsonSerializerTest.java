package io.spannercs.flink.format.debezium;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeType;
import io.spannercs.flink.format.datastream.DatastreamContext;
import io.spannercs.flink.format.datastream.DatastreamJsonSerializer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The envelope's parts that the golden test's flow does not vary. */
class DebeziumJsonSerializerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant COMMIT = Instant.parse("2026-03-01T12:00:00.123456Z");
    private static final Instant NOW = Instant.parse("2026-03-01T12:00:05Z");
    private static final DatastreamContext CONTEXT =
            DatastreamContext.builder("proj", "inst", "db", "cs").build();

    @Test
    void anUpdateIsOneEventWithBothImagesAndTheOldValuesCanBeLeftOut() throws Exception {
        ChangeEvent update =
                event(
                        ChangeType.UPDATE,
                        Map.of("Amount", 5L, "Note", "new"),
                        Map.of("Amount", 4L),
                        "NEW_ROW_AND_OLD_VALUES");
        JsonNode withBefore = tree(new DebeziumJsonSerializer(CONTEXT, true, fixedClock()), update);
        assertThat(withBefore.get("op").textValue()).isEqualTo("u");
        assertThat(withBefore.get("before").toString())
                .isEqualTo("{\"OrderId\":7,\"Line\":\"a\",\"Amount\":4,\"Note\":\"new\"}");
        assertThat(withBefore.get("after").toString())
                .isEqualTo("{\"OrderId\":7,\"Line\":\"a\",\"Amount\":5,\"Note\":\"new\"}");
        assertThat(withBefore.get("ts_ms").longValue()).isEqualTo(NOW.toEpochMilli());
        assertThat(withBefore.get("source").get("before_image").textValue()).isEqualTo("full");

        JsonNode without = tree(new DebeziumJsonSerializer(CONTEXT, false, fixedClock()), update);
        assertThat(without.get("before").isNull()).isTrue();
        assertThat(without.get("source").get("before_image").textValue()).isEqualTo("none");
        assertThat(without.get("after")).isEqualTo(withBefore.get("after"));
    }

    @Test
    void theKeyIsAnObjectOfTheKeyColumnsInKeyOrderValuedAsInAfter() {
        ChangeEvent insert = event(ChangeType.INSERT, Map.of("Amount", 5L), Map.of(), "NEW_ROW");
        byte[] key = new DebeziumJsonSerializer(CONTEXT).keyJsonBytes(insert);
        assertThat(new String(key, StandardCharsets.UTF_8))
                .isEqualTo("{\"OrderId\":7,\"Line\":\"a\"}");
    }

    @Test
    void theEventUuidIsTheDatastreamEventsUuid() throws Exception {
        ChangeEvent delete = event(ChangeType.DELETE, Map.of(), Map.of("Amount", 4L), "NEW_ROW");
        JsonNode debezium = tree(new DebeziumJsonSerializer(CONTEXT), delete);
        JsonNode datastream = JSON.readTree(new DatastreamJsonSerializer(CONTEXT).toJson(delete));
        assertThat(debezium.get("source").get("event_uuid").textValue())
                .isEqualTo(datastream.get("uuid").textValue());
    }

    @Test
    void aTableInANamedSchemaIsSplitIntoSchemaAndTable() throws Exception {
        ChangeEvent insert =
                ChangeEvent.builder()
                        .table("sales.Orders")
                        .changeType(ChangeType.INSERT)
                        .keys(Map.of("Id", 1L))
                        .newValues(Map.of())
                        .oldValues(Map.of())
                        .commitTimestamp(COMMIT)
                        .serverTransactionId("t1")
                        .recordSequence("00000000")
                        .modNumber(0)
                        .transactionTag("")
                        .systemTransaction(false)
                        .partitionToken("token")
                        .numberOfRecordsInTransaction(1)
                        .numberOfPartitionsInTransaction(1)
                        .valueCaptureType("NEW_ROW")
                        .build();
        JsonNode source = tree(new DebeziumJsonSerializer(CONTEXT), insert).get("source");
        assertThat(source.get("schema").textValue()).isEqualTo("sales");
        assertThat(source.get("table").textValue()).isEqualTo("Orders");
        assertThat(source.get("ts_us").longValue()).isEqualTo(1772366400123456L);
        assertThat(source.get("commit_timestamp").textValue())
                .isEqualTo("2026-03-01T12:00:00.123456000Z");
    }

    @Test
    void aModTypeDebeziumHasNoOpForIsRefusedNamingIt() {
        ChangeEvent unknown =
                event(ChangeType.UNKNOWN, Map.of(), Map.of(), "NEW_ROW")
                        .withRawChangeType("UPSERT");
        assertThatThrownBy(() -> new DebeziumJsonSerializer(CONTEXT).toJson(unknown))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no op for the mod type UPSERT")
                .hasMessageContaining("table Orders");
    }

    private static JsonNode tree(DebeziumJsonSerializer serializer, ChangeEvent e)
            throws Exception {
        return JSON.readTree(serializer.toJsonBytes(e));
    }

    private static Clock fixedClock() {
        return Clock.fixed(NOW, ZoneOffset.UTC);
    }

    private static ChangeEvent event(
            ChangeType type,
            Map<String, Object> newValues,
            Map<String, Object> oldValues,
            String capture) {
        Map<String, Object> keys = new LinkedHashMap<>();
        keys.put("OrderId", 7L);
        keys.put("Line", "a");
        Map<String, Object> values = new LinkedHashMap<>();
        if (newValues.containsKey("Amount")) {
            values.put("Amount", newValues.get("Amount"));
        }
        if (newValues.containsKey("Note")) {
            values.put("Note", newValues.get("Note"));
        }
        return ChangeEvent.builder()
                .table("Orders")
                .changeType(type)
                .keys(keys)
                .newValues(values)
                .oldValues(oldValues)
                .commitTimestamp(COMMIT)
                .serverTransactionId("1234567890")
                .recordSequence("00000003")
                .modNumber(1)
                .transactionTag("tag-1")
                .systemTransaction(false)
                .partitionToken("token-abc")
                .numberOfRecordsInTransaction(5)
                .numberOfPartitionsInTransaction(2)
                .valueCaptureType(capture)
                .build();
    }
}
