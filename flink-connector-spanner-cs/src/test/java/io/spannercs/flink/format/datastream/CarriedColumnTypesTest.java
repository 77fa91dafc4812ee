package io.spannercs.flink.format.datastream;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeType;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** Without declared types, the types a change event carries from its record are used. */
class CarriedColumnTypesTest {

    @Test
    void usesTheEventsColumnTypesWhenTheTableIsNotDeclared() throws Exception {
        Map<String, String> carried = new LinkedHashMap<>();
        carried.put("id", "INT64");
        carried.put("doc", "PG_JSONB");
        carried.put("amount", "PG_NUMERIC");
        ChangeEvent event =
                ChangeEvent.builder()
                        .table("orders")
                        .changeType(ChangeType.INSERT)
                        .keys(Map.of("id", 7L))
                        .newValues(
                                Map.of(
                                        "doc",
                                        "{\"a\":1}",
                                        "amount",
                                        new java.math.BigDecimal("1.50")))
                        .oldValues(Map.of())
                        .commitTimestamp(Instant.ofEpochSecond(1_700_000_000L, 123_456_000))
                        .serverTransactionId("tx")
                        .recordSequence("00000001")
                        .modNumber(0)
                        .transactionTag("")
                        .systemTransaction(false)
                        .partitionToken("token")
                        .numberOfRecordsInTransaction(1)
                        .numberOfPartitionsInTransaction(1)
                        .valueCaptureType("NEW_ROW")
                        .columnTypes(carried)
                        .build();
        DatastreamJsonSerializer serializer =
                new DatastreamJsonSerializer(
                        DatastreamContext.builder("p", "i", "d", "cs").build());

        JsonNode json = new ObjectMapper().readTree(serializer.toJson(event));

        assertThat(json.get("payload").get("doc").isObject())
                .as("a jsonb column is embedded as JSON, not as a string")
                .isTrue();
        assertThat(json.get("schema_key").asText())
                .isEqualTo(SchemaKey.of(Map.of("id", "INT64", "doc", "JSON", "amount", "NUMERIC")));
    }
}
