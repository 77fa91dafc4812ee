package io.spannercs.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.TimestampBound;
import com.google.cloud.spanner.Value;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.TestTimes;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Invalid change stream queries and mutations fail with Spanner's codes and messages. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QueryValidationTest {
    private SpannerEmulator emulator;
    private EmulatorClients clients;

    @BeforeAll
    void start() {
        emulator =
                SpannerEmulator.builder()
                        .ddl(
                                "CREATE TABLE T (K INT64 NOT NULL, V STRING(MAX)) PRIMARY KEY (K);\n"
                                        + "CREATE TABLE U (K INT64 NOT NULL) PRIMARY KEY (K);\n"
                                        + "CREATE CHANGE STREAM legacy FOR ALL;\n"
                                        + "CREATE CHANGE STREAM other FOR U;\n"
                                        + "CREATE CHANGE STREAM mutable FOR ALL OPTIONS (partition_mode ="
                                        + " 'MUTABLE_KEY_RANGE');")
                        .start();
        clients = new EmulatorClients(emulator);
    }

    @AfterAll
    void stop() {
        clients.close();
        emulator.close();
    }

    private static Statement read(
            String stream, Value start, Value end, String token, long heartbeat) {
        return Statement.newBuilder(
                        "SELECT ChangeRecord FROM READ_"
                                + stream
                                + "(start_timestamp => @s, end_timestamp => @e, partition_token => @t,"
                                + " heartbeat_milliseconds => @h)")
                .bind("s")
                .to(start)
                .bind("e")
                .to(end)
                .bind("t")
                .to(token)
                .bind("h")
                .to(heartbeat)
                .build();
    }

    private static Value ts(Timestamp t) {
        return Value.timestamp(t);
    }

    private static Timestamp plusSeconds(Timestamp t, long s) {
        return Timestamp.ofTimeSecondsAndNanos(t.getSeconds() + s, t.getNanos());
    }

    private void assertFails(Statement statement, ErrorCode code, String messageStart) {
        assertThatThrownBy(
                        () -> {
                            try (ResultSet rs =
                                    clients.client().singleUse().executeQuery(statement)) {
                                while (rs.next()) {}
                            }
                        })
                .isInstanceOfSatisfying(
                        SpannerException.class,
                        e -> {
                            assertThat(e.getErrorCode()).isEqualTo(code);
                            assertThat(e.getMessage()).contains(messageStart);
                        });
    }

    @Test
    void unknownStream() {
        Timestamp now = TestTimes.now();
        assertFails(
                read("nope", ts(now), ts(now), null, 1000),
                ErrorCode.INVALID_ARGUMENT,
                "Table-valued function not found: READ_nope");
    }

    @Test
    void postgresFunctionsDoNotExistInGoogleSql() {
        assertFails(
                Statement.of(
                        "SELECT * FROM spanner.read_json_legacy(NULL, NULL, NULL, 1000, NULL)"),
                ErrorCode.INVALID_ARGUMENT,
                "Table-valued function not found: spanner.read_json_legacy");
    }

    @Test
    void startBeforeStreamExisted() {
        Timestamp now = TestTimes.now();
        assertFails(
                read("legacy", ts(plusSeconds(now, -3600)), ts(now), null, 1000),
                ErrorCode.OUT_OF_RANGE,
                "Specified start_timestamp is too far in the past");
    }

    @Test
    void endBeforeStart() {
        Timestamp now = TestTimes.now();
        assertFails(
                read("legacy", ts(now), ts(plusSeconds(now, -1)), null, 1000),
                ErrorCode.INVALID_ARGUMENT,
                "If end_timestamp is specified, start_timestamp must be <= end_timestamp");
    }

    @Test
    void garbageAndForeignTokens() {
        Timestamp now = TestTimes.now();
        assertFails(
                read("legacy", ts(now), ts(now), "garbage", 1000),
                ErrorCode.INVALID_ARGUMENT,
                "Specified partition_token is invalid");
        String otherToken = emulator.database().changeStream("other").liveTokens().get(0);
        assertFails(
                read("legacy", ts(now), ts(now), otherToken, 1000),
                ErrorCode.INVALID_ARGUMENT,
                "Specified partition_token is invalid");
    }

    @Test
    void heartbeatOutOfRange() {
        Timestamp now = TestTimes.now();
        for (long hb : new long[] {99, 300001}) {
            assertFails(
                    read("legacy", ts(now), ts(now), null, hb),
                    ErrorCode.OUT_OF_RANGE,
                    "heartbeat_milliseconds must be within min 100 and max 300000");
        }
    }

    @Test
    void nullStart() {
        assertFails(
                read("legacy", Value.timestamp(null), ts(TestTimes.now()), null, 1000),
                ErrorCode.INVALID_ARGUMENT,
                "start_timestamp must not be null.");
    }

    @Test
    void multiUseTransactions() {
        Timestamp now = TestTimes.now();
        Statement q = read("legacy", ts(now), ts(now), null, 1000);
        assertThatThrownBy(
                        () -> {
                            try (var txn = clients.client().readOnlyTransaction();
                                    ResultSet rs = txn.executeQuery(q)) {
                                rs.next();
                            }
                        })
                .isInstanceOfSatisfying(
                        SpannerException.class,
                        e -> {
                            assertThat(e.getErrorCode()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
                            assertThat(e.getMessage())
                                    .contains(
                                            "Change stream queries are not supported for multi use transactions");
                        });
        assertThatThrownBy(
                        () -> {
                            try (ResultSet rs =
                                    clients.client()
                                            .singleUse(
                                                    TimestampBound.ofExactStaleness(
                                                            1, TimeUnit.SECONDS))
                                            .executeQuery(q)) {
                                rs.next();
                            }
                        })
                .isInstanceOf(SpannerException.class)
                .hasMessageContaining("not supported for multi use transactions");
    }

    @Test
    void mutableWindowRules() {
        Timestamp now = TestTimes.now();
        assertFails(
                read("mutable", ts(now), Value.timestamp(null), null, 1000),
                ErrorCode.INVALID_ARGUMENT,
                "end_timestamp must be specified");
        assertFails(
                read("mutable", ts(now), ts(plusSeconds(now, 31 * 60)), null, 1000),
                ErrorCode.INVALID_ARGUMENT,
                "end_timestamp must be at most 30 minutes after start_timestamp");
    }

    @Test
    void futureStartWaits() {
        Timestamp now = TestTimes.now();
        Timestamp start = plusSeconds(now, 1);
        long before = System.nanoTime();
        try (ResultSet rs =
                clients.client()
                        .singleUse()
                        .executeQuery(read("legacy", ts(start), ts(start), null, 1000))) {
            assertThat(rs.next()).isTrue();
        }
        assertThat(System.nanoTime() - before).isGreaterThan(500_000_000L);
    }

    @Test
    void mutationsOnUnknownTablesAndColumns() {
        assertThatThrownBy(
                        () ->
                                clients.client()
                                        .write(
                                                List.of(
                                                        Mutation.newInsertBuilder("Nope")
                                                                .set("K")
                                                                .to(1)
                                                                .build())))
                .isInstanceOfSatisfying(
                        SpannerException.class,
                        e -> {
                            assertThat(e.getErrorCode()).isEqualTo(ErrorCode.NOT_FOUND);
                            assertThat(e.getMessage()).contains("Table not found: Nope");
                        });
        assertThatThrownBy(
                        () ->
                                clients.client()
                                        .write(
                                                List.of(
                                                        Mutation.newInsertBuilder("T")
                                                                .set("K")
                                                                .to(1)
                                                                .set("X")
                                                                .to(2)
                                                                .build())))
                .isInstanceOfSatisfying(
                        SpannerException.class,
                        e -> {
                            assertThat(e.getErrorCode()).isEqualTo(ErrorCode.NOT_FOUND);
                            assertThat(e.getMessage()).contains("Column not found in table T: X");
                        });
        assertThat(emulator.database().groundTruth()).isEmpty();
    }
}
