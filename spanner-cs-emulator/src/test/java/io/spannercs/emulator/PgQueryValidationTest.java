package io.spannercs.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.Type;
import com.google.spanner.v1.ChangeStreamRecord;
import io.spannercs.emulator.schema.Dialect;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.TestTimes;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * PostgreSQL change stream functions: the forms Beam and users send are accepted, and invalid
 * queries fail with the codes and messages of the GoogleSQL checks.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgQueryValidationTest {
    private SpannerEmulator emulator;
    private EmulatorClients clients;

    @BeforeAll
    void start() {
        emulator =
                SpannerEmulator.builder()
                        .dialect(Dialect.POSTGRESQL)
                        .ddl(
                                "CREATE TABLE t (k bigint PRIMARY KEY, v text);\n"
                                        + "CREATE TABLE u (k bigint PRIMARY KEY);\n"
                                        + "CREATE CHANGE STREAM Legacy FOR ALL;\n"
                                        + "CREATE CHANGE STREAM other FOR u;\n"
                                        + "CREATE CHANGE STREAM \"Mutable\" FOR ALL WITH"
                                        + " (partition_mode = 'MUTABLE_KEY_RANGE');")
                        .start();
        clients = new EmulatorClients(emulator);
    }

    @AfterAll
    void stop() {
        clients.close();
        emulator.close();
    }

    /** The query as Beam's ChangeStreamDao sends it. */
    private static Statement read(
            String function, Timestamp start, Timestamp end, String token, long heartbeat) {
        return Statement.newBuilder(
                        "SELECT * FROM \"spanner\".\"" + function + "\"($1, $2, $3, $4, null)")
                .bind("p1")
                .to(start)
                .bind("p2")
                .to(end)
                .bind("p3")
                .to(token)
                .bind("p4")
                .to(heartbeat)
                .build();
    }

    private static Timestamp plusSeconds(Timestamp t, long s) {
        return Timestamp.ofTimeSecondsAndNanos(t.getSeconds() + s, t.getNanos());
    }

    private int count(Statement statement) {
        int n = 0;
        try (ResultSet rs = clients.client().singleUse().executeQuery(statement)) {
            while (rs.next()) {
                n++;
            }
        }
        return n;
    }

    private void assertFails(Statement statement, ErrorCode code, String message) {
        assertThatThrownBy(() -> count(statement))
                .isInstanceOfSatisfying(
                        SpannerException.class,
                        e -> {
                            assertThat(e.getErrorCode()).isEqualTo(code);
                            assertThat(e.getMessage()).contains(message);
                        });
    }

    @Test
    void acceptsBeamsFormAndLiteralsWithCasts() {
        Timestamp now = TestTimes.now();
        try (ResultSet rs =
                clients.client()
                        .singleUse()
                        .executeQuery(read("read_json_legacy", now, now, null, 1000))) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getType().getStructFields().get(0).getName())
                    .isEqualTo("read_json_legacy");
            assertThat(rs.getColumnType(0)).isEqualTo(Type.pgJsonb());
            assertThat(rs.getPgJsonb(0)).startsWith("{\"child_partitions_record\":{");
        }
        String pgNow =
                DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSSx")
                        .withZone(ZoneOffset.UTC)
                        .format(Instant.now());
        // Unquoted, upper case (folds to the stream's lower-case name), literals with casts, as
        // Google's emulator's tests write them.
        assertThat(
                        count(
                                Statement.of(
                                        "select * from SPANNER.READ_JSON_LEGACY ('"
                                                + pgNow
                                                + "'::timestamptz, '"
                                                + pgNow
                                                + "'::timestamp with time zone, NULL::text,"
                                                + " 1000, NULL::text[])")))
                .isEqualTo(1);
        try (ResultSet rs =
                clients.client()
                        .singleUse()
                        .executeQuery(
                                read(
                                        "read_proto_bytes_Mutable",
                                        now,
                                        plusSeconds(now, 1),
                                        null,
                                        1000))) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getType().getStructFields().get(0).getName())
                    .isEqualTo("read_proto_bytes_Mutable");
            assertThat(rs.getColumnType(0)).isEqualTo(Type.bytes());
            ChangeStreamRecord record;
            try {
                record = ChangeStreamRecord.parseFrom(rs.getBytes(0).toByteArray());
            } catch (com.google.protobuf.InvalidProtocolBufferException e) {
                throw new AssertionError(e);
            }
            assertThat(record.getPartitionStartRecord().getPartitionTokensList()).hasSize(2);
        }
    }

    @Test
    void unknownStreamsAndWrongNames() {
        Timestamp now = TestTimes.now();
        assertFails(
                read("read_json_nope", now, now, null, 1000),
                ErrorCode.INVALID_ARGUMENT,
                "Table-valued function not found: spanner.read_json_nope");
        // Quoted names keep their case; the stream is "legacy".
        assertFails(
                read("read_json_Legacy", now, now, null, 1000),
                ErrorCode.INVALID_ARGUMENT,
                "Table-valued function not found: spanner.read_json_Legacy");
        assertFails(
                read("read_proto_bytes_mutable", now, now, null, 1000),
                ErrorCode.INVALID_ARGUMENT,
                "Table-valued function not found: spanner.read_proto_bytes_mutable");
        assertFails(
                Statement.of("SELECT * FROM read_json_legacy(now(), NULL, NULL, 1000, NULL)"),
                ErrorCode.INVALID_ARGUMENT,
                "Table-valued function not found: read_json_legacy");
        assertFails(
                Statement.of("SELECT ChangeRecord FROM READ_legacy(NULL, NULL, NULL, 1000)"),
                ErrorCode.INVALID_ARGUMENT,
                "Table-valued function not found: read_legacy");
    }

    @Test
    void wrongFunctionForThePartitionMode() {
        Timestamp now = TestTimes.now();
        assertFails(
                read("read_json_Mutable", now, now, null, 1000),
                ErrorCode.INVALID_ARGUMENT,
                "read it with spanner.read_proto_bytes_Mutable");
        assertFails(
                read("read_proto_bytes_legacy", now, now, null, 1000),
                ErrorCode.INVALID_ARGUMENT,
                "read it with spanner.read_json_legacy");
    }

    @Test
    void argumentChecksMatchGoogleSql() {
        Timestamp now = TestTimes.now();
        assertFails(
                read("read_json_legacy", plusSeconds(now, -3600), now, null, 1000),
                ErrorCode.OUT_OF_RANGE,
                "Specified start_timestamp is too far in the past");
        assertFails(
                read("read_json_legacy", now, plusSeconds(now, -1), null, 1000),
                ErrorCode.INVALID_ARGUMENT,
                "If end_timestamp is specified, start_timestamp must be <= end_timestamp");
        assertFails(
                read("read_json_legacy", now, now, "garbage", 1000),
                ErrorCode.INVALID_ARGUMENT,
                "Specified partition_token is invalid");
        String otherToken = emulator.database().changeStream("other").liveTokens().get(0);
        assertFails(
                read("read_json_legacy", now, now, otherToken, 1000),
                ErrorCode.INVALID_ARGUMENT,
                "Specified partition_token is invalid");
        for (long hb : new long[] {99, 300001}) {
            assertFails(
                    read("read_json_legacy", now, now, null, hb),
                    ErrorCode.OUT_OF_RANGE,
                    "heartbeat_milliseconds must be within min 100 and max 300000");
        }
        assertFails(
                read("read_json_legacy", null, now, null, 1000),
                ErrorCode.INVALID_ARGUMENT,
                "start_timestamp must not be null.");
        assertFails(
                read("read_proto_bytes_Mutable", now, null, null, 1000),
                ErrorCode.INVALID_ARGUMENT,
                "end_timestamp must be specified");
        assertFails(
                read("read_proto_bytes_Mutable", now, plusSeconds(now, 31 * 60), null, 1000),
                ErrorCode.INVALID_ARGUMENT,
                "end_timestamp must be at most 30 minutes after start_timestamp");
        assertFails(
                Statement.newBuilder(
                                "SELECT * FROM spanner.read_json_legacy($1, $1, NULL, 1000, $2)")
                        .bind("p1")
                        .to(now)
                        .bind("p2")
                        .toStringArray(java.util.List.of("x"))
                        .build(),
                ErrorCode.INVALID_ARGUMENT,
                "read_options must be NULL");
    }

    @Test
    void queryShapeRules() {
        Timestamp now = TestTimes.now();
        assertFails(
                Statement.newBuilder(
                                "SELECT * FROM spanner.read_json_legacy(start_timestamp => $1,"
                                        + " end_timestamp => $1, partition_token => NULL,"
                                        + " heartbeat_milliseconds => 1000)")
                        .bind("p1")
                        .to(now)
                        .build(),
                ErrorCode.INVALID_ARGUMENT,
                "only positional arguments");
        assertFails(
                Statement.newBuilder(
                                "SELECT * FROM spanner.read_json_legacy($1, $1, NULL, 1000, NULL)"
                                        + " WHERE true")
                        .bind("p1")
                        .to(now)
                        .build(),
                ErrorCode.UNIMPLEMENTED,
                "`SELECT * FROM spanner.read_json_legacy(<args>)`");
        assertThatThrownBy(
                        () -> {
                            try (var txn = clients.client().readOnlyTransaction();
                                    ResultSet rs =
                                            txn.executeQuery(
                                                    read(
                                                            "read_json_legacy",
                                                            now,
                                                            now,
                                                            null,
                                                            1000))) {
                                rs.next();
                            }
                        })
                .isInstanceOfSatisfying(
                        SpannerException.class,
                        e ->
                                assertThat(e.getMessage())
                                        .contains(
                                                "Change stream queries are not supported for multi"
                                                        + " use transactions"));
    }
}
