package io.spannercs.flink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spannercs.flink.table.SpannerCdcOptions.ChangelogModeOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/** The type mapping and the planning-time checks, without a database. */
class SpannerTypeMappingTest {

    private static LogicalType t(DataType d) {
        return d.getLogicalType();
    }

    @Test
    void eachSpannerTypeAcceptsItsFlinkTypes() {
        assertThat(SpannerTypeMapping.compatible("INT64", t(DataTypes.BIGINT()))).isTrue();
        assertThat(SpannerTypeMapping.compatible("INT64", t(DataTypes.INT()))).isFalse();
        assertThat(SpannerTypeMapping.compatible("FLOAT64", t(DataTypes.DOUBLE()))).isTrue();
        assertThat(SpannerTypeMapping.compatible("FLOAT64", t(DataTypes.FLOAT()))).isFalse();
        assertThat(SpannerTypeMapping.compatible("FLOAT32", t(DataTypes.FLOAT()))).isTrue();
        assertThat(SpannerTypeMapping.compatible("NUMERIC", t(DataTypes.DECIMAL(38, 9)))).isTrue();
        assertThat(SpannerTypeMapping.compatible("NUMERIC", t(DataTypes.STRING()))).isTrue();
        assertThat(SpannerTypeMapping.compatible("BOOL", t(DataTypes.BOOLEAN()))).isTrue();
        assertThat(SpannerTypeMapping.compatible("STRING", t(DataTypes.VARCHAR(10)))).isTrue();
        assertThat(SpannerTypeMapping.compatible("JSON", t(DataTypes.STRING()))).isTrue();
        assertThat(SpannerTypeMapping.compatible("BYTES", t(DataTypes.BYTES()))).isTrue();
        assertThat(SpannerTypeMapping.compatible("BYTES", t(DataTypes.STRING()))).isFalse();
        assertThat(SpannerTypeMapping.compatible("DATE", t(DataTypes.DATE()))).isTrue();
        assertThat(SpannerTypeMapping.compatible("TIMESTAMP", t(DataTypes.TIMESTAMP_LTZ(9))))
                .isTrue();
        assertThat(SpannerTypeMapping.compatible("TIMESTAMP", t(DataTypes.TIMESTAMP(3)))).isTrue();
        assertThat(SpannerTypeMapping.compatible("TIMESTAMP", t(DataTypes.DATE()))).isFalse();
        assertThat(
                        SpannerTypeMapping.compatible(
                                "ARRAY<INT64>", t(DataTypes.ARRAY(DataTypes.BIGINT()))))
                .isTrue();
        assertThat(
                        SpannerTypeMapping.compatible(
                                "ARRAY<INT64>", t(DataTypes.ARRAY(DataTypes.STRING()))))
                .isFalse();
        assertThat(SpannerTypeMapping.compatible("ENUM<a.B>", t(DataTypes.BIGINT()))).isTrue();
        assertThat(SpannerTypeMapping.compatible("PROTO<a.B>", t(DataTypes.BYTES()))).isTrue();
    }

    @Test
    void checkResolvesNamesAndNamesEveryBadColumn() {
        Map<String, String> spanner = new LinkedHashMap<>();
        spanner.put("OrderId", "INT64");
        spanner.put("Amount", "NUMERIC");
        spanner.put("Tags", "ARRAY<STRING(MAX)>");
        spanner.put("PgCol", "character varying");
        RowType ok =
                (RowType)
                        DataTypes.ROW(
                                        DataTypes.FIELD("orderid", DataTypes.BIGINT()),
                                        DataTypes.FIELD(
                                                "Tags", DataTypes.ARRAY(DataTypes.STRING())),
                                        DataTypes.FIELD("PgCol", DataTypes.STRING()))
                                .getLogicalType();
        assertThat(SpannerTypeMapping.check("Orders", spanner, ok))
                .isEqualTo(List.of("OrderId", "Tags", "PgCol"));

        RowType bad =
                (RowType)
                        DataTypes.ROW(
                                        DataTypes.FIELD("Amount", DataTypes.DOUBLE()),
                                        DataTypes.FIELD("Missing", DataTypes.STRING()))
                                .getLogicalType();
        assertThatThrownBy(() -> SpannerTypeMapping.check("Orders", spanner, bad))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("column 'Amount' is declared DOUBLE but is NUMERIC")
                .hasMessageContaining("DECIMAL(38, 9)")
                .hasMessageContaining("column 'Missing' does not exist in Spanner table 'Orders'");
        assertThatThrownBy(() -> SpannerTypeMapping.check("Nope", null, ok))
                .hasMessageContaining("'Nope' does not exist");
    }

    @Test
    void captureTypesServeTheModesThatTheirRowsAllow() {
        CaptureTypeSupport.check(ChangelogModeOption.ALL, "NEW_ROW_AND_OLD_VALUES", "cs");
        CaptureTypeSupport.check(ChangelogModeOption.UPSERT, "NEW_ROW_AND_OLD_VALUES", "cs");
        CaptureTypeSupport.check(ChangelogModeOption.UPSERT, "NEW_ROW", "cs");
        for (String type : List.of("NEW_ROW", "OLD_AND_NEW_VALUES", "NEW_VALUES")) {
            assertThatThrownBy(() -> CaptureTypeSupport.check(ChangelogModeOption.ALL, type, "cs"))
                    .hasMessageContaining("value_capture_type " + type);
        }
        for (String type : List.of("OLD_AND_NEW_VALUES", "NEW_VALUES")) {
            assertThatThrownBy(
                            () -> CaptureTypeSupport.check(ChangelogModeOption.UPSERT, type, "cs"))
                    .hasMessageContaining("value_capture_type " + type);
        }
        assertThat(CaptureTypeSupport.keyOnlyDeletes("NEW_ROW")).isTrue();
        assertThat(CaptureTypeSupport.keyOnlyDeletes("NEW_ROW_AND_OLD_VALUES")).isFalse();
    }
}
