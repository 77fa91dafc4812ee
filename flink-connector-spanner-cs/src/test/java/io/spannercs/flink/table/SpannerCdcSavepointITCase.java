package io.spannercs.flink.table;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Spanner;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.flink.source.GroundTruth;
import io.spannercs.flink.testing.CommittedFiles;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A SQL job's upgrade: the same query over a churning change stream under live writes is stopped
 * with a savepoint at parallelism 2 and restored from it at parallelism 3, stopped again and
 * restored at parallelism 1 reading to an end timestamp. Its changelog (written by an exactly-once
 * file sink) holds every change of the ground truth once.
 */
@Timeout(value = 8, unit = java.util.concurrent.TimeUnit.MINUTES)
class SpannerCdcSavepointITCase {
    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = SqlTests.cluster();

    private static final int CHANGES_PER_PHASE = 60;

    @TempDir java.nio.file.Path dir;

    @Test
    void aSqlJobStopsWithASavepointAndRestoresAtOtherParallelisms() throws Exception {
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(SpannerCdcSqlITCase.DDL)
                                .initialPartitions(2)
                                .maxPartitions(5)
                                .churnInterval(Duration.ofMillis(300))
                                .seed(7)
                                .start();
                Spanner spanner = SqlTests.client(emulator)) {
            DatabaseClient db = SqlTests.db(spanner, emulator);
            Instant start = Instant.now();
            AtomicBoolean writing = new AtomicBoolean(true);
            Thread writer =
                    new Thread(
                            () -> {
                                for (int round = 0; writing.get(); round++) {
                                    SpannerCdcSqlITCase.writeOrders(db, emulator, 5, round);
                                }
                            });
            writer.start();
            Instant end;
            try {
                String savepoint = runUntilStopped(emulator, start, null, 2, 1);
                savepoint = runUntilStopped(emulator, start, savepoint, 3, 2);
                // Phase 3 reads what came after the second savepoint: the writer goes on until the
                // range holds changes for three phases, whatever the machine's pace (under load
                // the first two phases' lines, -U rows among them, were 174 changes in all).
                long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
                while (ordersChanges(emulator, start, Instant.now()).size()
                        <= 3 * CHANGES_PER_PHASE) {
                    assertThat(System.nanoTime()).as("changes written").isLessThan(deadline);
                    Thread.sleep(50);
                }
            } finally {
                writing.set(false);
                writer.join();
            }
            end = Instant.now();
            // The end timestamp is an option of the table: the restored job reads to it.
            StreamExecutionEnvironment env = CommittedFiles.environment(lastSavepoint, 1);
            query(env, emulator, start, end, 3);
            env.execute("phase 3");

            List<String> expected = ordersChanges(emulator, start, end);
            assertThat(expected).hasSizeGreaterThan(3 * CHANGES_PER_PHASE);
            assertThat(written())
                    .as("the changelog of three jobs: every change once")
                    .doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    private String lastSavepoint;

    private static List<String> ordersChanges(SpannerEmulator emulator, Instant from, Instant to) {
        return GroundTruth.expected(
                emulator.database(),
                "full_cs",
                SqlTests.micros(from),
                SqlTests.micros(to),
                (txn, change) -> change.table().name().equals("Orders"));
    }

    private String runUntilStopped(
            SpannerEmulator emulator, Instant start, String savepoint, int parallelism, int phase)
            throws Exception {
        StreamExecutionEnvironment env = CommittedFiles.environment(savepoint, parallelism);
        query(env, emulator, start, null, phase);
        JobClient job = env.executeAsync("phase " + phase);
        // A bound for a failure only: a loaded machine starts and restores jobs slowly.
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (lines("phase-" + phase).size() < CHANGES_PER_PHASE) {
            assertThat(job.getJobStatus().get().isGloballyTerminalState())
                    .as("phase %d running", phase)
                    .isFalse();
            assertThat(System.nanoTime())
                    .as("phase %d committed changes", phase)
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
        lastSavepoint =
                job.stopWithSavepoint(
                                false,
                                dir.resolve("savepoints").toUri().toString(),
                                SavepointFormatType.CANONICAL)
                        .get();
        return lastSavepoint;
    }

    /** The same query in every phase; only its end timestamp changes in the last. */
    private void query(
            StreamExecutionEnvironment env,
            SpannerEmulator emulator,
            Instant start,
            Instant end,
            int phase) {
        StreamTableEnvironment tEnv = SqlTests.tableEnv(env);
        String with = SqlTests.with(emulator, "full_cs", "Orders", start, end, "");
        if (end == null) {
            with = with.replace(", 'scan.end.timestamp' = 'null'", "");
        }
        tEnv.executeSql(
                "CREATE TABLE orders (OrderId BIGINT, Customer STRING, Amount DECIMAL(38, 9),"
                        + " txn STRING METADATA FROM 'server_transaction_id' VIRTUAL,"
                        + " change STRING METADATA FROM 'change_type' VIRTUAL)"
                        + with);
        tEnv.toChangelogStream(tEnv.sqlQuery("SELECT OrderId, txn, change FROM orders"))
                .map(SpannerCdcSavepointITCase::line)
                .sinkTo(CommittedFiles.sink(dir.resolve("phase-" + phase)))
                .uid("files");
    }

    /** The change a changelog row stands for ({@code -U} rows repeat their {@code +U}). */
    private static String line(Row r) {
        return r.getKind().shortString()
                + "\t"
                + GroundTruth.identity(
                        (String) r.getField(1),
                        "Orders",
                        (String) r.getField(2),
                        Map.of("OrderId", r.getField(0)));
    }

    private List<String> written() throws IOException {
        List<String> out = new ArrayList<>();
        for (int phase = 1; phase <= 3; phase++) {
            for (String l : lines("phase-" + phase)) {
                String[] parts = l.split("\t", 2);
                if (!parts[0].equals(RowKind.UPDATE_BEFORE.shortString())) {
                    out.add(parts[1]);
                }
            }
        }
        return out;
    }

    private List<String> lines(String name) throws IOException {
        return CommittedFiles.lines(dir.resolve(name));
    }
}
