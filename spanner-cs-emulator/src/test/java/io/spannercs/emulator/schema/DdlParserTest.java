package io.spannercs.emulator.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.spanner.v1.TypeCode;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class DdlParserTest {
    @Test
    void parsesTablesWithEveryTypeAndCompositeKeys() {
        Schema s =
                DdlParser.parse(
                        "-- comment\n"
                                + "CREATE TABLE A (\n"
                                + "  K1 INT64 NOT NULL, K2 STRING(36) NOT NULL, F FLOAT64, F3 FLOAT32,"
                                + " N NUMERIC, B BOOL, BY BYTES(MAX), D DATE,\n"
                                + "  TS TIMESTAMP OPTIONS (allow_commit_timestamp = true), J JSON,"
                                + " AR ARRAY<STRING(MAX)>, AI ARRAY<INT64>,\n"
                                + ") PRIMARY KEY (K1, K2 DESC);\n"
                                + "/* block */ CREATE TABLE B (K INT64) PRIMARY KEY (K),"
                                + " INTERLEAVE IN PARENT A ON DELETE CASCADE");
        TableDef a = s.table("a").orElseThrow();
        assertThat(a.columns()).hasSize(12);
        assertThat(a.keyColumns()).extracting(ColumnDef::name).containsExactly("K1", "K2");
        assertThat(a.column("ar").orElseThrow().type().getArrayElementType().getCode())
                .isEqualTo(TypeCode.STRING);
        assertThat(a.column("TS").orElseThrow().ordinalPosition()).isEqualTo(9);
        assertThat(a.column("K1").orElseThrow().notNull()).isTrue();
        assertThat(s.table("B")).isPresent();
    }

    @Test
    void parsesChangeStreamsWithOptionsAndColumnLists() {
        Schema s =
                DdlParser.parse(
                        "CREATE TABLE T (K INT64, A STRING(MAX), B STRING(MAX)) PRIMARY KEY (K);\n"
                                + "CREATE TABLE U (K INT64) PRIMARY KEY (K);\n"
                                + "CREATE CHANGE STREAM all_cs FOR ALL OPTIONS (partition_mode ="
                                + " 'MUTABLE_KEY_RANGE', value_capture_type = 'NEW_ROW_AND_OLD_VALUES',"
                                + " retention_period = '36h', exclude_ttl_deletes = true);\n"
                                + "CREATE CHANGE STREAM some FOR T(A), U();\n"
                                + "CREATE CHANGE STREAM none_cs;");
        ChangeStreamDef all = s.changeStream("ALL_CS").orElseThrow();
        assertThat(all.forAll()).isTrue();
        assertThat(all.partitionMode()).isEqualTo(PartitionMode.MUTABLE_KEY_RANGE);
        assertThat(all.valueCaptureType()).isEqualTo(ValueCaptureType.NEW_ROW_AND_OLD_VALUES);
        assertThat(all.retentionPeriod()).isEqualTo(Duration.ofHours(36));
        assertThat(all.excludeTtlDeletes()).isTrue();
        assertThat(all.explicitOptions()).containsKeys("partition_mode", "retention_period");

        ChangeStreamDef some = s.changeStream("some").orElseThrow();
        assertThat(some.partitionMode()).isEqualTo(PartitionMode.IMMUTABLE_KEY_RANGE);
        assertThat(some.valueCaptureType()).isEqualTo(ValueCaptureType.OLD_AND_NEW_VALUES);
        assertThat(some.explicitOptions()).isEmpty();
        TableDef t = s.table("T").orElseThrow();
        assertThat(some.watchesColumn("T", t.column("A").orElseThrow())).isTrue();
        assertThat(some.watchesColumn("T", t.column("B").orElseThrow())).isFalse();
        assertThat(some.watchesColumn("T", t.column("K").orElseThrow())).isTrue();
        assertThat(some.watchesTable("U")).isTrue();
        assertThat(s.changeStream("none_cs").orElseThrow().watchesTable("T")).isFalse();
        assertThat(s.changeStreams()).hasSize(3);
    }

    @Test
    void rejectsBadDdlNamingTheProblem() {
        assertThatThrownBy(() -> DdlParser.parse("CREATE TABLE T (K FOO) PRIMARY KEY (K)"))
                .hasMessageContaining("Unsupported column type FOO");
        assertThatThrownBy(
                        () ->
                                DdlParser.parse(
                                        "CREATE TABLE T (K INT64) PRIMARY KEY (K); CREATE CHANGE STREAM c"
                                                + " FOR ALL OPTIONS (retention_period = '12h')"))
                .hasMessageContaining("retention_period");
        assertThatThrownBy(
                        () ->
                                DdlParser.parse(
                                        "CREATE TABLE T (K INT64) PRIMARY KEY (K); CREATE CHANGE STREAM c"
                                                + " FOR ALL OPTIONS (partition_mode = 'SOMETIMES')"))
                .hasMessageContaining("partition_mode");
        assertThatThrownBy(() -> DdlParser.parse("CREATE CHANGE STREAM c FOR Missing"))
                .hasMessageContaining("unknown table Missing");
        assertThatThrownBy(
                        () ->
                                DdlParser.parse(
                                        "CREATE TABLE T (K INT64) PRIMARY KEY (K); CREATE CHANGE STREAM c FOR T(K)"))
                .hasMessageContaining("key columns are always tracked");
    }

    /** DDL cut short inside a column's options or a type ends with a message, never a loop. */
    @Test
    void ddlCutShortFailsSayingItEnded() {
        assertThatThrownBy(() -> DdlParser.parse("CREATE TABLE T (K INT64 HIDDEN"))
                .hasMessage("Unexpected end of DDL");
        assertThatThrownBy(() -> DdlParser.parse("CREATE TABLE T (K INT64) PRIMARY KEY (K"))
                .hasMessage("Unexpected end of DDL");
        assertThatThrownBy(() -> DdlParser.parse("CREATE TABLE T (K bigint[10", Dialect.POSTGRESQL))
                .hasMessage("Unexpected end of DDL");
        assertThatThrownBy(
                        () ->
                                DdlParser.parse(
                                        "CREATE TABLE T (K bigint DEFAULT", Dialect.POSTGRESQL))
                .hasMessage("Unexpected end of DDL");
        assertThatThrownBy(() -> DdlParser.parse("CREATE TABLE T (K INT64, Q FOO)"))
                .hasMessage("DDL error: Unsupported column type FOO near 'FOO )'");
    }
}
