package io.spannercs.benchmarks;

import com.google.protobuf.ListValue;
import com.google.protobuf.Value;
import com.google.spanner.v1.Mutation;
import java.time.Instant;
import java.util.List;

/**
 * The benchmarks' schema: one table with the value types most change streams carry (INT64 key,
 * STRING, FLOAT64, BOOL, TIMESTAMP) and a MUTABLE_KEY_RANGE change stream over it capturing the new
 * row, so every change record carries every column to decode.
 */
final class BenchSchema {
    static final String TABLE = "Events";
    static final String STREAM = "bench_cs";

    static final String DDL =
            "CREATE TABLE Events (Id INT64 NOT NULL, Name STRING(MAX), Amount FLOAT64,"
                    + " Active BOOL, UpdatedAt TIMESTAMP) PRIMARY KEY (Id);\n"
                    + "CREATE CHANGE STREAM bench_cs FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE', value_capture_type = 'NEW_ROW');\n";

    private static final List<String> COLUMNS =
            List.of("Id", "Name", "Amount", "Active", "UpdatedAt");
    private static final long BASE_SECONDS = Instant.parse("2026-01-01T00:00:00Z").getEpochSecond();

    private BenchSchema() {}

    /** An insert-or-update of row {@code id}; {@code version} varies the values between writes. */
    static Mutation upsert(long id, long version) {
        ListValue row =
                ListValue.newBuilder()
                        .addValues(str(Long.toString(id)))
                        .addValues(str("customer-" + id + "-v" + version))
                        .addValues(Value.newBuilder().setNumberValue((id % 10_000) / 100.0))
                        .addValues(Value.newBuilder().setBoolValue((id + version) % 2 == 0))
                        .addValues(
                                str(Instant.ofEpochSecond(BASE_SECONDS + id + version).toString()))
                        .build();
        return Mutation.newBuilder()
                .setInsertOrUpdate(
                        Mutation.Write.newBuilder()
                                .setTable(TABLE)
                                .addAllColumns(COLUMNS)
                                .addValues(row))
                .build();
    }

    private static Value str(String s) {
        return Value.newBuilder().setStringValue(s).build();
    }
}
