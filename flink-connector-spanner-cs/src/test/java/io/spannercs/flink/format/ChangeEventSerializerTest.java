package io.spannercs.flink.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** Flink's serializer contract for {@link ChangeEventSerializer}, and its format. */
class ChangeEventSerializerTest extends SerializerTestBase<ChangeEvent> {

    @Override
    protected TypeSerializer<ChangeEvent> createSerializer() {
        return ChangeEventSerializer.INSTANCE;
    }

    @Override
    protected int getLength() {
        return -1;
    }

    @Override
    protected Class<ChangeEvent> getTypeClass() {
        return ChangeEvent.class;
    }

    @Override
    protected ChangeEvent[] getTestData() {
        return new ChangeEvent[] {
            everyValueType(),
            new ChangeEvent(),
            event(
                    ChangeType.DELETE,
                    values("K", new byte[] {1, 2}, "Id", 0L),
                    values(),
                    values("Name", null, "Tags", List.of()),
                    null),
            event(
                    ChangeType.UPDATE,
                    values("Id", Long.MIN_VALUE),
                    values("Tags", Arrays.asList(null, null)),
                    values("Tags", Arrays.asList("a", null)),
                    "")
        };
    }

    /** Every Java type SpannerValues produces, with the edge values of each. */
    private static ChangeEvent everyValueType() {
        return ChangeEvent.builder()
                .table("AllTypes")
                .changeType(ChangeType.INSERT)
                .keys(values("Id", Long.MAX_VALUE, "Key2", "k", "Key3", new byte[] {0, -128, 127}))
                .newValues(
                        values(
                                "I",
                                Long.MIN_VALUE,
                                "F",
                                Double.NaN,
                                "FInf",
                                Double.POSITIVE_INFINITY,
                                "FNegInf",
                                Double.NEGATIVE_INFINITY,
                                "FNegZero",
                                -0.0d,
                                "FMin",
                                Double.MIN_VALUE,
                                "F32",
                                1.5f,
                                "F32NaN",
                                Float.NaN,
                                "NScale9",
                                new BigDecimal("-123.456789012"),
                                "NNegScale",
                                new BigDecimal(BigInteger.valueOf(12345), -3),
                                "NBig",
                                new BigDecimal("99999999999999999999999999999.999999999"),
                                "NZero",
                                new BigDecimal("0.000000000"),
                                "B",
                                true,
                                "BFalse",
                                false,
                                "S",
                                "héllo ☃ 𝄞",
                                "SEmpty",
                                "",
                                "SLong",
                                "x".repeat(70_000),
                                "J",
                                "{\"a\":[1,null]}",
                                "By",
                                new byte[] {0, 1, -1},
                                "ByEmpty",
                                new byte[0],
                                "D",
                                LocalDate.of(2024, 2, 29),
                                "DMin",
                                LocalDate.of(1, 1, 1),
                                "DMax",
                                LocalDate.of(9999, 12, 31),
                                "Ts",
                                Instant.ofEpochSecond(1_700_000_000L, 123_456_789),
                                "TsMin",
                                Instant.parse("0001-01-01T00:00:00Z"),
                                "TsMax",
                                Instant.parse("9999-12-31T23:59:59.999999999Z"),
                                "TsBeforeEpoch",
                                Instant.ofEpochSecond(-1, 1),
                                "Null",
                                null,
                                "AEmpty",
                                List.of(),
                                "ANulls",
                                Arrays.asList(null, null),
                                "AI",
                                Arrays.asList(1L, null, Long.MIN_VALUE, Long.MAX_VALUE),
                                "AF",
                                Arrays.asList(Double.NaN, null, Double.NEGATIVE_INFINITY, 0.1),
                                "AF32",
                                Arrays.asList(Float.POSITIVE_INFINITY, null, -2.5f),
                                "AN",
                                Arrays.asList(new BigDecimal("1.5"), null, BigDecimal.TEN),
                                "AB",
                                Arrays.asList(true, null, false),
                                "AS",
                                Arrays.asList("x", null, ""),
                                "ABy",
                                Arrays.asList(new byte[] {9}, null, new byte[0]),
                                "AD",
                                Arrays.asList(LocalDate.of(1970, 1, 1), null),
                                "ATs",
                                Arrays.asList(Instant.ofEpochSecond(0, 1), null),
                                "ANested",
                                List.of(List.of(1L), Arrays.asList(null, "y"))))
                .oldValues(values("I", 0L, "By", new byte[] {5}, "AI", List.of(1L)))
                .commitTimestamp(Instant.ofEpochSecond(1_700_000_000L, 999_999_999))
                .serverTransactionId("txn-1")
                .recordSequence("00000001")
                .modNumber(7)
                .transactionTag("tag")
                .systemTransaction(true)
                .partitionToken("partition-token")
                .numberOfRecordsInTransaction(12)
                .numberOfPartitionsInTransaction(3)
                .valueCaptureType("OLD_AND_NEW_VALUES")
                .build();
    }

    private static ChangeEvent event(
            ChangeType type,
            Map<String, Object> keys,
            Map<String, Object> newValues,
            Map<String, Object> oldValues,
            String strings) {
        return ChangeEvent.builder()
                .table(strings)
                .changeType(type)
                .keys(keys)
                .newValues(newValues)
                .oldValues(oldValues)
                .commitTimestamp(Instant.ofEpochSecond(5, 5))
                .serverTransactionId(strings)
                .recordSequence(strings)
                .modNumber(0)
                .transactionTag(strings)
                .systemTransaction(false)
                .partitionToken(strings)
                .numberOfRecordsInTransaction(-1)
                .numberOfPartitionsInTransaction(Long.MAX_VALUE)
                .valueCaptureType(strings)
                .build();
    }

    /** An ordered map of column, value pairs; values may be null. */
    private static Map<String, Object> values(Object... columnsAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < columnsAndValues.length; i += 2) {
            m.put((String) columnsAndValues[i], columnsAndValues[i + 1]);
        }
        return m;
    }

    private static byte[] serialize(ChangeEvent e) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        ChangeEventSerializer.INSTANCE.serialize(e, out);
        return out.getCopyOfBuffer();
    }

    private static ChangeEvent roundTrip(ChangeEvent e) throws IOException {
        return ChangeEventSerializer.INSTANCE.deserialize(new DataInputDeserializer(serialize(e)));
    }

    @Test
    void roundTripKeepsColumnOrderAndMakesListsUnmodifiable() throws IOException {
        ChangeEvent e = everyValueType();
        ChangeEvent back = roundTrip(e);

        assertThat(back.getKeys().keySet()).containsExactlyElementsOf(e.getKeys().keySet());
        assertThat(back.getNewValues().keySet())
                .containsExactlyElementsOf(e.getNewValues().keySet());
        assertThat(back.getOldValues().keySet())
                .containsExactlyElementsOf(e.getOldValues().keySet());
        assertThat(back.getNewValues().get("NNegScale"))
                .isEqualTo(new BigDecimal(BigInteger.valueOf(12345), -3));
        assertThat(((BigDecimal) back.getNewValues().get("NZero")).scale()).isEqualTo(9);
        assertThat(back.getNewValues().get("Ts"))
                .isEqualTo(Instant.ofEpochSecond(1_700_000_000L, 123_456_789));
        @SuppressWarnings("unchecked")
        List<Object> ai = (List<Object>) back.getNewValues().get("AI");
        assertThatThrownBy(() -> ai.set(0, 2L)).isInstanceOf(UnsupportedOperationException.class);
        List<?> nested = (List<?>) back.getNewValues().get("ANested");
        assertThatThrownBy(() -> ((List<?>) nested.get(0)).clear())
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void anUnknownChangeTypeKeepsWhatSpannerSent() throws IOException {
        ChangeEvent e =
                event(ChangeType.UNKNOWN, values("Id", 1L), values(), values(), "t")
                        .withRawChangeType("7");
        ChangeEvent back = roundTrip(e);
        assertThat(back).isEqualTo(e);
        assertThat(back.getRawChangeType()).isEqualTo("7");
        assertThat(ChangeEventSerializer.INSTANCE.copy(e).getRawChangeType()).isEqualTo("7");
        assertThat(
                        roundTrip(
                                        event(
                                                ChangeType.DELETE,
                                                values("Id", 1L),
                                                values(),
                                                values(),
                                                "t"))
                                .getRawChangeType())
                .isEqualTo("DELETE");
    }

    @Test
    void aCopyIsAnEventOfItsOwn() {
        ChangeEvent e = everyValueType();
        ChangeEvent copy = ChangeEventSerializer.INSTANCE.copy(e);
        assertThat(copy).isEqualTo(e).isNotSameAs(e);

        copy.withSnapshot(!e.isSnapshot());

        assertThat(copy.isSnapshot()).isNotEqualTo(e.isSnapshot());
        assertThat(ChangeEventSerializer.INSTANCE.copy(e)).isEqualTo(e);
    }

    @Test
    void copiesDoNotShareByteArrays() {
        ChangeEvent e = everyValueType();
        ChangeEvent copy = ChangeEventSerializer.INSTANCE.copy(e);

        ((byte[]) e.getNewValues().get("By"))[0] = 42;
        ((byte[]) ((List<?>) e.getNewValues().get("ABy")).get(0))[0] = 42;

        assertThat((byte[]) copy.getNewValues().get("By")).containsExactly(0, 1, -1);
        assertThat((byte[]) ((List<?>) copy.getNewValues().get("ABy")).get(0)).containsExactly(9);
        assertThat(copy).isNotEqualTo(e);
    }

    @Test
    void unknownValueTypeFailsNamingItsClassAndColumn() {
        ChangeEvent e =
                event(
                        ChangeType.INSERT,
                        values("Id", 1L),
                        values("Tags", Arrays.asList("a", Set.of("b"))),
                        values(),
                        "t");

        assertThatThrownBy(() -> serialize(e))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("newValues column 'Tags'")
                .hasMessageContaining(Set.of("b").getClass().getName());
        assertThatThrownBy(() -> ChangeEventSerializer.INSTANCE.copy(e))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("newValues column 'Tags'");
        ChangeEvent intKey = event(ChangeType.INSERT, values("Id", 1), values(), values(), "t");
        assertThatThrownBy(() -> serialize(intKey))
                .hasMessageContaining("keys column 'Id'")
                .hasMessageContaining("java.lang.Integer");
    }

    @Test
    void unknownTagFailsTheRead() throws IOException {
        byte[] bytes =
                serialize(event(ChangeType.INSERT, values("Id", 1L), values(), values(), "t"));
        // The tag of Id's value, before the long, the sizes of newValues and oldValues and the
        // column type count.
        bytes[bytes.length - 1 - 8 - 4 - 4 - 4] = 99;
        assertThatThrownBy(
                        () ->
                                ChangeEventSerializer.INSTANCE.deserialize(
                                        new DataInputDeserializer(bytes)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Unknown value tag 99");
    }

    /** Version 1 of the format, byte for byte: a change here needs a new format version. */
    @Test
    void formatIsStable() throws IOException {
        ChangeEvent e =
                ChangeEvent.builder()
                        .table("T")
                        .changeType(ChangeType.UPDATE)
                        .keys(values("Id", 1L))
                        .newValues(values("A", Arrays.asList(null, "x"), "B", new byte[] {-1}))
                        .oldValues(values("C", new BigDecimal("-1.5")))
                        .commitTimestamp(Instant.ofEpochSecond(2, 3))
                        .serverTransactionId(null)
                        .recordSequence("s")
                        .modNumber(4)
                        .transactionTag(null)
                        .systemTransaction(true)
                        .partitionToken("p")
                        .numberOfRecordsInTransaction(5)
                        .numberOfPartitionsInTransaction(6)
                        .valueCaptureType("NEW_ROW")
                        .columnTypes(java.util.Map.of("Id", "INT64"))
                        .build();

        String hex =
                "0254" // table "T": length + 1, chars
                        + "00" // serverTransactionId null
                        + "0273" // recordSequence "s"
                        + "00" // transactionTag null
                        + "0270" // partitionToken "p"
                        + "084e45575f524f57" // valueCaptureType "NEW_ROW"
                        + "01" // UPDATE
                        + "01"
                        + "0000000000000002"
                        + "00000003" // commit timestamp
                        + "00000004" // modNumber
                        + "01" // systemTransaction
                        + "0000000000000005" // numberOfRecordsInTransaction
                        + "0000000000000006" // numberOfPartitionsInTransaction
                        + "00000001"
                        + "034964"
                        + "01"
                        + "0000000000000001" // keys {Id: 1L}
                        + "00000002" // newValues: 2 columns
                        + "0241"
                        + "0a"
                        + "00000002"
                        + "00"
                        + "06"
                        + "0278" // A: [null, "x"]
                        + "0242"
                        + "07"
                        + "00000001"
                        + "ff" // B: byte[] {-1}
                        + "00000001" // oldValues: 1 column
                        + "0243"
                        + "04"
                        + "00000001"
                        + "f1"
                        + "00000001" // C: -15 scale 1
                        + "00000001" // column types: 1
                        + "034964"
                        + "06494e543634"; // Id: "INT64"

        assertThat(HexFormat.of().formatHex(serialize(e))).isEqualTo(hex);
        assertThat(roundTrip(e)).isEqualTo(e);
    }

    @Test
    void snapshotRecordsTheFormatVersion() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(16);
        TypeSerializerSnapshot.writeVersionedSnapshot(
                out, ChangeEventSerializer.INSTANCE.snapshotConfiguration());
        TypeSerializerSnapshot<ChangeEvent> restored =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(out.getCopyOfBuffer()),
                        getClass().getClassLoader());

        assertThat(restored.getCurrentVersion()).isEqualTo(ChangeEventSerializer.FORMAT_VERSION);
        assertThat(
                        ChangeEventSerializer.INSTANCE
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(restored)
                                .isCompatibleAsIs())
                .isTrue();
        assertThat(restored.restoreSerializer()).isSameAs(ChangeEventSerializer.INSTANCE);

        assertThatThrownBy(
                        () ->
                                new ChangeEventSerializer.Snapshot()
                                        .readSnapshot(
                                                ChangeEventSerializer.FORMAT_VERSION + 1,
                                                new DataInputDeserializer(new byte[0]),
                                                getClass().getClassLoader()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("format version 2 is unknown");
    }

    @Test
    void eventsCompareByteArraysByContent() {
        ChangeEvent a = everyValueType();
        ChangeEvent b = everyValueType();

        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a)
                .isNotEqualTo(
                        event(
                                ChangeType.INSERT,
                                values("K", new byte[] {1}),
                                values(),
                                values(),
                                "t"));
        assertThat(event(ChangeType.INSERT, values("K", new byte[] {1}), values(), values(), "t"))
                .isNotEqualTo(
                        event(
                                ChangeType.INSERT,
                                values("K", new byte[] {2}),
                                values(),
                                values(),
                                "t"));
    }
}
