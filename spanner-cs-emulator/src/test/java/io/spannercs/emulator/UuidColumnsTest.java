package io.spannercs.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.Dialect;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.Value;
import io.spannercs.emulator.testing.ClientChangeStreamReader;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.ReadRecord;
import io.spannercs.emulator.testing.TestTimes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * UUID columns (GoogleSQL {@code UUID}, PostgreSQL {@code uuid}): stored in canonical lower-case
 * text, read back as UUIDs, and described in change records with {@code TypeCode.UUID}.
 */
class UuidColumnsTest {
    private static final UUID KEY = UUID.fromString("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
    private static final UUID OTHER = UUID.fromString("ABCDEF01-2345-6789-ABCD-EF0123456789");

    @ParameterizedTest
    @CsvSource({"googlesql,true", "googlesql,false", "postgresql,true", "postgresql,false"})
    void uuidValuesRoundTripAndAppearInChangeRecords(String dialect, boolean mutable) {
        boolean pg = dialect.equals("postgresql");
        String mode = mutable ? "MUTABLE_KEY_RANGE" : "IMMUTABLE_KEY_RANGE";
        String ddl =
                pg
                        ? "CREATE TABLE u (id uuid NOT NULL PRIMARY KEY, other uuid, label text);\n"
                                + "CREATE CHANGE STREAM cs FOR ALL WITH (partition_mode = '"
                                + mode
                                + "');"
                        : "CREATE TABLE u (id UUID NOT NULL, other UUID, many ARRAY<UUID>,"
                                + " label STRING(MAX)) PRIMARY KEY (id);\n"
                                + "CREATE CHANGE STREAM cs FOR ALL OPTIONS (partition_mode = '"
                                + mode
                                + "');";
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(ddl)
                                .dialect(
                                        pg
                                                ? io.spannercs.emulator.schema.Dialect.POSTGRESQL
                                                : io.spannercs.emulator.schema.Dialect
                                                        .GOOGLE_STANDARD_SQL)
                                .initialPartitions(1)
                                .start();
                EmulatorClients clients = new EmulatorClients(emulator)) {
            Timestamp start = TestTimes.now();
            Mutation.WriteBuilder insert =
                    Mutation.newInsertBuilder("u")
                            .set("id")
                            .to(Value.uuid(KEY))
                            .set("other")
                            .to(Value.uuid(OTHER))
                            .set("label")
                            .to("x");
            if (!pg) {
                insert.set("many").to(Value.uuidArray(List.of(KEY, OTHER)));
            }
            clients.client().write(List.of(insert.build()));
            Timestamp end = TestTimes.now();

            try (ResultSet rs =
                    clients.client()
                            .singleUse()
                            .executeQuery(Statement.of("SELECT id, other FROM u"))) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getUuid(0)).isEqualTo(KEY);
                assertThat(rs.getUuid(1)).isEqualTo(OTHER);
            }

            ClientChangeStreamReader reader =
                    new ClientChangeStreamReader(
                            clients.client(),
                            "cs",
                            mutable,
                            1000,
                            pg ? Dialect.POSTGRESQL : Dialect.GOOGLE_STANDARD_SQL);
            List<ReadRecord> data = new ArrayList<>();
            for (List<ReadRecord> records : reader.readAll(start, end).values()) {
                records.stream().filter(r -> r.kind() == ReadRecord.Kind.DATA).forEach(data::add);
            }
            assertThat(data).hasSize(1);
            ReadRecord.Data d = data.get(0).data();
            for (ReadRecord.Column c : d.columns()) {
                switch (c.name()) {
                    case "id":
                    case "other":
                        assertThat(c.typeCode()).isEqualTo("UUID");
                        break;
                    case "many":
                        assertThat(c.typeCode()).isEqualTo("ARRAY");
                        break;
                    default:
                        assertThat(c.typeCode()).isEqualTo("STRING");
                }
            }
            Map<String, com.google.protobuf.Value> keys = d.mods().get(0).keys();
            assertThat(keys.get("id").getStringValue()).isEqualTo(KEY.toString());
            Map<String, com.google.protobuf.Value> values = d.mods().get(0).newValues();
            assertThat(values.get("other").getStringValue())
                    .isEqualTo("abcdef01-2345-6789-abcd-ef0123456789");
            if (!pg) {
                assertThat(values.get("many").getListValue().getValues(1).getStringValue())
                        .isEqualTo(OTHER.toString());
            }
        }
    }

    @ParameterizedTest
    @CsvSource({"not-a-uuid", "0f1e2d3c4b5a69788796a5b4c3d2e1f0"})
    void invalidUuidTextIsRejected(String text) {
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl("CREATE TABLE u (id INT64 NOT NULL, v UUID) PRIMARY KEY (id)")
                                .start();
                EmulatorClients clients = new EmulatorClients(emulator)) {
            assertThatThrownBy(
                            () ->
                                    clients.client()
                                            .write(
                                                    List.of(
                                                            Mutation.newInsertBuilder("u")
                                                                    .set("id")
                                                                    .to(1)
                                                                    .set("v")
                                                                    .to(text)
                                                                    .build())))
                    .isInstanceOfSatisfying(
                            SpannerException.class,
                            e ->
                                    assertThat(e.getErrorCode())
                                            .isEqualTo(ErrorCode.FAILED_PRECONDITION));
        }
    }
}
