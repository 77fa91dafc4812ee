package io.spannercs.flink.format.datastream;

import static io.spannercs.flink.format.datastream.TestEvents.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.format.ChangeType;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.util.Collector;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;

/** The JSON form of each field and type, against a hand-written expected event. */
class DatastreamJsonFormatTest {
    private static final Clock READ_CLOCK =
            Clock.fixed(Instant.parse("2026-03-01T12:00:01.5Z"), ZoneOffset.UTC);

    @SafeVarargs
    private static <T> List<T> list(T... elements) {
        return Collections.unmodifiableList(Arrays.asList(elements));
    }

    static ChangeEvent allTypesUpdate() {
        Map<String, Object> keys = new LinkedHashMap<>();
        keys.put("Id", 9007199254740993L); // 2^53 + 1: a JSON number would lose it
        keys.put("Sub", "k");
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("I", Long.MIN_VALUE);
        row.put("F", Double.NaN);
        row.put("F32", 0.1f);
        row.put("N", new BigDecimal("1.500000000"));
        row.put("B", true);
        row.put("S", "é \"q\" \\ \n");
        row.put("J", "{\"a\":[1,2.50,null],\"b\":{\"c\":-0.0}}");
        row.put("Y", new byte[] {0, 1, 2, (byte) 253, (byte) 254, (byte) 255});
        row.put("D", LocalDate.parse("2026-02-28"));
        row.put("T", Instant.parse("2026-02-28T12:34:56.123456789Z"));
        row.put("E", 3L);
        row.put("P", new byte[] {8, 1});
        row.put("AI", list(Long.MIN_VALUE, null, Long.MAX_VALUE));
        row.put("AF", list(Double.POSITIVE_INFINITY, null, Double.NEGATIVE_INFINITY, 0.5));
        row.put("AF32", list(Float.NaN));
        row.put("AN", list(new BigDecimal("-0.000000001"), null));
        row.put("AB", list(true, null));
        row.put("AS", list("", null, "NULL"));
        row.put("AJ", list("{\"k\":1}", null, "[]", "\"s\""));
        row.put("AY", list(new byte[] {-1}, null));
        row.put("AD", list(LocalDate.parse("0001-01-01"), null));
        row.put("AT", list(Instant.EPOCH, null));
        return event(
                "AllTypes",
                ChangeType.UPDATE,
                keys,
                row,
                Map.of("I", 5L),
                "NEW_ROW_AND_OLD_VALUES");
    }

    private static DatastreamContext allTypesContext() {
        return TestEvents.context()
                .columnTypes("AllTypes", DatastreamJsonRoundTripTest.TYPES)
                .includeOldValues(true)
                .build();
    }

    @Test
    void everyFieldAndTypeIsWrittenAsDocumented() {
        String json =
                new DatastreamJsonSerializer(allTypesContext(), READ_CLOCK)
                        .toJson(allTypesUpdate());
        GoldenJson.assertMatches(
                GoldenJson.parse(json),
                GoldenJson.resource("/datastream/all-types-update.json"),
                Map.of());
    }

    /**
     * The message key of {@code --sink kafka}: the key columns in key order, valued as in the
     * payload, and the same bytes for every change of the row.
     */
    @Test
    void primaryKeyJsonIsTheKeyColumnsInKeyOrderAsThePayloadWritesThem() {
        DatastreamJsonSerializer serializer = new DatastreamJsonSerializer(allTypesContext());
        ChangeEvent update = allTypesUpdate();
        String key = new String(serializer.primaryKeyJsonBytes(update), StandardCharsets.UTF_8);
        assertThat(key).isEqualTo("{\"Id\":\"9007199254740993\",\"Sub\":\"k\"}");
        JsonNode payload = GoldenJson.parse(serializer.toJson(update)).get("payload");
        assertThat(GoldenJson.parse(key).get("Id")).isEqualTo(payload.get("Id"));
        Map<String, Object> keys = new LinkedHashMap<>(update.getKeys());
        ChangeEvent delete =
                event("AllTypes", ChangeType.DELETE, keys, Map.of(), Map.of(), "NEW_ROW");
        assertThat(serializer.primaryKeyJsonBytes(delete))
                .isEqualTo(serializer.primaryKeyJsonBytes(update));
    }

    @Test
    void withoutDeclaredTypesJsonIsAStringAndTheSchemaKeyCoversTheCarriedColumns() {
        DatastreamContext bare = TestEvents.context().build();
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("J", "{\"a\":1}");
        row.put("I", 7L);
        row.put("Gone", null);
        ChangeEvent e = event("T", ChangeType.INSERT, Map.of("K", 1L), row, Map.of(), "NEW_ROW");
        JsonNode tree = GoldenJson.parse(new DatastreamJsonSerializer(bare).toJson(e));
        assertThat(tree.get("payload").get("J").textValue()).isEqualTo("{\"a\":1}");
        assertThat(tree.get("payload").get("I").textValue()).isEqualTo("7");
        Map<String, String> carried = new LinkedHashMap<>();
        for (String c : List.of("K", "J", "I", "Gone")) {
            carried.put(c, "UNKNOWN");
        }
        assertThat(tree.get("schema_key").textValue()).isEqualTo(SchemaKey.of(carried));
        // Read back by JSON form: INT64 comes back as the String it was written as.
        assertThat(new DatastreamJsonDeserializer(bare).fromJson(tree.toString()).getKeys())
                .containsEntry("K", "1");
    }

    @Test
    void aTableInANamedSchemaIsSplitIntoSchemaAndTable() {
        ChangeEvent e =
                event(
                        "sales.Orders",
                        ChangeType.DELETE,
                        Map.of("K", 1L),
                        Map.of(),
                        Map.of(),
                        "NEW_ROW");
        DatastreamContext ctx = TestEvents.context().build();
        JsonNode tree = GoldenJson.parse(new DatastreamJsonSerializer(ctx).toJson(e));
        assertThat(tree.get("object").textValue()).isEqualTo("sales.Orders");
        assertThat(tree.get("source_metadata").get("schema").textValue()).isEqualTo("sales");
        assertThat(tree.get("source_metadata").get("table").textValue()).isEqualTo("Orders");
        assertThat(tree.get("source_metadata").get("is_deleted").booleanValue()).isTrue();
        assertThat(new DatastreamJsonDeserializer(ctx).fromJson(tree.toString()).getTable())
                .isEqualTo("sales.Orders");
    }

    @Test
    void contextSettingsAreWritten() {
        DatastreamContext ctx =
                TestEvents.context()
                        .streamName("projects/p/locations/l/streams/s")
                        .readMethod("cdc")
                        .build();
        JsonNode tree =
                GoldenJson.parse(new DatastreamJsonSerializer(ctx).toJson(allTypesUpdate()));
        assertThat(tree.get("stream_name").textValue())
                .isEqualTo("projects/p/locations/l/streams/s");
        assertThat(tree.get("read_method").textValue()).isEqualTo("cdc");
        assertThat(tree.has("old_values")).isFalse();
    }

    @Test
    void theSourceAdaptersEmitTheSerializersJsonAndSurviveJavaSerialization() throws Exception {
        DatastreamContext ctx = allTypesContext();
        ChangeEventDeserializer<String> strings =
                InstantiationUtil.clone(DatastreamJson.deserializer(ctx));
        ChangeEventDeserializer<byte[]> bytes =
                InstantiationUtil.clone(DatastreamJson.bytesDeserializer(ctx));
        assertThat(strings.getProducedType()).isEqualTo(Types.STRING);
        assertThat(bytes.getProducedType())
                .isEqualTo(PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);

        List<String> out = new ArrayList<>();
        strings.deserialize(allTypesUpdate(), collector(out));
        List<byte[]> outBytes = new ArrayList<>();
        bytes.deserialize(allTypesUpdate(), collector(outBytes));
        assertThat(out).hasSize(1);
        assertThat(outBytes).hasSize(1);
        JsonNode expected = GoldenJson.resource("/datastream/all-types-update.json");
        Map<String, java.util.function.BiConsumer<String, JsonNode>> readNow =
                Map.of("now", (path, v) -> Instant.parse(v.textValue()));
        for (String json :
                List.of(out.get(0), new String(outBytes.get(0), StandardCharsets.UTF_8))) {
            JsonNode tree = GoldenJson.parse(json);
            // Only read_timestamp differs: these adapters read the system clock.
            ((org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode)
                            expected)
                    .put("read_timestamp", "<now>");
            GoldenJson.assertMatches(tree, expected, readNow);
        }
    }

    @Test
    void malformedEventsNameTheirProblem() {
        DatastreamJsonDeserializer d = new DatastreamJsonDeserializer(allTypesContext());
        assertThatThrownBy(() -> d.fromJson("{\"payload\":{}}"))
                .hasMessageContaining("no source_metadata");
        String json = new DatastreamJsonSerializer(allTypesContext()).toJson(allTypesUpdate());
        assertThatThrownBy(
                        () ->
                                d.fromJson(
                                        json.replace(
                                                "\"I\":\"-9223372036854775808\"", "\"I\":\"x\"")))
                .hasMessageContaining("Column I");
        assertThatThrownBy(() -> d.fromJson(json + "{}")).hasMessageContaining("Not JSON");
    }

    private static <T> Collector<T> collector(List<T> out) {
        return new Collector<>() {
            @Override
            public void collect(T record) {
                out.add(record);
            }

            @Override
            public void close() {}
        };
    }
}
