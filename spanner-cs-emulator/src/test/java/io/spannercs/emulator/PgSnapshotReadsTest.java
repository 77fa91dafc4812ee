package io.spannercs.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.BatchReadOnlyTransaction;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.KeyRange;
import com.google.cloud.spanner.KeySet;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Options;
import com.google.cloud.spanner.Partition;
import com.google.cloud.spanner.PartitionOptions;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.TimestampBound;
import io.grpc.Status;
import io.spannercs.emulator.schema.Dialect;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.Rows;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Snapshot reads and the tracked tables' metadata in a PostgreSQL-dialect database. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgSnapshotReadsTest {
    private static final String DDL =
            "CREATE TABLE c (b varchar NOT NULL, v bigint, a bigint NOT NULL, w bool,"
                    + " PRIMARY KEY (a, b));\n"
                    + "CREATE TABLE t (k bigint PRIMARY KEY, v varchar, x varchar);\n"
                    + "CREATE CHANGE STREAM s_all FOR ALL;\n"
                    + "CREATE CHANGE STREAM s_cols FOR t(v), c;\n"
                    + "CREATE CHANGE STREAM s_keys FOR c();\n";

    private SpannerEmulator emulator;
    private EmulatorClients clients;
    private DatabaseClient client;
    private Timestamp written;

    @BeforeAll
    void start() {
        emulator = SpannerEmulator.builder().dialect(Dialect.POSTGRESQL).ddl(DDL).start();
        clients = new EmulatorClients(emulator);
        client = clients.client();
        List<Mutation> ms = new ArrayList<>();
        for (int a = 1; a <= 3; a++) {
            for (String b : List.of("x", "y", "z")) {
                ms.add(
                        Mutation.newInsertBuilder("c")
                                .set("a")
                                .to(a)
                                .set("b")
                                .to(b)
                                .set("v")
                                .to(a * 10)
                                .set("w")
                                .to(a % 2 == 0)
                                .build());
            }
        }
        for (int k = 1; k <= 30; k++) {
            ms.add(Mutation.newInsertBuilder("t").set("k").to(k).set("v").to("v" + k).build());
        }
        written = client.write(ms);
    }

    @AfterAll
    void stop() {
        clients.close();
        emulator.close();
    }

    private List<String> read(
            String table, KeySet keys, List<String> cols, Options.ReadOption... o) {
        try (ResultSet rs = client.singleUse().read(table, keys, cols, o)) {
            return Rows.of(rs);
        }
    }

    private List<String> query(String sql) {
        try (ResultSet rs = client.singleUse().executeQuery(Statement.of(sql))) {
            return Rows.of(rs);
        }
    }

    @Test
    void readsRangesInKeyOrderWithLimits() {
        List<String> cols = List.of("a", "b", "v");
        assertThat(read("c", KeySet.range(KeyRange.closedClosed(Key.of(2), Key.of(2))), cols))
                .containsExactly("2|x|20", "2|y|20", "2|z|20");
        assertThat(read("c", KeySet.range(KeyRange.openOpen(Key.of(1, "y"), Key.of(3, "y"))), cols))
                .containsExactly("1|z|10", "2|x|20", "2|y|20", "2|z|20", "3|x|30");
        assertThat(read("c", KeySet.all(), cols, Options.limit(2)))
                .containsExactly("1|x|10", "1|y|10");
        assertThatThrownBy(() -> read("c", KeySet.all(), List.of("nope")))
                .isInstanceOfSatisfying(
                        SpannerException.class,
                        e -> {
                            assertThat(e.getErrorCode()).isEqualTo(ErrorCode.NOT_FOUND);
                            assertThat(e.getMessage())
                                    .contains("Column not found in table c: nope");
                        });
    }

    @Test
    void resumesAfterAnInjectedFailure() {
        List<String> expected = read("t", KeySet.all(), List.of("k", "v"));
        assertThat(expected).hasSizeGreaterThan(20);
        emulator.faults().failReadAfterRows("t", 11, Status.Code.UNAVAILABLE, 2);
        assertThat(read("t", KeySet.all(), List.of("k", "v"))).isEqualTo(expected);
        emulator.faults().failReadAfterRows("t", 5, Status.Code.UNAVAILABLE, 1);
        assertThat(query("SELECT k, v FROM t")).isEqualTo(expected);
        assertThat(emulator.faults().readFailureFor("t", 1000)).isNull();
    }

    @Test
    void partitionsAtATimestampCoverTheTable() throws Exception {
        client.write(List.of(Mutation.delete("t", Key.of(1))));
        BatchReadOnlyTransaction txn =
                clients.spanner()
                        .getBatchClient(dbId())
                        .batchReadOnlyTransaction(TimestampBound.ofReadTimestamp(written));
        List<String> expected =
                Rows.ofCanonical(
                        emulator.database()
                                .rowsAt(
                                        "t",
                                        Instant.ofEpochSecond(
                                                written.getSeconds(), written.getNanos())));
        assertThat(expected).hasSize(30).first().isEqualTo("1|v1|NULL");
        List<String> got = new ArrayList<>();
        for (Partition p :
                txn.partitionRead(
                        PartitionOptions.newBuilder().setMaxPartitions(4).build(),
                        "t",
                        KeySet.all(),
                        List.of("k", "v", "x"))) {
            got.addAll(Rows.of(txn.execute(p)));
        }
        assertThat(got).isEqualTo(expected);
        got.clear();
        Statement q = Statement.newBuilder("SELECT k, v, x FROM t WHERE x IS NULL").build();
        assertThatThrownBy(() -> txn.partitionQuery(PartitionOptions.getDefaultInstance(), q))
                .isInstanceOf(SpannerException.class)
                .hasMessageContaining("not root partitionable");
        for (Partition p :
                txn.partitionQuery(
                        PartitionOptions.newBuilder().setMaxPartitions(3).build(),
                        Statement.newBuilder("SELECT k FROM t WHERE v = $1")
                                .bind("p1")
                                .to("v7")
                                .build())) {
            got.addAll(Rows.of(txn.execute(p)));
        }
        assertThat(got).containsExactly("7");
        txn.close();
    }

    @Test
    void tooOldReadsFail() {
        Timestamp old = Timestamp.ofTimeSecondsAndNanos(Instant.now().getEpochSecond() - 7200, 0);
        assertThatThrownBy(
                        () ->
                                Rows.of(
                                        client.singleUse(TimestampBound.ofReadTimestamp(old))
                                                .read("t", KeySet.all(), List.of("k"))))
                .isInstanceOfSatisfying(
                        SpannerException.class,
                        e -> {
                            assertThat(e.getErrorCode()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
                            assertThat(e.getMessage())
                                    .contains("has exceeded the maximum timestamp staleness");
                        });
    }

    @Test
    void informationSchemaNamesTheTrackedTablesColumnsAndKeys() {
        assertThat(
                        query(
                                "SELECT change_stream_name, \"all\" FROM information_schema.change_streams"))
                .containsExactlyInAnyOrder("s_all|YES", "s_cols|NO", "s_keys|NO");
        assertThat(
                        query(
                                "SELECT change_stream_name, table_name, all_columns FROM"
                                        + " information_schema.change_stream_tables"))
                .containsExactlyInAnyOrder("s_cols|t|NO", "s_cols|c|YES", "s_keys|c|NO");
        assertThat(
                        query(
                                "SELECT change_stream_name, table_name, column_name FROM"
                                        + " information_schema.change_stream_columns"))
                .containsExactly("s_cols|t|v");
        assertThat(
                        query(
                                "SELECT column_name, ordinal_position, spanner_type FROM"
                                        + " information_schema.index_columns WHERE table_name = 'c'"
                                        + " AND index_type = 'PRIMARY_KEY'"))
                .containsExactly("a|1|bigint", "b|2|character varying");
        assertThat(
                        query(
                                "SELECT constraint_name, column_name, ordinal_position FROM"
                                        + " information_schema.key_column_usage WHERE table_name ="
                                        + " 'c'"))
                .containsExactly("PK_c|a|1", "PK_c|b|2");
        assertThat(
                        query(
                                "SELECT column_name, ordinal_position FROM information_schema.columns"
                                        + " WHERE table_name = 'c'"))
                .containsExactly("b|1", "v|2", "a|3", "w|4");
    }

    private DatabaseId dbId() {
        return DatabaseId.of(emulator.projectId(), emulator.instanceId(), emulator.databaseId());
    }
}
