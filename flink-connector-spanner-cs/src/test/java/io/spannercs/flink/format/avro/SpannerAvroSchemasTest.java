package io.spannercs.flink.format.avro;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.spanner.v1.Type;
import com.google.spanner.v1.TypeAnnotationCode;
import com.google.spanner.v1.TypeCode;
import io.spannercs.flink.format.SpannerTypeNames;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class SpannerAvroSchemasTest {

    @Test
    void mapsEachSpannerTypeDeliberately() {
        assertThat(type("INT64")).isEqualTo("long");
        assertThat(type("PG_OID")).isEqualTo("long");
        assertThat(type("ENUM<x.Color>")).isEqualTo("long");
        assertThat(type("FLOAT64")).isEqualTo("double");
        assertThat(type("FLOAT32")).isEqualTo("float");
        assertThat(type("BOOL")).isEqualTo("boolean");
        assertThat(type("STRING")).isEqualTo("string");
        assertThat(type("PG_NUMERIC")).isEqualTo("string");
        assertThat(type("BYTES")).isEqualTo("bytes");
        assertThat(type("PROTO<x.Msg>")).isEqualTo("bytes");

        Schema numeric = SpannerAvroSchemas.valueSchema("NUMERIC");
        assertThat(numeric.getType()).isEqualTo(Schema.Type.BYTES);
        assertThat(numeric.getLogicalType()).isEqualTo(LogicalTypes.decimal(38, 9));
        assertThat(SpannerAvroSchemas.valueSchema("DATE").getLogicalType())
                .isEqualTo(LogicalTypes.date());
        assertThat(SpannerAvroSchemas.valueSchema("TIMESTAMP").getLogicalType())
                .isEqualTo(LogicalTypes.timestampMicros());
        for (String json : List.of("JSON", "PG_JSONB")) {
            Schema s = SpannerAvroSchemas.valueSchema(json);
            assertThat(s.getType()).isEqualTo(Schema.Type.STRING);
            assertThat(s.getProp("sqlType")).isEqualTo("JSON");
        }
        Schema array = SpannerAvroSchemas.valueSchema("ARRAY<NUMERIC>");
        assertThat(array.getType()).isEqualTo(Schema.Type.ARRAY);
        assertThat(array.getElementType().isNullable()).isTrue();
        assertThat(array.getElementType().getTypes().get(1)).isEqualTo(numeric);

        assertThat(SpannerAvroSchemas.valueSchema("INTERVAL").getType())
                .isEqualTo(Schema.Type.STRING);
        assertThat(SpannerAvroSchemas.valueSchema("UUID").getLogicalType())
                .isEqualTo(LogicalTypes.uuid());
        Schema unknown = SpannerAvroSchemas.valueSchema("TYPE_CODE_99");
        assertThat(unknown.getType()).as("raw text of a newer type").isEqualTo(Schema.Type.STRING);
        assertThat(unknown.getProp("spannerType")).isEqualTo("TYPE_CODE_99");
    }

    @Test
    void keysAreRequiredAndOtherColumnsNullableInTableOrder() {
        Schema s = SpannerAvroSchemas.forTable("Orders", columns(), List.of("OrderId"));
        Schema row = s.getField("payload").schema();
        assertThat(row.getFields())
                .extracting(Schema.Field::name)
                .containsExactly("OrderId", "Customer", "Amount");
        assertThat(row.getField("OrderId").schema().getType()).isEqualTo(Schema.Type.LONG);
        assertThat(row.getField("Customer").schema().isNullable()).isTrue();
        assertThat(row.getField("Customer").defaultVal())
                .isEqualTo(org.apache.avro.JsonProperties.NULL_VALUE);
        assertThat(row.getField("Amount").getProp(SpannerAvroSchemas.SPANNER_TYPE))
                .isEqualTo("NUMERIC");
        assertThat(s.getField("old_values").schema().getTypes().get(1)).isSameAs(row);
        assertThat(s.getFullName()).isEqualTo("io.spannercs.avro.Orders");
        // Datastream's fields, then the row
        assertThat(s.getFields())
                .extracting(Schema.Field::name)
                .containsExactly(
                        "stream_name",
                        "read_method",
                        "object",
                        "schema_key",
                        "uuid",
                        "read_timestamp",
                        "source_timestamp",
                        "sort_keys",
                        "source_metadata",
                        "payload",
                        "old_values");
        assertThat(s.getField("source_metadata").schema().getFields())
                .extracting(Schema.Field::name)
                .containsExactly(
                        "commit_timestamp",
                        "snapshot",
                        "project_id",
                        "instance_id",
                        "database_id",
                        "schema",
                        "table",
                        "change_stream_name",
                        "server_transaction_id",
                        "record_sequence",
                        "mod_number",
                        "transaction_tag",
                        "number_of_records_in_transaction",
                        "value_capture_type",
                        "change_type",
                        "primary_keys",
                        "is_deleted");
        // the schema survives its own JSON
        assertThat(new Schema.Parser().parse(s.toString())).isEqualTo(s);
    }

    @Test
    void schemaKeyIsStableAndTellsSchemasApart() {
        Schema a = SpannerAvroSchemas.forTable("Orders", columns(), List.of("OrderId"));
        Schema b = SpannerAvroSchemas.forTable("Orders", columns(), List.of("OrderId"));
        assertThat(SpannerAvroSchemas.schemaKey(a))
                .isEqualTo(SpannerAvroSchemas.schemaKey(b))
                .matches("[0-9a-f]{16}");
        assertThat(SpannerAvroSchemas.schemaKey(new Schema.Parser().parse(a.toString())))
                .isEqualTo(SpannerAvroSchemas.schemaKey(a));

        Map<String, String> bytes = columns();
        bytes.put("Amount", "BYTES"); // same Avro type, other logical type
        assertThat(
                        SpannerAvroSchemas.schemaKey(
                                SpannerAvroSchemas.forTable("Orders", bytes, List.of("OrderId"))))
                .isNotEqualTo(SpannerAvroSchemas.schemaKey(a));
        assertThat(
                        SpannerAvroSchemas.schemaKey(
                                SpannerAvroSchemas.forTable(
                                        "Other", columns(), List.of("OrderId"))))
                .isNotEqualTo(SpannerAvroSchemas.schemaKey(a));
    }

    @Test
    void invalidAvroNamesAreReplacedAndKeptAsProperty() {
        Map<String, String> cols = new LinkedHashMap<>();
        cols.put("id", "INT64");
        cols.put("order date", "DATE");
        cols.put("1st", "STRING");
        Schema s = SpannerAvroSchemas.forTable("my-table", cols, List.of("id"));
        Schema row = s.getField("payload").schema();
        assertThat(row.getFields())
                .extracting(Schema.Field::name)
                .containsExactly("id", "order_date", "_1st");
        assertThat(row.getField("order_date").getProp(SpannerAvroSchemas.SPANNER_NAME))
                .isEqualTo("order date");
        assertThat(row.getField("id").getProp(SpannerAvroSchemas.SPANNER_NAME)).isNull();
        assertThat(s.getName()).isEqualTo("my_table");

        cols.put("order_date", "STRING");
        assertThatThrownBy(() -> SpannerAvroSchemas.forTable("t", cols, List.of("id")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("order date and order_date of table t");
    }

    @Test
    void typeNamesSpellPostgresAnnotationsProtosAndArrays() {
        assertThat(SpannerTypeNames.of(of(TypeCode.INT64))).isEqualTo("INT64");
        assertThat(
                        SpannerTypeNames.of(
                                Type.newBuilder()
                                        .setCode(TypeCode.NUMERIC)
                                        .setTypeAnnotation(TypeAnnotationCode.PG_NUMERIC)
                                        .build()))
                .isEqualTo("PG_NUMERIC");
        assertThat(
                        SpannerTypeNames.of(
                                Type.newBuilder()
                                        .setCode(TypeCode.ARRAY)
                                        .setArrayElementType(
                                                Type.newBuilder()
                                                        .setCode(TypeCode.JSON)
                                                        .setTypeAnnotation(
                                                                TypeAnnotationCode.PG_JSONB))
                                        .build()))
                .isEqualTo("ARRAY<PG_JSONB>");
        assertThat(
                        SpannerTypeNames.of(
                                Type.newBuilder()
                                        .setCode(TypeCode.PROTO)
                                        .setProtoTypeFqn("x.Msg")
                                        .build()))
                .isEqualTo("PROTO<x.Msg>");
        assertThat(SpannerTypeNames.arrayElement("ARRAY<ARRAY<INT64>>")).isEqualTo("ARRAY<INT64>");
        assertThat(SpannerTypeNames.arrayElement("INT64")).isNull();
    }

    private static Type of(TypeCode code) {
        return Type.newBuilder().setCode(code).build();
    }

    private static String type(String spannerType) {
        return SpannerAvroSchemas.valueSchema(spannerType).getType().getName();
    }

    private static Map<String, String> columns() {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("OrderId", "INT64");
        c.put("Customer", "STRING");
        c.put("Amount", "NUMERIC");
        return c;
    }
}
