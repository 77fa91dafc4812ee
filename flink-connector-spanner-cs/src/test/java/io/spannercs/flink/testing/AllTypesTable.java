package io.spannercs.flink.testing;

import com.google.cloud.ByteArray;
import com.google.cloud.Date;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Value;
import java.math.BigDecimal;
import java.util.Arrays;

/**
 * A table with a column of every GoogleSQL type and its array, and one row of edge values in it:
 * NaN and infinities, the largest NUMERIC, 2^53 + 1, nanoseconds, NULL array elements.
 */
public final class AllTypesTable {
    private AllTypesTable() {}

    /** 2^53 + 1: exact only if nothing on the way is a double (JavaScript would read 2^53). */
    public static final long ID = 9007199254740993L;

    /** The table's DDL, ending with a newline. */
    public static final String DDL =
            "CREATE TABLE AllTypes (Id INT64 NOT NULL, Float64Col FLOAT64,"
                    + " Float32Col FLOAT32, NumericCol NUMERIC, BoolCol BOOL, StringCol STRING(MAX),"
                    + " JsonCol JSON, BytesCol BYTES(MAX), DateCol DATE, TimestampCol TIMESTAMP,"
                    + " Int64Array ARRAY<INT64>, Float64Array ARRAY<FLOAT64>,"
                    + " Float32Array ARRAY<FLOAT32>, NumericArray ARRAY<NUMERIC>,"
                    + " BoolArray ARRAY<BOOL>, StringArray ARRAY<STRING(MAX)>,"
                    + " JsonArray ARRAY<JSON>, BytesArray ARRAY<BYTES(MAX)>,"
                    + " DateArray ARRAY<DATE>, TimestampArray ARRAY<TIMESTAMP>)"
                    + " PRIMARY KEY (Id);\n";

    /** The row of edge values, key {@link #ID}. */
    public static Mutation edgeRow() {
        return Mutation.newInsertBuilder("AllTypes")
                .set("Id")
                .to(ID)
                .set("Float64Col")
                .to(Double.NaN)
                .set("Float32Col")
                .to(Float.NEGATIVE_INFINITY)
                .set("NumericCol")
                .to(new BigDecimal("99999999999999999999999999999.999999999"))
                .set("BoolCol")
                .to(true)
                .set("StringCol")
                .to("é \"quoted\"")
                .set("JsonCol")
                .to(Value.json("{\"b\":[1,2.50,null],\"a\":\"x\"}"))
                .set("BytesCol")
                .to(ByteArray.copyFrom(new byte[] {0, 1, (byte) 254, (byte) 255}))
                .set("DateCol")
                .to(Date.parseDate("2026-02-28"))
                .set("TimestampCol")
                .to(Timestamp.parseTimestamp("2026-02-28T12:34:56.123456789Z"))
                .set("Int64Array")
                .toInt64Array(Arrays.asList(Long.MIN_VALUE, null, Long.MAX_VALUE))
                .set("Float64Array")
                .toFloat64Array(
                        Arrays.asList(
                                Double.POSITIVE_INFINITY, null, Double.NEGATIVE_INFINITY, 0.5))
                .set("Float32Array")
                .toFloat32Array(Arrays.asList(0.1f, null, Float.NaN))
                .set("NumericArray")
                .toNumericArray(Arrays.asList(new BigDecimal("-0.000000001"), null))
                .set("BoolArray")
                .toBoolArray(Arrays.asList(true, null, false))
                .set("StringArray")
                .toStringArray(Arrays.asList("", null, "NULL"))
                .set("JsonArray")
                .toJsonArray(Arrays.asList("{\"k\":1}", null, "[]"))
                .set("BytesArray")
                .toBytesArray(Arrays.asList(ByteArray.copyFrom(new byte[] {-1}), null))
                .set("DateArray")
                .toDateArray(Arrays.asList(Date.parseDate("0001-01-01"), null))
                .set("TimestampArray")
                .toTimestampArray(
                        Arrays.asList(Timestamp.parseTimestamp("1970-01-01T00:00:00Z"), null))
                .build();
    }
}
