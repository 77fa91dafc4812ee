package io.spannercs.flink.format.datastream;

import static io.spannercs.flink.format.datastream.TestEvents.assertSameEvent;
import static io.spannercs.flink.format.datastream.TestEvents.assertSameValues;
import static io.spannercs.flink.format.datastream.TestEvents.event;
import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ChangeEvent to Datastream JSON and back gives the same event: every type with its extremes and
 * NULLs, every change type under every value capture type, as strings and as bytes.
 */
class DatastreamJsonRoundTripTest {
    /**
     * Every column type, with the values a {@link io.spannercs.flink.format.SpannerValues} gives.
     */
    static final Map<String, String> TYPES = new LinkedHashMap<>();

    static {
        TYPES.put("Id", "INT64");
        TYPES.put("Sub", "STRING(MAX)");
        TYPES.put("I", "INT64");
        TYPES.put("F", "FLOAT64");
        TYPES.put("F32", "FLOAT32");
        TYPES.put("N", "NUMERIC");
        TYPES.put("B", "BOOL");
        TYPES.put("S", "STRING(MAX)");
        TYPES.put("J", "JSON");
        TYPES.put("Y", "BYTES(MAX)");
        TYPES.put("D", "DATE");
        TYPES.put("T", "TIMESTAMP");
        TYPES.put("E", "ENUM<examples.Genre>");
        TYPES.put("P", "PROTO<examples.Singer>");
        TYPES.put("AI", "ARRAY<INT64>");
        TYPES.put("AF", "ARRAY<FLOAT64>");
        TYPES.put("AF32", "ARRAY<FLOAT32>");
        TYPES.put("AN", "ARRAY<NUMERIC>");
        TYPES.put("AB", "ARRAY<BOOL>");
        TYPES.put("AS", "ARRAY<STRING(MAX)>");
        TYPES.put("AJ", "ARRAY<JSON>");
        TYPES.put("AY", "ARRAY<BYTES(MAX)>");
        TYPES.put("AD", "ARRAY<DATE>");
        TYPES.put("AT", "ARRAY<TIMESTAMP>");
    }

    private final DatastreamContext context =
            TestEvents.context().columnTypes("AllTypes", TYPES).includeOldValues(true).build();
    private final DatastreamJsonSerializer serializer = new DatastreamJsonSerializer(context);
    private final DatastreamJsonDeserializer deserializer = new DatastreamJsonDeserializer(context);

    private static byte[] allBytes() {
        byte[] b = new byte[256];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) i;
        }
        return b;
    }

    @SafeVarargs
    private static <T> List<T> list(T... elements) {
        return Collections.unmodifiableList(Arrays.asList(elements));
    }

    /** Rows of values (column to value) that together hit every edge the format must carry. */
    static List<Map<String, Object>> rows() {
        Map<String, Object> max = new LinkedHashMap<>();
        max.put("I", Long.MAX_VALUE);
        max.put("F", Double.MAX_VALUE);
        max.put("F32", Float.MAX_VALUE);
        max.put("N", new BigDecimal("99999999999999999999999999999.999999999"));
        max.put("B", true);
        max.put("S", "quotes \" backslash \\ newline \n tab \t nul \u0000 é 😀");
        max.put(
                "J",
                "{\"a\":[1,2.50,null,true,-1],\"b\":{\"c\":\"x\"},\"big\":123456789012345678901234567890}");
        max.put("Y", allBytes());
        max.put("D", LocalDate.parse("9999-12-31"));
        max.put("T", Instant.parse("9999-12-31T23:59:59.999999999Z"));
        max.put("E", 3L);
        max.put("P", new byte[] {8, 1, 18, 3, 'a', 'b', 'c'});
        max.put("AI", list(Long.MIN_VALUE, null, Long.MAX_VALUE, 0L));
        max.put(
                "AF",
                list(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, null, -0.0));
        max.put("AF32", list(Float.NaN, Float.NEGATIVE_INFINITY, 0.1f, null));
        max.put("AN", list(new BigDecimal("-0.000000001"), null, new BigDecimal("1.500000000")));
        max.put("AB", list(true, null, false));
        max.put("AS", list("", null, "NULL", "123"));
        max.put("AJ", list("[]", null, "\"text\"", "{\"k\":null}"));
        max.put("AY", list(new byte[0], null, new byte[] {-1}));
        max.put("AD", list(LocalDate.parse("0001-01-01"), null));
        max.put("AT", list(Instant.parse("0001-01-01T00:00:00Z"), null, Instant.EPOCH));

        Map<String, Object> min = new LinkedHashMap<>();
        min.put("I", Long.MIN_VALUE);
        min.put("F", Double.NaN);
        min.put("F32", Float.NaN);
        min.put("N", new BigDecimal("-99999999999999999999999999999.999999999"));
        min.put("B", false);
        min.put("S", "");
        min.put("J", "[]");
        min.put("Y", new byte[0]);
        min.put("D", LocalDate.parse("0001-01-01"));
        min.put("T", Instant.parse("0001-01-01T00:00:00Z"));
        min.put("E", 0L);
        min.put("P", new byte[0]);
        min.put("AI", list());
        min.put("AF", list());
        min.put("AF32", list());
        min.put("AN", list());
        min.put("AB", list());
        min.put("AS", list());
        min.put("AJ", list());
        min.put("AY", list());
        min.put("AD", list());
        min.put("AT", list());

        Map<String, Object> infinities = new LinkedHashMap<>();
        infinities.put("F", Double.POSITIVE_INFINITY);
        infinities.put("F32", Float.POSITIVE_INFINITY);
        infinities.put("N", new BigDecimal("0.000000001"));
        infinities.put("T", Instant.parse("2024-02-29T12:34:56.123456789Z"));
        infinities.put("J", "\"just a string\"");
        Map<String, Object> negative = new LinkedHashMap<>();
        negative.put("F", Double.NEGATIVE_INFINITY);
        negative.put("F32", Float.NEGATIVE_INFINITY);
        negative.put("N", new BigDecimal("0"));
        negative.put("T", Instant.parse("2024-02-29T12:34:56.000000001Z"));
        negative.put("J", "12345678901234567890.123456789");
        Map<String, Object> small = new LinkedHashMap<>();
        small.put("F", Double.MIN_VALUE);
        small.put("F32", Float.MIN_VALUE);
        small.put("N", new BigDecimal("1.500000000"));
        small.put("I", -1L);
        small.put("J", "true");
        Map<String, Object> tenth = new LinkedHashMap<>();
        tenth.put("F", 0.1);
        tenth.put("F32", 0.1f);
        tenth.put("I", 0L);
        Map<String, Object> zeroes = new LinkedHashMap<>();
        zeroes.put("F", -0.0);
        zeroes.put("F32", -0.0f);
        zeroes.put("AF", list(0.0, -0.0));

        Map<String, Object> nulls = new LinkedHashMap<>();
        TYPES.keySet().stream()
                .filter(c -> !c.equals("Id") && !c.equals("Sub"))
                .forEach(c -> nulls.put(c, null));
        return List.of(max, min, infinities, negative, small, tenth, zeroes, nulls);
    }

    private static Map<String, Object> keys(long id) {
        Map<String, Object> k = new LinkedHashMap<>();
        k.put("Id", id);
        k.put("Sub", "k" + id);
        return k;
    }

    @Test
    void everyTypeAndEdgeValueComesBackAsItWas() {
        List<Map<String, Object>> rows = rows();
        for (int i = 0; i < rows.size(); i++) {
            Map<String, Object> row = rows.get(i);
            for (ChangeEvent e :
                    List.of(
                            event("AllTypes", ChangeType.INSERT, keys(i), row, Map.of(), "NEW_ROW"),
                            event(
                                    "AllTypes",
                                    ChangeType.UPDATE,
                                    keys(i),
                                    row,
                                    row,
                                    "NEW_ROW_AND_OLD_VALUES"),
                            event(
                                    "AllTypes",
                                    ChangeType.DELETE,
                                    keys(i),
                                    Map.of(),
                                    row,
                                    "OLD_AND_NEW_VALUES"))) {
                assertSameEvent(deserializer.fromJson(serializer.toJson(e)), e);
                assertSameEvent(deserializer.fromJson(serializer.toJsonBytes(e)), e);
            }
        }
    }

    @Test
    void keysOfEveryKeyableTypeComeBack() {
        Map<String, String> types = new LinkedHashMap<>();
        Map<String, Object> keys = new LinkedHashMap<>();
        types.put("KI", "INT64");
        keys.put("KI", Long.MIN_VALUE);
        types.put("KS", "STRING(MAX)");
        keys.put("KS", "7");
        types.put("KY", "BYTES(MAX)");
        keys.put("KY", new byte[] {0, -128});
        types.put("KT", "TIMESTAMP");
        keys.put("KT", Instant.parse("2026-01-01T00:00:00.000000001Z"));
        types.put("KN", "NUMERIC");
        keys.put("KN", new BigDecimal("-1.000000001"));
        types.put("KD", "DATE");
        keys.put("KD", LocalDate.parse("2026-01-01"));
        types.put("KB", "BOOL");
        keys.put("KB", false);
        types.put("KF", "FLOAT64");
        keys.put("KF", Double.NaN);
        types.put("KNull", "STRING(MAX)");
        keys.put("KNull", null);
        DatastreamContext ctx = TestEvents.context().columnTypes("K", types).build();
        ChangeEvent e = event("K", ChangeType.DELETE, keys, Map.of(), Map.of(), "NEW_ROW");
        assertSameEvent(
                new DatastreamJsonDeserializer(ctx)
                        .fromJson(new DatastreamJsonSerializer(ctx).toJson(e)),
                e);
    }

    /** What each capture type records for each change type, as ModBuilder in the emulator. */
    @ParameterizedTest
    @ValueSource(
            strings = {"OLD_AND_NEW_VALUES", "NEW_VALUES", "NEW_ROW", "NEW_ROW_AND_OLD_VALUES"})
    void everyChangeTypeUnderEveryCaptureTypeComesBack(String capture) {
        boolean oldCaptured = capture.equals("OLD_AND_NEW_VALUES") || capture.contains("OLD");
        boolean fullRow = capture.startsWith("NEW_ROW");
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("I", 1L);
        row.put("S", "x");
        Map<String, Object> written = Map.of("S", "y");
        Map<String, Object> newRow = new LinkedHashMap<>(row);
        newRow.put("S", "y");
        List<ChangeEvent> events =
                List.of(
                        event("AllTypes", ChangeType.INSERT, keys(1), row, Map.of(), capture),
                        event(
                                "AllTypes",
                                ChangeType.UPDATE,
                                keys(1),
                                fullRow ? newRow : written,
                                oldCaptured ? Map.of("S", "x") : Map.of(),
                                capture),
                        event(
                                "AllTypes",
                                ChangeType.DELETE,
                                keys(1),
                                Map.of(),
                                oldCaptured ? newRow : Map.of(),
                                capture));
        for (ChangeEvent e : events) {
            assertSameEvent(deserializer.fromJson(serializer.toJson(e)), e);
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = ChangeType.class,
            names = {"INSERT", "UPDATE", "DELETE"})
    void withoutOldValuesOnlyAnUpdatesOldValuesAreLost(ChangeType type) {
        DatastreamContext noOld = TestEvents.context().columnTypes("AllTypes", TYPES).build();
        Map<String, Object> old = Map.of("S", "before");
        ChangeEvent e =
                event(
                        "AllTypes",
                        type,
                        keys(1),
                        type == ChangeType.DELETE ? Map.of() : Map.of("S", "after"),
                        type == ChangeType.INSERT ? Map.of() : old,
                        "OLD_AND_NEW_VALUES");
        String json = new DatastreamJsonSerializer(noOld).toJson(e);
        assertThat(json).doesNotContain("old_values");
        ChangeEvent back = new DatastreamJsonDeserializer(noOld).fromJson(json);
        if (type == ChangeType.UPDATE) {
            assertThat(back.getOldValues()).isEmpty();
            assertSameValues(back.getNewValues(), e.getNewValues());
        } else {
            assertSameEvent(back, e); // a delete's payload is its old row
        }
    }

    @Test
    void anUnknownModTypeKeepsWhatSpannerSent() {
        DatastreamContext context = TestEvents.context().columnTypes("AllTypes", TYPES).build();
        ChangeEvent e =
                event(
                                "AllTypes",
                                ChangeType.UNKNOWN,
                                keys(1),
                                Map.of("S", "after"),
                                Map.of(),
                                "NEW_ROW")
                        .withRawChangeType("FUTURE_MOD_TYPE");
        String json = new DatastreamJsonSerializer(context).toJson(e);
        assertThat(json).contains("\"change_type\":\"FUTURE_MOD_TYPE\"");
        ChangeEvent back = new DatastreamJsonDeserializer(context).fromJson(json);
        assertThat(back.getChangeType()).isEqualTo(ChangeType.UNKNOWN);
        assertThat(back.getRawChangeType()).isEqualTo("FUTURE_MOD_TYPE");
    }

    @Test
    void numericRecordSequencesComeBackPaddedAndOthersAsTheyWere() {
        for (String sequence :
                List.of("00000000", "00000042", "123456789", "1cac8f3f38eeaf53-00000000", "x")) {
            ChangeEvent e =
                    ChangeEvent.builder()
                            .table("AllTypes")
                            .changeType(ChangeType.INSERT)
                            .keys(keys(1))
                            .newValues(Map.of())
                            .oldValues(Map.of())
                            .commitTimestamp(TestEvents.COMMIT)
                            .serverTransactionId("7")
                            .recordSequence(sequence)
                            .modNumber(0)
                            .transactionTag("")
                            .systemTransaction(true)
                            .partitionToken(null)
                            .numberOfRecordsInTransaction(1)
                            .numberOfPartitionsInTransaction(1)
                            .valueCaptureType("NEW_ROW")
                            .build();
            assertSameEvent(deserializer.fromJson(serializer.toJson(e)), e);
        }
    }

    @Test
    void jsonColumnsComeBackAsEqualDocumentsWhenTheirTextWasNotCompact() {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("J", "{ \"b\" : 1.0e2, \"a\" : \"\\u0041\" }");
        row.put("AJ", list("null"));
        ChangeEvent e = event("AllTypes", ChangeType.INSERT, keys(1), row, Map.of(), "NEW_ROW");
        ChangeEvent back = deserializer.fromJson(serializer.toJson(e));
        // Key order is kept; whitespace, escapes and exponents are not: Spanner never sends them.
        assertThat(back.getNewValues().get("J")).isEqualTo("{\"b\":1.0E+2,\"a\":\"A\"}");
        // JSON's null literal and SQL NULL are both JSON null in Datastream's form.
        assertThat(back.getNewValues().get("AJ")).isEqualTo(Collections.singletonList(null));
    }
}
