package io.spannercs.flink.format.avro;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.format.ChangeType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;

class AnySchemaGenericRecordSerializerTest {
    private final ChangeEventAvroConverter converter =
            new ChangeEventAvroConverter(TestEvents.STREAM);

    @Test
    void recordsOfManySchemasRoundTripInOneStream() throws Exception {
        List<GenericRecord> records = records();
        TypeSerializer<GenericRecord> writer =
                AnySchemaGenericRecordTypeInfo.INSTANCE.createSerializer(
                        new SerializerConfigImpl());
        DataOutputSerializer out = new DataOutputSerializer(256);
        for (GenericRecord r : records) {
            writer.serialize(r, out);
        }
        // a fresh serializer, as in another task that never saw the schemas
        TypeSerializer<GenericRecord> reader = new AnySchemaGenericRecordSerializer();
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        List<GenericRecord> back = new ArrayList<>();
        for (int i = 0; i < records.size(); i++) {
            back.add(reader.deserialize(in));
        }
        assertThat(in.available()).isZero();
        for (int i = 0; i < records.size(); i++) {
            assertThat(back.get(i).getSchema()).isEqualTo(records.get(i).getSchema());
            assertThat(
                            GenericData.get()
                                    .compare(back.get(i), records.get(i), back.get(i).getSchema()))
                    .isZero();
            assertThat(back.get(i)).isEqualTo(records.get(i));
        }
    }

    @Test
    void copiesAreDeepAndEqual() throws Exception {
        AnySchemaGenericRecordSerializer s = new AnySchemaGenericRecordSerializer();
        for (GenericRecord r : records()) {
            GenericRecord copy = s.copy(r);
            assertThat(copy).isEqualTo(r).isNotSameAs(r);
            assertThat(copy.get("payload")).isNotSameAs(r.get("payload"));
        }
        DataOutputSerializer out = new DataOutputSerializer(64);
        s.serialize(records().get(0), out);
        DataOutputSerializer copied = new DataOutputSerializer(64);
        s.copy(new DataInputDeserializer(out.getCopyOfBuffer()), copied);
        assertThat(copied.getCopyOfBuffer()).isEqualTo(out.getCopyOfBuffer());
    }

    @Test
    void snapshotRestoresAnEqualSerializerAndTypeInfoSurvivesJavaSerialization() throws Exception {
        TypeSerializerSnapshot<GenericRecord> snapshot =
                new AnySchemaGenericRecordSerializer().snapshotConfiguration();
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, snapshot);
        TypeSerializerSnapshot<GenericRecord> restored =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(out.getCopyOfBuffer()),
                        getClass().getClassLoader());
        assertThat(restored.restoreSerializer()).isEqualTo(new AnySchemaGenericRecordSerializer());
        assertThat(restored.resolveSchemaCompatibility(snapshot).isCompatibleAsIs()).isTrue();
        assertThat(InstantiationUtil.clone(AnySchemaGenericRecordTypeInfo.INSTANCE))
                .isSameAs(AnySchemaGenericRecordTypeInfo.INSTANCE);
    }

    private List<GenericRecord> records() {
        Map<String, String> a = new LinkedHashMap<>();
        a.put("Id", "INT64");
        a.put("Amount", "NUMERIC");
        a.put("Tags", "ARRAY<STRING>");
        Map<String, String> b = new LinkedHashMap<>();
        b.put("K", "STRING");
        b.put("Blob", "BYTES");
        Map<String, Object> av = new LinkedHashMap<>();
        av.put("Amount", new BigDecimal("1.5"));
        av.put("Tags", Arrays.asList("x", null));
        Map<String, Object> bv = new LinkedHashMap<>();
        bv.put("Blob", new byte[] {1, 2});
        return List.of(
                converter.convert(
                        TestEvents.event(
                                "A",
                                ChangeType.INSERT,
                                Map.of("Id", 1L),
                                av,
                                Map.of(),
                                "NEW_ROW",
                                a)),
                converter.convert(
                        TestEvents.event(
                                "B",
                                ChangeType.UPDATE,
                                Map.of("K", "k"),
                                bv,
                                Map.of("Blob", new byte[0]),
                                "NEW_ROW_AND_OLD_VALUES",
                                b)),
                converter.convert(
                        TestEvents.event(
                                "A",
                                ChangeType.DELETE,
                                Map.of("Id", 2L),
                                Map.of(),
                                Map.of(),
                                "NEW_ROW",
                                a)));
    }
}
