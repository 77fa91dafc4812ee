package io.spannercs.emulator.edge;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.NoCredentials;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import com.google.cloud.spanner.Statement;
import io.spannercs.emulator.EdgeCase;
import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.testing.TestTimes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * stream-limit: at most 100 concurrent streams per gRPC connection; further streams wait in the
 * client's queue until one ends.
 */
class StreamLimitEdgeTest {
    private static final int QUERIES = 120;

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void streamsBeyondTheLimitWaitForAFreeSlot(boolean edgeOn) throws Exception {
        try (SpannerEmulator emulator =
                SpannerEmulator.builder()
                        .ddl(
                                "CREATE TABLE T (K INT64 NOT NULL) PRIMARY KEY (K);\n"
                                        + "CREATE CHANGE STREAM cs FOR ALL;")
                        .initialPartitions(1)
                        .threads(2)
                        .edgeCases(edgeOn ? EdgeCases.of(EdgeCase.STREAM_LIMIT) : EdgeCases.none())
                        .start()) {
            Spanner spanner =
                    SpannerOptions.newBuilder()
                            .setProjectId(emulator.projectId())
                            .setEmulatorHost(emulator.hostPort())
                            .setCredentials(NoCredentials.getInstance())
                            .setNumChannels(1)
                            .build()
                            .getService();
            ExecutorService pool = Executors.newFixedThreadPool(QUERIES);
            try {
                DatabaseClient client =
                        spanner.getDatabaseClient(
                                DatabaseId.of(
                                        emulator.projectId(),
                                        emulator.instanceId(),
                                        emulator.databaseId()));
                String token = emulator.database().changeStream("cs").liveTokens().get(0);
                Timestamp start = TestTimes.now();
                long windowMillis = 4000;
                Timestamp end =
                        Timestamp.ofTimeMicroseconds(
                                start.getSeconds() * 1_000_000L
                                        + start.getNanos() / 1000
                                        + windowMillis * 1000);
                long endNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(windowMillis);
                Statement statement =
                        Statement.newBuilder("SELECT ChangeRecord FROM READ_cs(@s, @e, @t, 100)")
                                .bind("s")
                                .to(start)
                                .bind("e")
                                .to(end)
                                .bind("t")
                                .to(token)
                                .build();
                List<Future<Long>> firstRows = new ArrayList<>();
                for (int i = 0; i < QUERIES; i++) {
                    firstRows.add(
                            pool.submit(
                                    () -> {
                                        Long first = null;
                                        try (ResultSet rs =
                                                client.singleUse().executeQuery(statement)) {
                                            while (rs.next()) {
                                                if (first == null) {
                                                    first = System.nanoTime();
                                                }
                                            }
                                        }
                                        return first == null ? Long.MAX_VALUE : first;
                                    }));
                }
                int servedInWindow = 0;
                for (Future<Long> f : firstRows) {
                    if (f.get(60, TimeUnit.SECONDS) < endNanos - 300_000_000L) {
                        servedInWindow++;
                    }
                }
                if (edgeOn) {
                    // Streams that got a row well before the window's end were open together.
                    assertThat(servedInWindow)
                            .isLessThanOrEqualTo(
                                    SpannerEmulator.MAX_CONCURRENT_STREAMS_PER_CONNECTION)
                            .isGreaterThan(50);
                    assertThat(emulator.edgeCaseCounts().get(EdgeCase.STREAM_LIMIT)).isPositive();
                } else {
                    assertThat(servedInWindow).isEqualTo(QUERIES);
                    assertThat(emulator.edgeCaseCounts().get(EdgeCase.STREAM_LIMIT)).isZero();
                }
            } finally {
                pool.shutdownNow();
                spanner.close();
            }
        }
    }
}
