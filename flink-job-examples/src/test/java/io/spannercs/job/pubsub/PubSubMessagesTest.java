package io.spannercs.job.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.pubsub.v1.PubsubMessage;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeType;
import io.spannercs.flink.format.datastream.EventUuids;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

class PubSubMessagesTest {
    private static final Instant T = Instant.parse("2026-01-02T03:04:05.123456Z");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final PubSubMessages json =
            new PubSubMessages(PubSubMessages.Data.JSON, Events.CONTEXT);

    @Test
    void attributesOfAChange() {
        ChangeEvent e = Events.change("Items", ChangeType.UPDATE, 7, "a", T, "txn-42");
        assertThat(json.attributes(e))
                .containsExactly(
                        entry("table", "Items"),
                        entry("change_type", "UPDATE"),
                        entry("commit_timestamp", "2026-01-02T03:04:05.123456Z"),
                        entry("transaction_id", "txn-42"),
                        entry(
                                "event_id",
                                EventUuids.of(Events.CONTEXT.databasePath(), e).toString()),
                        entry("database", "db"),
                        entry("snapshot", "false"));
        assertThat(json.attributes(Events.change("Items", ChangeType.DELETE, 7, null, T, "t")))
                .containsEntry("change_type", "DELETE");
        // Whole seconds keep six digits, so the texts sort as the times do.
        assertThat(
                        json.attributes(
                                Events.change(
                                        "Items",
                                        ChangeType.INSERT,
                                        7,
                                        "a",
                                        Instant.parse("2026-01-02T03:04:05Z"),
                                        "t")))
                .containsEntry("commit_timestamp", "2026-01-02T03:04:05.000000Z");
    }

    @Test
    void aSnapshotRowHasNoTransactionAndSaysItIsOne() {
        ChangeEvent row = Events.snapshotRow("Items", 7, "a", T);
        assertThat(json.attributes(row))
                .doesNotContainKey("transaction_id")
                .containsEntry("change_type", "INSERT")
                .containsEntry("snapshot", "true")
                .containsEntry(
                        "event_id", EventUuids.of(Events.CONTEXT.databasePath(), row).toString());
    }

    @Test
    void orderingKeyIsTheTableAndThePrimaryKey() {
        ChangeEvent insert = Events.change("Items", ChangeType.INSERT, 7, "a", T, "1");
        ChangeEvent delete =
                Events.change("Items", ChangeType.DELETE, 7, null, T.plusSeconds(1), "2");
        assertThat(json.orderingKey(insert)).isEqualTo("Items/{\"Id\":\"7\"}");
        assertThat(json.orderingKey(delete)).isEqualTo(json.orderingKey(insert));
        assertThat(json.orderingKey(Events.change("Items", ChangeType.INSERT, 8, "a", T, "1")))
                .isNotEqualTo(json.orderingKey(insert));
        assertThat(json.orderingKey(Events.change("Lines", ChangeType.INSERT, 7, "a", T, "1")))
                .isNotEqualTo(json.orderingKey(insert));
    }

    @Test
    void aKeyLongerThanPubSubTakesIsHashedPerRow() {
        String longName = "x".repeat(2000);
        ChangeEvent e = keyedByName("Items", longName);
        String key = json.orderingKey(e);
        assertThat(key.getBytes(StandardCharsets.UTF_8).length)
                .isLessThanOrEqualTo(PubSubMessages.MAX_ORDERING_KEY_BYTES);
        assertThat(key).startsWith("Items/sha256:");
        assertThat(json.orderingKey(keyedByName("Items", longName))).isEqualTo(key);
        assertThat(json.orderingKey(keyedByName("Items", longName + "y"))).isNotEqualTo(key);
    }

    @Test
    void jsonDataIsTheDatastreamEvent() throws Exception {
        ChangeEvent e = Events.change("Items", ChangeType.INSERT, 7, "a", T, "txn-1");
        PubsubMessage m = json.toMessage(e);
        JsonNode event = JSON.readTree(m.getData().toByteArray());
        assertThat(event.get("object").asText()).isEqualTo("Items");
        assertThat(event.get("uuid").asText()).isEqualTo(m.getAttributesOrThrow("event_id"));
        assertThat(event.get("payload").get("Name").asText()).isEqualTo("a");
        assertThat(m.getOrderingKey()).isEqualTo("Items/{\"Id\":\"7\"}");
    }

    @Test
    void avroDataIsAContainerWithOneRecordAndItsSchema() throws Exception {
        PubSubMessages avro = new PubSubMessages(PubSubMessages.Data.AVRO, Events.CONTEXT);
        ChangeEvent e = Events.change("Items", ChangeType.UPDATE, 7, "b", T, "txn-1");
        PubsubMessage m = avro.toMessage(e);
        try (DataFileStream<GenericRecord> records =
                new DataFileStream<>(
                        new java.io.ByteArrayInputStream(m.getData().toByteArray()),
                        new GenericDatumReader<>())) {
            GenericRecord r = records.next();
            assertThat(records.hasNext()).isFalse();
            assertThat(r.get("uuid").toString()).isEqualTo(m.getAttributesOrThrow("event_id"));
            assertThat(r.get("object").toString()).isEqualTo("Items");
            assertThat(((GenericRecord) r.get("payload")).get("Name").toString()).isEqualTo("b");
        }
        assertThat(m.getAttributesMap()).isEqualTo(json.attributes(e));
        assertThat(m.getOrderingKey()).isEqualTo(json.orderingKey(e));
    }

    private static ChangeEvent keyedByName(String table, String name) {
        return ChangeEvent.builder()
                .table(table)
                .changeType(ChangeType.INSERT)
                .keys(java.util.Map.of("Name", name))
                .newValues(java.util.Map.of())
                .oldValues(java.util.Map.of())
                .commitTimestamp(T)
                .serverTransactionId("1")
                .recordSequence("1")
                .modNumber(0)
                .transactionTag("")
                .systemTransaction(false)
                .partitionToken("token")
                .numberOfRecordsInTransaction(1)
                .numberOfPartitionsInTransaction(1)
                .valueCaptureType("NEW_ROW")
                .columnTypes(java.util.Map.of("Name", "STRING"))
                .build();
    }

    private static java.util.Map.Entry<String, String> entry(String k, String v) {
        return java.util.Map.entry(k, v);
    }
}
