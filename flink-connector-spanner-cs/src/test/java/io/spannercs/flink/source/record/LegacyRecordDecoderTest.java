package io.spannercs.flink.source.record;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.Struct;
import com.google.cloud.spanner.Type;
import com.google.cloud.spanner.Type.StructField;
import com.google.cloud.spanner.Value;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LegacyRecordDecoderTest {
    private static final Type COLUMN_TYPE =
            Type.struct(
                    StructField.of("name", Type.string()),
                    StructField.of("type", Type.json()),
                    StructField.of("is_primary_key", Type.bool()),
                    StructField.of("ordinal_position", Type.int64()));
    private static final Type MOD =
            Type.struct(
                    StructField.of("keys", Type.json()),
                    StructField.of("new_values", Type.json()),
                    StructField.of("old_values", Type.json()));
    private static final Type DATA =
            Type.struct(
                    StructField.of("commit_timestamp", Type.timestamp()),
                    StructField.of("record_sequence", Type.string()),
                    StructField.of("server_transaction_id", Type.string()),
                    StructField.of("is_last_record_in_transaction_in_partition", Type.bool()),
                    StructField.of("table_name", Type.string()),
                    StructField.of("column_types", Type.array(COLUMN_TYPE)),
                    StructField.of("mods", Type.array(MOD)),
                    StructField.of("mod_type", Type.string()),
                    StructField.of("value_capture_type", Type.string()),
                    StructField.of("number_of_records_in_transaction", Type.int64()),
                    StructField.of("number_of_partitions_in_transaction", Type.int64()),
                    StructField.of("transaction_tag", Type.string()),
                    StructField.of("is_system_transaction", Type.bool()));
    private static final Type HEARTBEAT =
            Type.struct(StructField.of("timestamp", Type.timestamp()));
    private static final Type CHILD =
            Type.struct(
                    StructField.of("token", Type.string()),
                    StructField.of("parent_partition_tokens", Type.array(Type.string())));
    private static final Type CHILDREN =
            Type.struct(
                    StructField.of("start_timestamp", Type.timestamp()),
                    StructField.of("record_sequence", Type.string()),
                    StructField.of("child_partitions", Type.array(CHILD)));
    private static final Type ELEMENT =
            Type.struct(
                    StructField.of("data_change_record", Type.array(DATA)),
                    StructField.of("heartbeat_record", Type.array(HEARTBEAT)),
                    StructField.of("child_partitions_record", Type.array(CHILDREN)));

    private static final Timestamp TS = Timestamp.ofTimeMicroseconds(1_700_000_000_000_000L);

    /** Spanner may fill unused arrays with one all-NULL element (Beam and Debezium skip them). */
    @Test
    void skipsElementsWhoseFieldsAreAllNull() {
        Struct heartbeatRow =
                element(
                        List.of(nullStruct(DATA)),
                        List.of(Struct.newBuilder().set("timestamp").to(TS).build()),
                        List.of(nullStruct(CHILDREN)));
        List<ChangeRecord> records = LegacyRecordDecoder.INSTANCE.decode(row(heartbeatRow));
        assertThat(records).containsExactly(new HeartbeatRecord(TS.getSeconds() * 1_000_000L));
    }

    /** Google's emulator sends a key-only update's old values as JSON null. */
    @Test
    void readsJsonNullModValuesAsNone() {
        Struct data = data("UPDATE", "{\"K\":\"1\"}", "{}", "null");
        List<ChangeRecord> records =
                LegacyRecordDecoder.INSTANCE.decode(
                        row(element(List.of(data), List.of(), List.of())));
        DataChangeRecord d = (DataChangeRecord) records.get(0);
        assertThat(d.mods().get(0).oldValues()).isEmpty();
        assertThat(d.identity()).isEqualTo("D42/00000003");
    }

    @Test
    void keepsAModTypeItDoesNotKnowAsText() {
        Struct data = data("FUTURE_MOD_TYPE", "{\"K\":\"1\"}", "{}", "{}");
        DataChangeRecord d =
                (DataChangeRecord)
                        LegacyRecordDecoder.INSTANCE
                                .decode(row(element(List.of(data), List.of(), List.of())))
                                .get(0);
        assertThat(d.modType()).isEqualTo("FUTURE_MOD_TYPE");
    }

    private static Struct data(String modType, String keys, String newValues, String oldValues) {
        return Struct.newBuilder()
                .set("commit_timestamp")
                .to(TS)
                .set("record_sequence")
                .to("00000003")
                .set("server_transaction_id")
                .to("42")
                .set("is_last_record_in_transaction_in_partition")
                .to(true)
                .set("table_name")
                .to("T")
                .set("column_types")
                .toStructArray(
                        COLUMN_TYPE,
                        List.of(
                                Struct.newBuilder()
                                        .set("name")
                                        .to("K")
                                        .set("type")
                                        .to(Value.json("{\"code\":\"INT64\"}"))
                                        .set("is_primary_key")
                                        .to(true)
                                        .set("ordinal_position")
                                        .to(1L)
                                        .build()))
                .set("mods")
                .toStructArray(
                        MOD,
                        List.of(
                                Struct.newBuilder()
                                        .set("keys")
                                        .to(Value.json(keys))
                                        .set("new_values")
                                        .to(Value.json(newValues))
                                        .set("old_values")
                                        .to(Value.json(oldValues))
                                        .build()))
                .set("mod_type")
                .to(modType)
                .set("value_capture_type")
                .to("NEW_ROW_AND_OLD_VALUES")
                .set("number_of_records_in_transaction")
                .to(1L)
                .set("number_of_partitions_in_transaction")
                .to(1L)
                .set("transaction_tag")
                .to("")
                .set("is_system_transaction")
                .to(false)
                .build();
    }

    private static Struct element(
            List<Struct> data, List<Struct> heartbeats, List<Struct> children) {
        return Struct.newBuilder()
                .set("data_change_record")
                .toStructArray(DATA, data)
                .set("heartbeat_record")
                .toStructArray(HEARTBEAT, heartbeats)
                .set("child_partitions_record")
                .toStructArray(CHILDREN, children)
                .build();
    }

    /** A struct of the type whose every field is NULL. */
    private static Struct nullStruct(Type type) {
        Struct.Builder b = Struct.newBuilder();
        for (StructField f : type.getStructFields()) {
            Value v =
                    switch (f.getType().getCode()) {
                        case TIMESTAMP -> Value.timestamp(null);
                        case STRING -> Value.string(null);
                        case BOOL -> Value.bool((Boolean) null);
                        case INT64 -> Value.int64((Long) null);
                        case ARRAY -> Value.structArray(f.getType().getArrayElementType(), null);
                        default -> throw new IllegalArgumentException(f.toString());
                    };
            b.set(f.getName()).to(v);
        }
        return b.build();
    }

    private static Struct row(Struct element) {
        List<Struct> elements = new ArrayList<>();
        elements.add(element);
        return Struct.newBuilder().set("ChangeRecord").toStructArray(ELEMENT, elements).build();
    }
}
