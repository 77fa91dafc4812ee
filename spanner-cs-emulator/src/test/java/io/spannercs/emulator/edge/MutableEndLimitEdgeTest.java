package io.spannercs.emulator.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.SpannerException;
import io.spannercs.emulator.EdgeCase;
import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.testing.ClientChangeStreamReader;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.ReadRecord;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * mutable-end-limit: a MUTABLE_KEY_RANGE query's end_timestamp must be at most 30 minutes after now
 * (server clock), not after start_timestamp.
 */
class MutableEndLimitEdgeTest {
    private static final long MINUTE = 60_000_000L;

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void theLimitIsNowPlus30Minutes(boolean edgeOn) throws Exception {
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(
                                        "CREATE TABLE T (K INT64 NOT NULL) PRIMARY KEY (K);\n"
                                                + "CREATE CHANGE STREAM Cs_mut FOR ALL OPTIONS"
                                                + " (partition_mode = 'MUTABLE_KEY_RANGE');")
                                .edgeCases(
                                        edgeOn
                                                ? EdgeCases.of(EdgeCase.MUTABLE_END_LIMIT)
                                                : EdgeCases.none())
                                .start();
                EmulatorClients clients = new EmulatorClients(emulator)) {
            ClientChangeStreamReader reader =
                    new ClientChangeStreamReader(clients.client(), "Cs_mut", true);
            long created = emulator.database().changeStream("Cs_mut").createdMicros();
            Thread.sleep(1500);
            long now = nowMicros();

            // A start in the past, a window longer than 30 minutes ending before now + 30 min.
            Timestamp pastStart = ts(created + 1);
            Timestamp endSoon = ts(now + 30 * MINUTE - 1_000_000);
            // A start in the future with a 30-minute window.
            Timestamp futureStart = ts(now + 2_000_000);
            Timestamp futureEnd = ts(now + 2_000_000 + 30 * MINUTE);

            if (edgeOn) {
                List<ReadRecord> root = reader.query(null, pastStart, endSoon);
                assertThat(root)
                        .singleElement()
                        .extracting(ReadRecord::kind)
                        .isEqualTo(ReadRecord.Kind.PARTITION_START);
                assertInvalid(
                        () -> reader.query(null, futureStart, futureEnd),
                        "end_timestamp must be at most 30 minutes after the current time for"
                                + " change stream Cs_mut");
                assertThat(emulator.edgeCaseCounts().get(EdgeCase.MUTABLE_END_LIMIT)).isEqualTo(2);
            } else {
                assertInvalid(
                        () -> reader.query(null, pastStart, endSoon),
                        "end_timestamp must be at most 30 minutes after start_timestamp for"
                                + " change stream Cs_mut");
                assertThat(reader.query(null, futureStart, futureEnd))
                        .singleElement()
                        .extracting(ReadRecord::kind)
                        .isEqualTo(ReadRecord.Kind.PARTITION_START);
                assertThat(emulator.edgeCaseCounts().get(EdgeCase.MUTABLE_END_LIMIT)).isZero();
            }
        }
    }

    private static void assertInvalid(Runnable query, String message) {
        assertThatThrownBy(query::run)
                .isInstanceOfSatisfying(
                        SpannerException.class,
                        e -> {
                            assertThat(e.getErrorCode()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
                            assertThat(e.getMessage()).contains(message);
                        });
    }

    private static long nowMicros() {
        java.time.Instant i = java.time.Instant.now();
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1000;
    }

    private static Timestamp ts(long micros) {
        return Timestamp.ofTimeMicroseconds(micros);
    }
}
