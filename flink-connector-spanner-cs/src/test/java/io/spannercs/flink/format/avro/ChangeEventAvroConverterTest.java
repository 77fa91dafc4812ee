package io.spannercs.flink.format.avro;

import static io.spannercs.flink.format.avro.TestEvents.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeType;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

@SuppressWarnings("unchecked")
class ChangeEventAvroConverterTest {
    private static final Map<String, String> ALL_TYPES = new LinkedHashMap<>();

    static {
        ALL_TYPES.put("Id", "INT64");
        ALL_TYPES.put("I", "INT64");
        ALL_TYPES.put("F64", "FLOAT64");
        ALL_TYPES.put("F32", "FLOAT32");
        ALL_TYPES.put("N", "NUMERIC");
        ALL_TYPES.put("PN", "PG_NUMERIC");
        ALL_TYPES.put("B", "BOOL");
        ALL_TYPES.put("S", "STRING");
        ALL_TYPES.put("BY", "BYTES");
        ALL_TYPES.put("D", "DATE");
        ALL_TYPES.put("T", "TIMESTAMP");
        ALL_TYPES.put("J", "JSON");
        ALL_TYPES.put("PJ", "PG_JSONB");
        ALL_TYPES.put("P", "PROTO<x.Msg>");
        ALL_TYPES.put("E", "ENUM<x.Color>");
        ALL_TYPES.put("O", "PG_OID");
        ALL_TYPES.put("AI", "ARRAY<INT64>");
        ALL_TYPES.put("AS", "ARRAY<STRING>");
        ALL_TYPES.put("AN", "ARRAY<NUMERIC>");
        ALL_TYPES.put("AT", "ARRAY<TIMESTAMP>");
        ALL_TYPES.put("AF", "ARRAY<FLOAT64>");
        ALL_TYPES.put("AB", "ARRAY<BYTES>");
    }

    private final ChangeEventAvroConverter converter =
            new ChangeEventAvroConverter(
                    TestEvents.STREAM,
                    Clock.fixed(Instant.parse("2026-03-01T10:00:05Z"), ZoneOffset.UTC));

    /** Values at the edges of every type, NULL array elements included. */
    private static Map<String, Object> maxRow() {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("I", Long.MAX_VALUE);
        v.put("F64", Double.NaN);
        v.put("F32", Float.POSITIVE_INFINITY);
        v.put("N", new BigDecimal("99999999999999999999999999999.999999999"));
        v.put("PN", new BigDecimal("1.500"));
        v.put("B", true);
        v.put("S", "ünïcødé ✓");
        v.put("BY", new byte[] {0, -1, 127});
        v.put("D", LocalDate.of(9999, 12, 31));
        v.put("T", Instant.parse("9999-12-31T23:59:59.999999999Z"));
        v.put("J", "{\"a\":[1,null]}");
        v.put("PJ", "{\"b\": 1.50}");
        v.put("P", new byte[] {8, 1});
        v.put("E", 3L);
        v.put("O", 4_294_967_295L);
        v.put("AI", Arrays.asList(Long.MIN_VALUE, null, Long.MAX_VALUE));
        v.put("AS", Arrays.asList("x", null, ""));
        v.put("AN", Arrays.asList(new BigDecimal("0.000000001"), null));
        v.put("AT", Arrays.asList(null, Instant.parse("2026-01-01T00:00:00.123456789Z")));
        v.put("AF", Arrays.asList(Double.NEGATIVE_INFINITY, null, -0.0));
        v.put("AB", Arrays.asList(new byte[0], null));
        return v;
    }

    private static Map<String, Object> minRow() {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("I", Long.MIN_VALUE);
        v.put("F64", -Double.MAX_VALUE);
        v.put("F32", Float.NaN);
        v.put("N", new BigDecimal("-99999999999999999999999999999.999999999"));
        v.put("PN", Double.NaN); // PostgreSQL numeric's NaN, as SpannerValues gives it
        v.put("B", false);
        v.put("S", "");
        v.put("BY", new byte[0]);
        v.put("D", LocalDate.of(1, 1, 1));
        v.put("T", Instant.parse("0001-01-01T00:00:00Z"));
        v.put("J", "null");
        v.put("PJ", "[]");
        v.put("P", new byte[0]);
        v.put("E", 0L);
        v.put("O", 0L);
        v.put("AI", List.of());
        v.put("AS", Arrays.asList((String) null));
        v.put("AN", List.of(new BigDecimal("-1.5")));
        v.put("AT", List.of(Instant.parse("1969-12-31T23:59:59.999999999Z")));
        v.put("AF", List.of(Double.NaN));
        v.put("AB", List.of(new byte[] {1}));
        return v;
    }

    private static Map<String, Object> nullRow() {
        Map<String, Object> v = new LinkedHashMap<>();
        ALL_TYPES.keySet().stream().filter(c -> !c.equals("Id")).forEach(c -> v.put(c, null));
        return v;
    }

    @Test
    void everyTypeRoundTripsThroughAContainerFile() throws Exception {
        List<Map<String, Object>> rows = List.of(maxRow(), minRow(), nullRow());
        List<GenericRecord> records = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            records.add(converter.convert(insert(i, rows.get(i))));
        }
        List<GenericRecord> back = TestEvents.roundTripThroughFile(records);

        assertThat(back).hasSize(3);
        for (int i = 0; i < rows.size(); i++) {
            Map<String, Object> payload =
                    AvroDecoding.row((GenericRecord) back.get(i).get("payload"));
            assertThat(payload.get("Id")).isEqualTo((long) i);
            assertThat(payload.keySet()).containsExactlyElementsOf(ALL_TYPES.keySet());
            Map<String, Object> expected = expectedAfterAvro(rows.get(i));
            for (Map.Entry<String, Object> e : expected.entrySet()) {
                assertThat(AvroDecoding.sameValue(payload.get(e.getKey()), e.getValue()))
                        .as("column %s of row %d: %s", e.getKey(), i, payload.get(e.getKey()))
                        .isTrue();
            }
        }
    }

    private static Map<String, Object> expectedAfterAvro(Map<String, Object> row) {
        Map<String, Object> out = new LinkedHashMap<>();
        row.forEach((k, v) -> out.put(k, AvroDecoding.expected(ALL_TYPES.get(k), v)));
        return out;
    }

    @Test
    void timestampsKeepMicrosecondsAndDropNanoseconds() throws Exception {
        Map<String, Object> v = nullRow();
        v.put("T", Instant.parse("2026-01-01T00:00:00.123456789Z"));
        GenericRecord r = converter.convert(insert(1, v));
        assertThat(((GenericRecord) r.get("payload")).get("T")).isEqualTo(1_767_225_600_123_456L);
        v.put("T", Instant.parse("1969-12-31T23:59:59.999999999Z"));
        r = converter.convert(insert(1, v));
        assertThat(((GenericRecord) r.get("payload")).get("T")).isEqualTo(-1L);
    }

    @Test
    void numericThatDoesNotFitScaleNineFailsInsteadOfRounding() {
        Map<String, Object> v = nullRow();
        v.put("N", new BigDecimal("0.0000000001"));
        assertThatThrownBy(() -> converter.convert(insert(1, v)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("AllTypes.N");
    }

    @Test
    void nullKeyFailsNamingTheColumn() {
        Map<String, Object> keys = new LinkedHashMap<>();
        keys.put("Id", null);
        ChangeEvent e =
                event(
                        "AllTypes",
                        ChangeType.INSERT,
                        keys,
                        nullRow(),
                        Map.of(),
                        "NEW_ROW",
                        ALL_TYPES);
        assertThatThrownBy(() -> converter.convert(e))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Column AllTypes.Id is NULL");
    }

    @Test
    void metadataFieldsFollowDatastream() {
        GenericRecord r = converter.convert(insert(7, maxRow()));
        assertThat(r.get("stream_name"))
                .isEqualTo("projects/p/instances/i/databases/d/changeStreams/cs");
        assertThat(r.get("read_method")).isEqualTo("spanner-cdc-change-stream");
        assertThat(r.get("object")).isEqualTo("AllTypes");
        assertThat(r.get("schema_key")).isEqualTo(SpannerAvroSchemas.schemaKey(r.getSchema()));
        assertThat(r.get("uuid")).isEqualTo(converter.convert(insert(7, maxRow())).get("uuid"));
        assertThat(r.get("read_timestamp"))
                .isEqualTo(Instant.parse("2026-03-01T10:00:05Z").toEpochMilli());
        assertThat(r.get("source_timestamp")).isEqualTo(TestEvents.COMMIT.toEpochMilli());
        assertThat((List<Object>) r.get("sort_keys"))
                .containsExactly(1_772_359_200_123_456L, "txn-1", "00000003", 2L);
        GenericRecord m = (GenericRecord) r.get("source_metadata");
        assertThat(m.get("commit_timestamp")).isEqualTo(1_772_359_200_123_456L);
        assertThat(m.get("snapshot")).isEqualTo(false);
        assertThat(m.get("project_id")).isEqualTo("p");
        assertThat(m.get("instance_id")).isEqualTo("i");
        assertThat(m.get("database_id")).isEqualTo("d");
        assertThat(m.get("schema")).isEqualTo("");
        assertThat(m.get("table")).isEqualTo("AllTypes");
        assertThat(m.get("change_stream_name")).isEqualTo("cs");
        assertThat(m.get("server_transaction_id")).isEqualTo("txn-1");
        assertThat(m.get("record_sequence")).isEqualTo("00000003");
        assertThat(m.get("mod_number")).isEqualTo(2L);
        assertThat(m.get("transaction_tag")).isEqualTo("tag");
        assertThat(m.get("number_of_records_in_transaction")).isEqualTo(5L);
        assertThat(m.get("value_capture_type")).isEqualTo("NEW_ROW");
        assertThat(m.get("change_type")).isEqualTo("INSERT");
        assertThat((List<Object>) m.get("primary_keys")).containsExactly("Id");
        assertThat(m.get("is_deleted")).isEqualTo(false);
        assertThat(r.get("old_values")).isNull();
    }

    @Test
    void uuidDiffersPerModAndIgnoresTheReadTime() {
        ChangeEvent a = insert(1, nullRow());
        ChangeEvent b =
                ChangeEvent.builder()
                        .table(a.getTable())
                        .changeType(a.getChangeType())
                        .keys(a.getKeys())
                        .newValues(a.getNewValues())
                        .oldValues(a.getOldValues())
                        .commitTimestamp(a.getCommitTimestamp())
                        .serverTransactionId(a.getServerTransactionId())
                        .recordSequence(a.getRecordSequence())
                        .modNumber(a.getModNumber() + 1)
                        .transactionTag(a.getTransactionTag())
                        .systemTransaction(false)
                        .partitionToken("another-partition")
                        .numberOfRecordsInTransaction(5)
                        .numberOfPartitionsInTransaction(1)
                        .valueCaptureType("NEW_ROW")
                        .columnTypes(a.getColumnTypes())
                        .build();
        assertThat(converter.convert(a).get("uuid")).isNotEqualTo(converter.convert(b).get("uuid"));
        assertThat(new ChangeEventAvroConverter(TestEvents.STREAM).convert(a).get("uuid"))
                .isEqualTo(converter.convert(a).get("uuid"));
    }

    @Test
    void namedSchemaTableSplitsIntoSchemaAndTable() {
        Map<String, String> types = new LinkedHashMap<>();
        types.put("Id", "INT64");
        ChangeEvent e =
                event(
                        "sales.Orders",
                        ChangeType.INSERT,
                        Map.of("Id", 1L),
                        Map.of(),
                        Map.of(),
                        "NEW_ROW",
                        types);
        GenericRecord r = converter.convert(e);
        assertThat(r.getSchema().getFullName()).isEqualTo("io.spannercs.avro.sales.Orders");
        assertThat(r.get("object")).isEqualTo("sales.Orders");
        GenericRecord m = (GenericRecord) r.get("source_metadata");
        assertThat(m.get("schema")).isEqualTo("sales");
        assertThat(m.get("table")).isEqualTo("Orders");
    }

    // --- row images per change type and value capture type ---

    private static final Map<String, String> SAMPLE = new LinkedHashMap<>();

    static {
        SAMPLE.put("PK", "INT64");
        SAMPLE.put("FIELD1", "STRING");
        SAMPLE.put("FIELD2", "STRING");
    }

    @Test
    void insertHasTheNewRowAndNoOldValues() {
        GenericRecord r =
                converter.convert(
                        sample(
                                ChangeType.INSERT,
                                values("foo", "TLV"),
                                Map.of(),
                                "NEW_ROW_AND_OLD_VALUES"));
        assertThat(AvroDecoding.row((GenericRecord) r.get("payload")))
                .containsExactly(
                        Map.entry("PK", 1L),
                        Map.entry("FIELD1", "foo"),
                        Map.entry("FIELD2", "TLV"));
        assertThat(r.get("old_values")).isNull();
    }

    @Test
    void updateOldValuesShowUnwrittenColumnsWithTheirUnchangedValue() {
        Map<String, Object> newValues = values(null, "TLV");
        Map<String, Object> oldValues = new LinkedHashMap<>();
        oldValues.put("FIELD1", "foo"); // Spanner reports old values of written columns only
        GenericRecord r =
                converter.convert(
                        sample(ChangeType.UPDATE, newValues, oldValues, "NEW_ROW_AND_OLD_VALUES"));
        Map<String, Object> payload = AvroDecoding.row((GenericRecord) r.get("payload"));
        assertThat(payload.get("FIELD1")).isNull();
        assertThat(payload.get("FIELD2")).isEqualTo("TLV");
        assertThat(AvroDecoding.row((GenericRecord) r.get("old_values")))
                .containsExactly(
                        Map.entry("PK", 1L),
                        Map.entry("FIELD1", "foo"),
                        Map.entry("FIELD2", "TLV"));
        assertThat(((GenericRecord) r.get("source_metadata")).get("is_deleted")).isEqualTo(false);
    }

    @Test
    void deleteCarriesTheOldRowWhereCapturedElseTheKeyAlone() {
        GenericRecord withOld =
                converter.convert(
                        sample(
                                ChangeType.DELETE,
                                Map.of(),
                                values(null, "TLV"),
                                "NEW_ROW_AND_OLD_VALUES"));
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("PK", 1L);
        expected.put("FIELD1", null);
        expected.put("FIELD2", "TLV");
        assertThat(AvroDecoding.row((GenericRecord) withOld.get("payload"))).isEqualTo(expected);
        assertThat(AvroDecoding.row((GenericRecord) withOld.get("old_values"))).isEqualTo(expected);
        assertThat(((GenericRecord) withOld.get("source_metadata")).get("is_deleted"))
                .isEqualTo(true);

        GenericRecord keyOnly =
                converter.convert(sample(ChangeType.DELETE, Map.of(), Map.of(), "NEW_ROW"));
        Map<String, Object> key = new LinkedHashMap<>();
        key.put("PK", 1L);
        key.put("FIELD1", null);
        key.put("FIELD2", null);
        assertThat(AvroDecoding.row((GenericRecord) keyOnly.get("payload"))).isEqualTo(key);
        assertThat(keyOnly.get("old_values")).isNull();
    }

    @Test
    void withoutOldValuesTheFieldIsNullButADeleteStillCarriesTheOldRow() {
        ChangeEventAvroConverter omitting =
                new ChangeEventAvroConverter(TestEvents.STREAM, Clock.systemUTC(), false);
        Map<String, Object> oldValues = new LinkedHashMap<>();
        oldValues.put("FIELD1", "foo");
        GenericRecord update =
                omitting.convert(
                        sample(
                                ChangeType.UPDATE,
                                values(null, "TLV"),
                                oldValues,
                                "NEW_ROW_AND_OLD_VALUES"));
        assertThat(update.get("old_values")).isNull();
        GenericRecord delete =
                omitting.convert(
                        sample(
                                ChangeType.DELETE,
                                Map.of(),
                                values(null, "TLV"),
                                "OLD_AND_NEW_VALUES"));
        assertThat(delete.get("old_values")).isNull();
        assertThat(AvroDecoding.row((GenericRecord) delete.get("payload")))
                .containsEntry("FIELD2", "TLV");
        // Same schema either way: files of both settings share a schema_key.
        assertThat(update.get("schema_key"))
                .isEqualTo(
                        converter
                                .convert(
                                        sample(
                                                ChangeType.UPDATE,
                                                values(null, "TLV"),
                                                oldValues,
                                                "NEW_ROW_AND_OLD_VALUES"))
                                .get("schema_key"));
    }

    @Test
    void sameTableAndColumnsShareOneSchemaInstance() {
        assertThat(converter.convert(insert(1, maxRow())).getSchema())
                .isSameAs(converter.convert(insert(2, nullRow())).getSchema());
    }

    @Test
    void eventsWithoutColumnTypesAreRejected() {
        ChangeEvent legacy =
                ChangeEvent.builder()
                        .table("T")
                        .changeType(ChangeType.INSERT)
                        .keys(Map.of("Id", 1L))
                        .newValues(Map.of())
                        .oldValues(Map.of())
                        .commitTimestamp(TestEvents.COMMIT)
                        .serverTransactionId("txn")
                        .recordSequence("1")
                        .modNumber(0)
                        .transactionTag("")
                        .systemTransaction(false)
                        .partitionToken("p")
                        .numberOfRecordsInTransaction(1)
                        .numberOfPartitionsInTransaction(1)
                        .valueCaptureType("NEW_ROW")
                        .build();
        assertThatThrownBy(() -> converter.convert(legacy))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no column types");
    }

    private static Map<String, Object> values(String field1, String field2) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("FIELD1", field1);
        v.put("FIELD2", field2);
        return v;
    }

    private static ChangeEvent sample(
            ChangeType type,
            Map<String, Object> newValues,
            Map<String, Object> oldValues,
            String capture) {
        return event("SAMPLE", type, Map.of("PK", 1L), newValues, oldValues, capture, SAMPLE);
    }

    private static ChangeEvent insert(long id, Map<String, Object> values) {
        return event(
                "AllTypes",
                ChangeType.INSERT,
                Map.of("Id", id),
                values,
                Map.of(),
                "NEW_ROW",
                ALL_TYPES);
    }
}
