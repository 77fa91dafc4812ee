package io.spannercs.emulator.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.spanner.v1.TypeAnnotationCode;
import com.google.spanner.v1.TypeCode;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PgDdlParserTest {
    private static Schema pg(String ddl) {
        return DdlParser.parse(ddl, Dialect.POSTGRESQL);
    }

    @Test
    void parsesPostgresTypesAndFoldsUnquotedNames() {
        Schema s =
                pg(
                        "-- comment\n"
                                + "CREATE TABLE Orders (\n"
                                + "  Order_Id bigint NOT NULL, i8 int8, i int, f8 float8,"
                                + " dp double precision, f4 float4, r real, n numeric,"
                                + " b bool, bo boolean, v varchar(20), cv character varying,"
                                + " t text, by bytea, d date, ts timestamptz,"
                                + " tswtz timestamp with time zone, j jsonb,"
                                + " ai bigint[], an numeric[], aj jsonb[], av varchar(5)[],"
                                + " \"MixedCase\" text DEFAULT 'x, y' CHECK (length(t) > 0),"
                                + " g bigint GENERATED ALWAYS AS (i8 + 1) STORED,\n"
                                + "  PRIMARY KEY (order_id)\n"
                                + ") INTERLEAVE IN PARENT customers ON DELETE CASCADE;\n"
                                + "/* block */ CREATE TABLE customers (id bigint PRIMARY KEY)");
        assertThat(s.dialect()).isEqualTo(Dialect.POSTGRESQL);
        TableDef t = s.table("orders").orElseThrow();
        assertThat(t.name()).isEqualTo("orders");
        assertThat(t.keyColumns()).extracting(ColumnDef::name).containsExactly("order_id");
        assertThat(t.columns()).extracting(ColumnDef::name).contains("MixedCase", "tswtz");
        assertThat(type(t, "i8")).isEqualTo(TypeCode.INT64);
        assertThat(type(t, "i")).isEqualTo(TypeCode.INT64);
        assertThat(type(t, "dp")).isEqualTo(TypeCode.FLOAT64);
        assertThat(type(t, "r")).isEqualTo(TypeCode.FLOAT32);
        assertThat(type(t, "cv")).isEqualTo(TypeCode.STRING);
        assertThat(type(t, "by")).isEqualTo(TypeCode.BYTES);
        assertThat(type(t, "tswtz")).isEqualTo(TypeCode.TIMESTAMP);
        assertThat(t.column("n").orElseThrow().type()).isEqualTo(PgTypes.NUMERIC);
        assertThat(t.column("j").orElseThrow().type()).isEqualTo(PgTypes.JSONB);
        assertThat(t.column("an").orElseThrow().type().getArrayElementType().getTypeAnnotation())
                .isEqualTo(TypeAnnotationCode.PG_NUMERIC);
        assertThat(t.column("av").orElseThrow().type().getArrayElementType().getCode())
                .isEqualTo(TypeCode.STRING);
        assertThat(PgTypes.name(t.column("aj").orElseThrow().type())).isEqualTo("jsonb[]");
        assertThat(t.column("n").orElseThrow().ordinalPosition()).isEqualTo(8);
        TableDef c = s.table("CUSTOMERS").orElseThrow();
        assertThat(c.keyColumns()).extracting(ColumnDef::name).containsExactly("id");
        assertThat(c.column("id").orElseThrow().notNull()).isTrue();
    }

    @Test
    void parsesChangeStreamsWithOptions() {
        Schema s =
                pg(
                        "CREATE TABLE t (k bigint PRIMARY KEY, a text, b text);\n"
                                + "CREATE TABLE u (k bigint PRIMARY KEY);\n"
                                + "CREATE CHANGE STREAM All_CS FOR ALL WITH (partition_mode ="
                                + " 'MUTABLE_KEY_RANGE', value_capture_type = 'NEW_ROW',"
                                + " retention_period = '36h', exclude_ttl_deletes = true);\n"
                                + "CREATE CHANGE STREAM \"Some\" FOR t(a), u();\n"
                                + "CREATE CHANGE STREAM none_cs;");
        ChangeStreamDef all = s.changeStream("all_cs").orElseThrow();
        assertThat(all.name()).isEqualTo("all_cs");
        assertThat(all.partitionMode()).isEqualTo(PartitionMode.MUTABLE_KEY_RANGE);
        assertThat(all.valueCaptureType()).isEqualTo(ValueCaptureType.NEW_ROW);
        assertThat(all.retentionPeriod()).isEqualTo(Duration.ofHours(36));
        assertThat(all.excludeTtlDeletes()).isTrue();
        assertThat(all.explicitOptions())
                .containsEntry("partition_mode", "MUTABLE_KEY_RANGE")
                .hasSize(4);
        ChangeStreamDef some = s.changeStream("Some").orElseThrow();
        assertThat(some.name()).isEqualTo("Some");
        TableDef t = s.table("t").orElseThrow();
        assertThat(some.watchesColumn("t", t.column("a").orElseThrow())).isTrue();
        assertThat(some.watchesColumn("t", t.column("b").orElseThrow())).isFalse();
        assertThat(some.watchesTable("u")).isTrue();
    }

    @Test
    void rejectsWhatPostgresSpannerRejects() {
        assertThatThrownBy(() -> pg("CREATE TABLE t (k bigint PRIMARY KEY, x money)"))
                .hasMessageContaining("Unsupported column type money");
        assertThatThrownBy(() -> pg("CREATE TABLE t (k numeric PRIMARY KEY)"))
                .hasMessageContaining("cannot be part of the primary key");
        assertThatThrownBy(() -> pg("CREATE TABLE t (k jsonb, PRIMARY KEY (k))"))
                .hasMessageContaining("cannot be part of the primary key");
        assertThatThrownBy(() -> pg("CREATE TABLE t (k bigint, v text)"))
                .hasMessageContaining("needs a PRIMARY KEY");
        assertThatThrownBy(
                        () ->
                                pg(
                                        "CREATE TABLE t (k bigint PRIMARY KEY);"
                                                + " CREATE CHANGE STREAM c FOR ALL"
                                                + " OPTIONS (partition_mode = 'MUTABLE_KEY_RANGE')"))
                .hasMessageContaining("WITH (...), not OPTIONS");
        assertThatThrownBy(
                        () ->
                                pg(
                                        "CREATE TABLE t (k bigint PRIMARY KEY);"
                                                + " CREATE CHANGE STREAM c FOR ALL"
                                                + " WITH (retention_period = '12h')"))
                .hasMessageContaining("retention_period");
        assertThatThrownBy(
                        () ->
                                pg(
                                        "CREATE TABLE T (K bigint PRIMARY KEY); CREATE TABLE t (k int8 PRIMARY KEY)"))
                .hasMessageContaining("Duplicate name");
    }

    private static TypeCode type(TableDef t, String column) {
        return t.column(column).orElseThrow().type().getCode();
    }
}
