package io.spannercs.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import com.google.spanner.v1.ChangeStreamRecord;
import io.grpc.Status;
import io.spannercs.emulator.testing.Await;
import io.spannercs.emulator.testing.ClientChangeStreamReader;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.ReadRecord;
import io.spannercs.emulator.testing.TestTimes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Live reads see rows as they commit, heartbeats keep time, and injected faults behave. */
class LiveReadAndFaultsTest {
    private SpannerEmulator emulator;
    private EmulatorClients clients;

    @BeforeEach
    void start() {
        emulator =
                SpannerEmulator.builder()
                        .ddl(
                                "CREATE TABLE T (K INT64 NOT NULL, V STRING(MAX)) PRIMARY KEY (K);\n"
                                        + "CREATE CHANGE STREAM legacy FOR ALL;\n"
                                        + "CREATE CHANGE STREAM mutable FOR ALL OPTIONS (partition_mode ="
                                        + " 'MUTABLE_KEY_RANGE');")
                        .initialPartitions(1)
                        .start();
        clients = new EmulatorClients(emulator);
    }

    @AfterEach
    void stop() {
        clients.close();
        emulator.close();
    }

    private void insert(long k) {
        clients.client()
                .write(
                        List.of(
                                Mutation.newInsertOrUpdateBuilder("T")
                                        .set("K")
                                        .to(k)
                                        .set("V")
                                        .to("v" + k)
                                        .build()));
    }

    private static Statement read(
            String stream, Timestamp start, Timestamp end, String token, long hb) {
        return Statement.newBuilder("SELECT ChangeRecord FROM READ_" + stream + "(@s, @e, @t, @h)")
                .bind("s")
                .to(start)
                .bind("e")
                .to(end)
                .bind("t")
                .to(token)
                .bind("h")
                .to(hb)
                .build();
    }

    @Test
    void liveQueryDeliversRowsPromptlyAndHeartbeatsAtTheInterval() throws Exception {
        String token = emulator.database().changeStream("mutable").liveTokens().get(0);
        Timestamp start = TestTimes.now();
        Timestamp end =
                Timestamp.ofTimeMicroseconds(start.toSqlTimestamp().getTime() * 1000 + 2_000_000);
        ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor();
        long[] committedAt = new long[1];
        writer.schedule(
                () -> {
                    insert(1);
                    committedAt[0] = System.nanoTime();
                },
                700,
                TimeUnit.MILLISECONDS);
        List<Long> heartbeats = new ArrayList<>();
        long dataArrived = 0;
        try (ResultSet rs =
                clients.client()
                        .singleUse()
                        .executeQuery(read("mutable", start, end, token, 100))) {
            while (rs.next()) {
                ChangeStreamRecord r =
                        rs.getProtoMessage(0, ChangeStreamRecord.getDefaultInstance());
                if (r.hasHeartbeatRecord()) {
                    heartbeats.add(
                            r.getHeartbeatRecord().getTimestamp().getSeconds() * 1_000_000L
                                    + r.getHeartbeatRecord().getTimestamp().getNanos() / 1000);
                } else if (r.hasDataChangeRecord()) {
                    dataArrived = System.nanoTime();
                }
            }
        } finally {
            writer.shutdownNow();
        }
        assertThat(dataArrived).as("data record received").isNotZero();
        assertThat(Duration.ofNanos(dataArrived - committedAt[0]))
                .isLessThan(Duration.ofMillis(300));
        assertThat(heartbeats).hasSizeBetween(10, 25);
        assertThat(heartbeats).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void clientResumesAfterInjectedUnavailableWithoutLossOrDuplicates() {
        Timestamp start = TestTimes.now();
        for (int i = 0; i < 20; i++) {
            insert(i);
        }
        Timestamp end = TestTimes.now();
        String token = emulator.database().changeStream("legacy").liveTokens().get(0);
        emulator.faults().failStreamAfterRows(token, 5, Status.Code.UNAVAILABLE, 2);
        List<ReadRecord> records =
                new ClientChangeStreamReader(clients.client(), "legacy", false)
                        .query(token, start, end);
        List<Long> keys = new ArrayList<>();
        for (ReadRecord r : records) {
            if (r.kind() == ReadRecord.Kind.DATA) {
                keys.add(Long.parseLong(r.data().mods().get(0).keys().get("K").getStringValue()));
            }
        }
        assertThat(keys).hasSize(20).doesNotHaveDuplicates().isSorted();
    }

    @Test
    void permanentStreamFailureReachesTheClient() {
        Timestamp start = TestTimes.now();
        insert(1);
        String token = emulator.database().changeStream("legacy").liveTokens().get(0);
        emulator.faults().failStreamAfterRows(token, 0, Status.Code.PERMISSION_DENIED, 1);
        assertThatThrownBy(
                        () ->
                                new ClientChangeStreamReader(clients.client(), "legacy", false)
                                        .query(token, start, TestTimes.now()))
                .isInstanceOfSatisfying(
                        SpannerException.class,
                        e -> assertThat(e.getErrorCode()).isEqualTo(ErrorCode.PERMISSION_DENIED));
    }

    @Test
    void latencySlowsOnlyTheChosenPartition() throws Exception {
        Timestamp start = TestTimes.now();
        for (int i = 0; i < 10; i++) {
            insert(i);
        }
        Timestamp end = TestTimes.now();
        String token = emulator.database().changeStream("legacy").liveTokens().get(0);
        emulator.faults().setLatency(token, Duration.ofMillis(50));
        long t0 = System.nanoTime();
        new ClientChangeStreamReader(clients.client(), "legacy", false).query(token, start, end);
        // A lower bound the emulator enforces: 10 rows, each at least 50 ms after the one before.
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThan(Duration.ofMillis(450));
        // With an hour per row on the chosen partition, a query of another ends at all only if
        // the latency stays with the chosen one (no time limit of ours to miss on a slow machine).
        emulator.faults().setLatency(token, Duration.ofHours(1));
        String other = emulator.database().changeStream("mutable").liveTokens().get(0);
        List<ReadRecord> records =
                java.util.concurrent.CompletableFuture.supplyAsync(
                                () ->
                                        new ClientChangeStreamReader(
                                                        clients.client(), "mutable", true)
                                                .query(other, start, end))
                        .get(60, TimeUnit.SECONDS);
        assertThat(records).filteredOn(r -> r.kind() == ReadRecord.Kind.DATA).hasSize(10);
    }

    @Test
    void aHeldPartitionSendsNothingUntilReleased() throws Exception {
        Timestamp start = TestTimes.now();
        for (int i = 0; i < 10; i++) {
            insert(i);
        }
        Timestamp end = TestTimes.now();
        String token = emulator.database().changeStream("legacy").liveTokens().get(0);
        emulator.faults().hold(token);
        java.util.concurrent.atomic.AtomicInteger rows =
                new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.CompletableFuture<Void> read =
                java.util.concurrent.CompletableFuture.runAsync(
                        () -> {
                            try (ResultSet rs =
                                    clients.client()
                                            .singleUse()
                                            .executeQuery(
                                                    read("legacy", start, end, token, 1000))) {
                                while (rs.next()) {
                                    rows.incrementAndGet();
                                }
                            }
                        });
        // The query reached the hold and found it still held on its next look: nothing was sent.
        Await.until(
                "the query to wait at the hold twice",
                Duration.ofSeconds(30),
                () -> emulator.faults().heldWaits(token) >= 2);
        assertThat(rows).as("rows of a held partition").hasValue(0);
        assertThat(read).as("a held query does not end").isNotDone();
        emulator.faults().release(token);
        read.get(30, TimeUnit.SECONDS);
        assertThat(rows.get()).as("rows after the release").isGreaterThanOrEqualTo(10);
    }

    @Test
    void rejectedCommitsApplyNothing() {
        emulator.faults().rejectCommits(1, Status.Code.FAILED_PRECONDITION);
        assertThatThrownBy(() -> insert(1)).isInstanceOf(SpannerException.class);
        assertThat(emulator.database().groundTruth()).isEmpty();
        insert(2);
        assertThat(emulator.database().groundTruth()).hasSize(1);
    }
}
