package io.spannercs.flink.table;

import io.spannercs.emulator.EdgeCase;
import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.workload.WorkloadConfig;
import io.spannercs.emulator.workload.WorkloadGenerator;
import io.spannercs.flink.testing.JobOutcome;
import java.time.Duration;
import java.time.Instant;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SQL jobs over a {@code spanner-cdc} table fail once, naming the SQL option, where a restart
 * cannot help, with a restart strategy that would restart them forever (names are checked earlier,
 * at planning: {@link SpannerCdcPlanningITCase}).
 */
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class SpannerCdcNonRecoverableITCase {
    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = SqlTests.cluster();

    private static JobOutcome run(MiniCluster cluster, String tableOptions) throws Exception {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(JobOutcome.restartingForever());
        env.enableCheckpointing(200);
        StreamTableEnvironment tEnv = SqlTests.tableEnv(env);
        tEnv.executeSql("CREATE TABLE orders " + SpannerCdcSqlITCase.ORDERS_COLUMNS + tableOptions);
        tEnv.executeSql(
                "CREATE TABLE sink (OrderId BIGINT, Customer STRING) WITH ('connector' ="
                        + " 'blackhole')");
        long t0 = System.nanoTime();
        JobClient job =
                tEnv.executeSql("INSERT INTO sink SELECT OrderId, Customer FROM orders")
                        .getJobClient()
                        .orElseThrow();
        return JobOutcome.await(cluster, job, t0);
    }

    @Test
    void aStartOutsideRetentionFailsOnceNamingTheOption(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        try (SpannerEmulator emulator =
                SpannerEmulator.builder().ddl(SpannerCdcSqlITCase.DDL).start()) {
            Instant now = Instant.now();
            run(
                            cluster,
                            SqlTests.with(
                                    emulator,
                                    "full_cs",
                                    "Orders",
                                    now.minus(Duration.ofHours(1)),
                                    now.plusSeconds(5),
                                    ""))
                    .assertFailedOnceWith(
                            "OUT_OF_RANGE",
                            "Specified start_timestamp is too far in the past",
                            "full_cs",
                            "SQL option 'scan.startup.timestamp'");
        }
    }

    /** A SQL changelog cannot represent a mod type the connector does not know, even with raw. */
    @Test
    void anUnknownModTypeFailsOnce(@InjectMiniCluster MiniCluster cluster) throws Exception {
        try (SpannerEmulator emulator =
                SpannerEmulator.builder()
                        .ddl(SpannerCdcSqlITCase.DDL)
                        .edgeCases(EdgeCases.of(EdgeCase.UNKNOWN_TYPES))
                        .seed(17)
                        .start()) {
            WorkloadGenerator workload =
                    new WorkloadGenerator(
                            emulator.database(),
                            WorkloadConfig.builder()
                                    .tables("Orders")
                                    .rowsPerTransaction(1, 3)
                                    .seed(5)
                                    .build());
            Instant start = Instant.now();
            workload.runTransactions(400); // about one in 40 has an unknown mod type
            Instant end = Instant.now();
            run(
                            cluster,
                            SqlTests.with(
                                    emulator,
                                    "full_cs",
                                    "Orders",
                                    start,
                                    end,
                                    ", 'scan.unknown-values' = 'raw'"))
                    .assertFailedOnceWith(
                            "Change of table Orders",
                            "which this connector does not know and a SQL changelog cannot"
                                    + " represent");
        }
    }
}
