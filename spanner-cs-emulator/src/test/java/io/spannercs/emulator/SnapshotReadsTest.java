package io.spannercs.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.ByteArray;
import com.google.cloud.Date;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.BatchClient;
import com.google.cloud.spanner.BatchReadOnlyTransaction;
import com.google.cloud.spanner.BatchTransactionId;
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
import com.google.cloud.spanner.ReadOnlyTransaction;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.Struct;
import com.google.cloud.spanner.TimestampBound;
import com.google.cloud.spanner.Value;
import io.grpc.Status;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.emulator.storage.RowChange;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.Rows;
import io.spannercs.emulator.workload.WorkloadConfig;
import io.spannercs.emulator.workload.WorkloadGenerator;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Snapshot reads through the official client (GoogleSQL): the Read API over key ranges, limits,
 * resumed streams, read-only transactions at a timestamp, BatchClient partitions and transaction
 * ids, and consistency with the ground truth while a workload writes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SnapshotReadsTest {
    private static final String DDL =
            "CREATE TABLE C (A INT64 NOT NULL, B STRING(MAX) NOT NULL, V INT64) PRIMARY KEY (A, B);\n"
                    + "CREATE TABLE N (K1 INT64, K2 STRING(MAX), V STRING(MAX)) PRIMARY KEY (K1, K2);\n"
                    + "CREATE TABLE Typed (Id INT64 NOT NULL, B BOOL, F FLOAT64, F32 FLOAT32,"
                    + " Num NUMERIC, S STRING(MAX), Byt BYTES(MAX), D DATE, Ts TIMESTAMP, J JSON,"
                    + " AI ARRAY<INT64>, AS ARRAY<STRING(MAX)>, AF ARRAY<FLOAT64>) PRIMARY KEY (Id);\n"
                    + "CREATE TABLE Acc (Id INT64 NOT NULL, Owner STRING(MAX), Balance INT64,"
                    + " Active BOOL) PRIMARY KEY (Id);\n"
                    + "CREATE TABLE D (G INT64 NOT NULL, Ts INT64 NOT NULL, V STRING(MAX))"
                    + " PRIMARY KEY (G, Ts DESC);\n"
                    + "CREATE CHANGE STREAM s FOR ALL;\n";

    private SpannerEmulator emulator;
    private EmulatorClients clients;
    private DatabaseClient client;
    private Timestamp written;

    @BeforeAll
    void start() {
        emulator = SpannerEmulator.builder().ddl(DDL).start();
        clients = new EmulatorClients(emulator);
        client = clients.client();
        List<Mutation> ms = new ArrayList<>();
        for (int a = 1; a <= 3; a++) {
            for (String b : List.of("x", "y", "z")) {
                ms.add(
                        Mutation.newInsertBuilder("C")
                                .set("A")
                                .to(a)
                                .set("B")
                                .to(b)
                                .set("V")
                                .to(a * 10)
                                .build());
            }
        }
        ms.add(nRow(null, null, "null-null"));
        ms.add(nRow(null, "b", "null-b"));
        ms.add(nRow(1L, null, "1-null"));
        ms.add(nRow(1L, "a", "1-a"));
        for (int g = 1; g <= 2; g++) {
            for (int ts : new int[] {10, 30, 20}) {
                ms.add(
                        Mutation.newInsertBuilder("D")
                                .set("G")
                                .to(g)
                                .set("Ts")
                                .to(ts)
                                .set("V")
                                .to(g + "@" + ts)
                                .build());
            }
        }
        written = client.write(ms);
    }

    private static Mutation nRow(Long k1, String k2, String v) {
        return Mutation.newInsertBuilder("N")
                .set("K1")
                .to(k1)
                .set("K2")
                .to(k2)
                .set("V")
                .to(v)
                .build();
    }

    @AfterAll
    void stop() {
        clients.close();
        emulator.close();
    }

    private List<String> readC(KeySet keys, Options.ReadOption... options) {
        try (ResultSet rs = client.singleUse().read("C", keys, List.of("A", "B", "V"), options)) {
            return Rows.of(rs);
        }
    }

    @Test
    void readsKeysAndRangesInKeyOrder() {
        assertThat(readC(KeySet.all()))
                .containsExactly(
                        "1|x|10", "1|y|10", "1|z|10", "2|x|20", "2|y|20", "2|z|20", "3|x|30",
                        "3|y|30", "3|z|30");
        assertThat(readC(KeySet.singleKey(Key.of(2, "y")))).containsExactly("2|y|20");
        assertThat(readC(KeySet.singleKey(Key.of(2, "nope")))).isEmpty();
        // Keys come back in key order, once, whatever order they are named in.
        assertThat(
                        readC(
                                KeySet.newBuilder()
                                        .addKey(Key.of(3, "z"))
                                        .addKey(Key.of(1, "x"))
                                        .addKey(Key.of(3, "z"))
                                        .build()))
                .containsExactly("1|x|10", "3|z|30");
    }

    @Test
    void prefixRangesCoverEveryKeyWithThePrefix() {
        assertThat(readC(KeySet.range(KeyRange.closedClosed(Key.of(2), Key.of(2)))))
                .containsExactly("2|x|20", "2|y|20", "2|z|20");
        assertThat(readC(KeySet.range(KeyRange.openClosed(Key.of(1), Key.of(2)))))
                .containsExactly("2|x|20", "2|y|20", "2|z|20");
        assertThat(readC(KeySet.range(KeyRange.closedOpen(Key.of(2, "y"), Key.of(3, "y")))))
                .containsExactly("2|y|20", "2|z|20", "3|x|30");
        assertThat(readC(KeySet.range(KeyRange.openOpen(Key.of(1, "z"), Key.of(3)))))
                .containsExactly("2|x|20", "2|y|20", "2|z|20");
        // An empty closed bound is the whole key space; an empty open end excludes every key.
        assertThat(readC(KeySet.range(KeyRange.closedClosed(Key.of(), Key.of())))).hasSize(9);
        assertThat(readC(KeySet.range(KeyRange.closedOpen(Key.of(), Key.of(2)))))
                .containsExactly("1|x|10", "1|y|10", "1|z|10");
        assertThat(readC(KeySet.range(KeyRange.openOpen(Key.of(2), Key.of())))).isEmpty();
        assertThat(readC(KeySet.range(KeyRange.closedClosed(Key.of(3), Key.of(1))))).isEmpty();
        // Overlapping ranges and keys: each row once, in key order.
        assertThat(
                        readC(
                                KeySet.newBuilder()
                                        .addRange(KeyRange.closedClosed(Key.of(2), Key.of(3, "x")))
                                        .addRange(KeyRange.closedClosed(Key.of(1, "z"), Key.of(2)))
                                        .addKey(Key.of(2, "y"))
                                        .build()))
                .containsExactly("1|z|10", "2|x|20", "2|y|20", "2|z|20", "3|x|30");
    }

    @Test
    void descendingKeyColumnsSortAndBoundRangesInKeyOrder() {
        List<String> cols = List.of("G", "Ts", "V");
        try (ResultSet rs = client.singleUse().read("D", KeySet.all(), cols)) {
            assertThat(Rows.of(rs))
                    .containsExactly(
                            "1|30|1@30",
                            "1|20|1@20",
                            "1|10|1@10",
                            "2|30|2@30",
                            "2|20|2@20",
                            "2|10|2@10");
        }
        // A range runs in key order: from Ts 30 down to (excluding) Ts 10.
        try (ResultSet rs =
                client.singleUse()
                        .read(
                                "D",
                                KeySet.range(KeyRange.closedOpen(Key.of(1, 30), Key.of(1, 10))),
                                cols)) {
            assertThat(Rows.of(rs)).containsExactly("1|30|1@30", "1|20|1@20");
        }
        try (ResultSet rs = client.singleUse().read("D", KeySet.all(), cols, Options.limit(2))) {
            assertThat(Rows.of(rs)).containsExactly("1|30|1@30", "1|20|1@20");
        }
        try (ResultSet rs =
                client.singleUse()
                        .executeQuery(
                                Statement.of(
                                        "SELECT COLUMN_NAME, COLUMN_ORDERING FROM"
                                                + " information_schema.index_columns WHERE"
                                                + " TABLE_NAME = 'D'"))) {
            assertThat(Rows.of(rs)).containsExactly("G|ASC", "Ts|DESC");
        }
    }

    @Test
    void limitTakesTheFirstRowsInKeyOrder() {
        assertThat(readC(KeySet.all(), Options.limit(4)))
                .containsExactly("1|x|10", "1|y|10", "1|z|10", "2|x|20");
        assertThat(
                        readC(
                                KeySet.newBuilder()
                                        .addKey(Key.of(3, "z"))
                                        .addKey(Key.of(2, "x"))
                                        .addKey(Key.of(1, "x"))
                                        .build(),
                                Options.limit(2)))
                .containsExactly("1|x|10", "2|x|20");
    }

    @Test
    void nullKeyPartsSortFirstAndMatchOnlyNull() {
        try (ResultSet rs = client.singleUse().read("N", KeySet.all(), List.of("K1", "K2", "V"))) {
            assertThat(Rows.of(rs))
                    .containsExactly(
                            "NULL|NULL|null-null", "NULL|b|null-b", "1|NULL|1-null", "1|a|1-a");
        }
        try (ResultSet rs =
                client.singleUse().read("N", KeySet.singleKey(Key.of(null, "b")), List.of("V"))) {
            assertThat(Rows.of(rs)).containsExactly("null-b");
        }
        try (ResultSet rs =
                client.singleUse()
                        .read(
                                "N",
                                KeySet.range(KeyRange.closedClosed(Key.of(1), Key.of(1))),
                                List.of("V"))) {
            assertThat(Rows.of(rs)).containsExactly("1-null", "1-a");
        }
        try (ResultSet rs =
                client.singleUse().read("C", KeySet.singleKey(Key.of(null, "x")), List.of("V"))) {
            assertThat(Rows.of(rs)).isEmpty();
        }
    }

    @Test
    void readsEveryColumnTypeAsQueriesDo() {
        client.write(
                List.of(
                        Mutation.newInsertBuilder("Typed")
                                .set("Id")
                                .to(1)
                                .set("B")
                                .to(true)
                                .set("F")
                                .to(Double.NaN)
                                .set("F32")
                                .to(1.5f)
                                .set("Num")
                                .to(new BigDecimal("12.50"))
                                .set("S")
                                .to("text")
                                .set("Byt")
                                .to(ByteArray.copyFrom(new byte[] {0, 1, (byte) 255}))
                                .set("D")
                                .to(Date.fromYearMonthDay(2024, 2, 29))
                                .set("Ts")
                                .to(Timestamp.parseTimestamp("2024-01-01T10:00:00.123456Z"))
                                .set("J")
                                .to(Value.json("{\"b\":1,\"a\":[1,2]}"))
                                .set("AI")
                                .toInt64Array(new long[] {3, 1, 2})
                                .set("AS")
                                .toStringArray(java.util.Arrays.asList("a", null, "c"))
                                .set("AF")
                                .toFloat64Array(new double[] {Double.POSITIVE_INFINITY, -0.5})
                                .build(),
                        Mutation.newInsertBuilder("Typed").set("Id").to(2).build()));
        List<String> columns =
                List.of("Id", "B", "F", "F32", "Num", "S", "Byt", "D", "Ts", "J", "AI", "AS", "AF");
        List<Struct> viaRead = new ArrayList<>();
        try (ResultSet rs = client.singleUse().read("Typed", KeySet.all(), columns)) {
            while (rs.next()) {
                viaRead.add(rs.getCurrentRowAsStruct());
            }
        }
        List<Struct> viaQuery = new ArrayList<>();
        try (ResultSet rs =
                client.singleUse()
                        .executeQuery(
                                Statement.of(
                                        "SELECT " + String.join(", ", columns) + " FROM Typed"))) {
            while (rs.next()) {
                viaQuery.add(rs.getCurrentRowAsStruct());
            }
        }
        assertThat(viaRead).isEqualTo(viaQuery).hasSize(2);
        Struct first = viaRead.get(0);
        assertThat(first.getDouble("F")).isNaN();
        assertThat(first.getBigDecimal("Num")).isEqualByComparingTo("12.5");
        assertThat(first.getJson("J")).isEqualTo("{\"a\":[1,2],\"b\":1}");
        assertThat(first.getLongList("AI")).containsExactly(3L, 1L, 2L);
        assertThat(first.getStringList("AS")).containsExactly("a", null, "c");
        assertThat(first.getTimestamp("Ts"))
                .isEqualTo(Timestamp.parseTimestamp("2024-01-01T10:00:00.123456Z"));
        assertThat(viaRead.get(1).isNull("S")).isTrue();
    }

    @Test
    void unknownTablesAndColumnsAreNotFound() {
        assertThatThrownBy(() -> readAll("Nope", List.of("A")))
                .isInstanceOfSatisfying(
                        SpannerException.class,
                        e -> {
                            assertThat(e.getErrorCode()).isEqualTo(ErrorCode.NOT_FOUND);
                            assertThat(e.getMessage()).contains("Table not found: Nope");
                        });
        assertThatThrownBy(() -> readAll("C", List.of("A", "Nope")))
                .isInstanceOfSatisfying(
                        SpannerException.class,
                        e -> {
                            assertThat(e.getErrorCode()).isEqualTo(ErrorCode.NOT_FOUND);
                            assertThat(e.getMessage())
                                    .contains("Column not found in table C: Nope");
                        });
        // Names are matched ignoring case, as Spanner does.
        assertThat(readAll("c", List.of("a", "B"))).contains("1|x", "3|z");
    }

    @Test
    void keysWithTheWrongNumberOfPartsFailAsSpannerDoes() {
        assertThatThrownBy(() -> readC(KeySet.singleKey(Key.of(2))))
                .isInstanceOfSatisfying(
                        SpannerException.class,
                        e -> {
                            assertThat(e.getErrorCode()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
                            assertThat(e.getMessage())
                                    .contains(
                                            "Wrong number of key parts for C. Expected 2 key parts,"
                                                    + " found 1 key parts. Supplied key: values {"
                                                    + " string_value: \"2\" }");
                        });
        assertThatThrownBy(
                        () ->
                                readC(
                                        KeySet.range(
                                                KeyRange.closedClosed(
                                                        Key.of(1, "x", 3), Key.of(2)))))
                .isInstanceOf(SpannerException.class)
                .hasMessageContaining("Expected 2 key parts, found 3 key parts");
    }

    private List<String> readAll(String table, List<String> columns) {
        try (ResultSet rs = client.singleUse().read(table, KeySet.all(), columns)) {
            return Rows.of(rs);
        }
    }

    @Test
    void aHeldReadSendsNothingUntilReleased() throws Exception {
        List<String> expected = readC(KeySet.all());
        emulator.faults().holdReads("c"); // table names in any case
        java.util.concurrent.atomic.AtomicInteger rows =
                new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.CompletableFuture<List<String>> read =
                java.util.concurrent.CompletableFuture.supplyAsync(
                        () -> {
                            List<String> got = new ArrayList<>();
                            try (ResultSet rs =
                                    client.singleUse()
                                            .read("C", KeySet.all(), List.of("A", "B", "V"))) {
                                while (rs.next()) {
                                    rows.incrementAndGet();
                                    got.add(Rows.text(rs.getCurrentRowAsStruct()));
                                }
                            }
                            return got;
                        });
        Thread.sleep(300);
        assertThat(rows).as("rows of a held read").hasValue(0);
        assertThat(read).as("a held read does not end").isNotDone();
        assertThat(emulator.faults().isReadHeld("C")).isTrue();
        emulator.faults().releaseReads("C");
        assertThat(read.get(30, TimeUnit.SECONDS)).isEqualTo(expected);
        assertThat(emulator.faults().isReadHeld("C")).isFalse();
    }

    @Test
    void aReadResumesAfterAnInjectedFailureWithoutLossOrDuplicate() {
        List<String> expected = readC(KeySet.all());
        // UNAVAILABLE: the client resumes from the last resume token itself.
        emulator.faults().failReadAfterRows("C", 4, Status.Code.UNAVAILABLE, 2);
        assertThat(readC(KeySet.all())).isEqualTo(expected);
        assertThat(emulator.faults().readFailureFor("C", 1000)).as("both faults fired").isNull();
        emulator.faults().failReadAfterRows("C", 2, Status.Code.UNAVAILABLE, 3);
        try (ResultSet rs =
                client.singleUse().executeQuery(Statement.of("SELECT A, B, V FROM C"))) {
            assertThat(Rows.of(rs)).isEqualTo(expected);
        }
        assertThat(emulator.faults().readFailureFor("C", 1000)).as("all faults fired").isNull();
        // A limit counts the rows sent before the failure.
        emulator.faults().failReadAfterRows("C", 2, Status.Code.UNAVAILABLE, 1);
        assertThat(readC(KeySet.all(), Options.limit(5))).isEqualTo(expected.subList(0, 5));
        // A code the client does not retry reaches the application after the rows before it.
        emulator.faults().failReadAfterRows("C", 3, Status.Code.DEADLINE_EXCEEDED, 1);
        List<String> got = new ArrayList<>();
        assertThatThrownBy(
                        () -> {
                            try (ResultSet rs =
                                    client.singleUse()
                                            .read("C", KeySet.all(), List.of("A", "B", "V"))) {
                                while (rs.next()) {
                                    got.add(Rows.text(rs.getCurrentRowAsStruct()));
                                }
                            }
                        })
                .isInstanceOfSatisfying(
                        SpannerException.class,
                        e -> assertThat(e.getErrorCode()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED));
        assertThat(got).isEqualTo(expected.subList(0, 3));
        emulator.faults().clear();
    }

    @Test
    void aResumedStrongReadKeepsItsTimestamp() throws Exception {
        // The stream fails after 2 rows; a commit lands before the client resumes. The resumed
        // stream continues the same snapshot, so the new row does not appear.
        emulator.faults().setReadLatency("Acc", java.time.Duration.ofMillis(30));
        client.write(
                List.of(
                        acc(1000, "early", 1),
                        acc(1001, "early", 2),
                        acc(1002, "early", 3),
                        acc(1004, "early", 4)));
        emulator.faults().failReadAfterRows("Acc", 2, Status.Code.UNAVAILABLE, 1);
        List<String> got = new ArrayList<>();
        try (ResultSet rs =
                client.singleUse()
                        .read(
                                "Acc",
                                KeySet.range(KeyRange.closedClosed(Key.of(1000), Key.of(1010))),
                                List.of("Id", "Owner"))) {
            while (rs.next()) {
                got.add(Rows.text(rs.getCurrentRowAsStruct()));
                if (got.size() == 1) {
                    client.write(List.of(acc(1003, "late", 5)));
                }
            }
        } finally {
            emulator.faults().clear();
        }
        assertThat(got).containsExactly("1000|early", "1001|early", "1002|early", "1004|early");
    }

    private static Mutation acc(long id, String owner, long balance) {
        return Mutation.newInsertOrUpdateBuilder("Acc")
                .set("Id")
                .to(id)
                .set("Owner")
                .to(owner)
                .set("Balance")
                .to(balance)
                .set("Active")
                .to(true)
                .build();
    }

    @Test
    void readOnlyTransactionsReadAtTheirTimestamp() {
        Timestamp before = written;
        client.write(
                List.of(Mutation.newInsertBuilder("C").set("A").to(9).set("B").to("new").build()));
        try {
            try (ReadOnlyTransaction txn =
                    client.readOnlyTransaction(TimestampBound.ofReadTimestamp(before))) {
                try (ResultSet rs = txn.read("C", KeySet.all(), List.of("A"))) {
                    assertThat(Rows.of(rs)).hasSize(9);
                }
                assertThat(txn.getReadTimestamp()).isEqualTo(before);
                try (ResultSet rs =
                        txn.executeQuery(Statement.of("SELECT A FROM C WHERE B = 'new'"))) {
                    assertThat(Rows.of(rs)).isEmpty();
                }
            }
            try (ResultSet rs =
                    client.singleUse(TimestampBound.ofReadTimestamp(before))
                            .read("C", KeySet.singleKey(Key.of(9, "new")), List.of("A"))) {
                assertThat(Rows.of(rs)).isEmpty();
            }
            try (ResultSet rs =
                    client.singleUse()
                            .read("C", KeySet.singleKey(Key.of(9, "new")), List.of("A"))) {
                assertThat(Rows.of(rs)).containsExactly("9");
            }
        } finally {
            client.write(List.of(Mutation.delete("C", Key.of(9, "new"))));
        }
    }

    @Test
    void batchPartitionsCoverTheTableExactlyAndReopenElsewhere() throws Exception {
        List<Mutation> ms = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            ms.add(acc(2000 + i, "p" + i, i));
        }
        Timestamp t = client.write(ms);
        BatchClient batch = clients.spanner().getBatchClient(dbId());
        BatchReadOnlyTransaction txn =
                batch.batchReadOnlyTransaction(TimestampBound.ofReadTimestamp(t));
        assertThat(txn.getReadTimestamp()).isEqualTo(t);
        // Later writes are not in the snapshot.
        client.write(List.of(acc(2000, "changed", -1), Mutation.delete("Acc", Key.of(2001))));
        List<String> expected =
                Rows.ofCanonical(
                        emulator.database()
                                .rowsAt(
                                        "Acc",
                                        Instant.ofEpochSecond(t.getSeconds(), t.getNanos())));
        KeySet keys = KeySet.all();
        List<String> cols = List.of("Id", "Owner", "Balance", "Active");

        List<Partition> one =
                txn.partitionRead(
                        PartitionOptions.newBuilder().setMaxPartitions(1).build(),
                        "Acc",
                        keys,
                        cols);
        assertThat(one).hasSize(1);
        List<Partition> parts =
                txn.partitionRead(
                        PartitionOptions.newBuilder().setMaxPartitions(5).build(),
                        "Acc",
                        keys,
                        cols);
        assertThat(parts).hasSize(5);
        assertThat(union(txn, parts)).isEqualTo(expected);
        assertThat(
                        union(
                                txn,
                                txn.partitionRead(
                                        PartitionOptions.getDefaultInstance(), "Acc", keys, cols)))
                .isEqualTo(expected);

        // Another client re-opens the transaction by its id and reads the same snapshot.
        BatchTransactionId id = txn.getBatchTransactionId();
        try (EmulatorClients other = new EmulatorClients(emulator)) {
            BatchReadOnlyTransaction again =
                    other.spanner().getBatchClient(dbId()).batchReadOnlyTransaction(id);
            assertThat(again.getReadTimestamp()).isEqualTo(t);
            assertThat(union(again, parts)).isEqualTo(expected);
            try (ResultSet rs = again.read("Acc", keys, cols)) {
                assertThat(Rows.of(rs)).isEqualTo(expected);
            }
        }

        // Partitioned queries: the same rows, filters applied in each partition.
        List<Partition> queryParts =
                txn.partitionQuery(
                        PartitionOptions.newBuilder().setMaxPartitions(3).build(),
                        Statement.of("SELECT Id, Owner, Balance, Active FROM Acc"));
        assertThat(queryParts).hasSize(3);
        assertThat(union(txn, queryParts)).isEqualTo(expected);
        List<Partition> filtered =
                txn.partitionQuery(
                        PartitionOptions.getDefaultInstance(),
                        Statement.newBuilder("SELECT Id FROM Acc WHERE Owner = @o")
                                .bind("o")
                                .to("p7")
                                .build());
        assertThat(union(txn, filtered)).containsExactly("2007");
        txn.close();
    }

    /** The rows of every partition, each partition's in key order, sorted by key. */
    private static List<String> union(BatchReadOnlyTransaction txn, List<Partition> parts) {
        Map<Long, String> byKey = new TreeMap<>();
        for (Partition p : parts) {
            long last = Long.MIN_VALUE;
            try (ResultSet rs = txn.execute(p)) {
                while (rs.next()) {
                    long key = rs.getLong(0);
                    assertThat(key).as("rows of a partition in key order").isGreaterThan(last);
                    last = key;
                    assertThat(byKey.put(key, Rows.text(rs.getCurrentRowAsStruct())))
                            .as("row %s in one partition only", key)
                            .isNull();
                }
            }
        }
        return new ArrayList<>(byKey.values());
    }

    @Test
    void partitionTokensRefuseOrderByPrimaryKeyAndOtherRequests() {
        BatchReadOnlyTransaction txn =
                clients.spanner()
                        .getBatchClient(dbId())
                        .batchReadOnlyTransaction(TimestampBound.strong());
        List<Partition> ordered =
                txn.partitionRead(
                        PartitionOptions.getDefaultInstance(),
                        "C",
                        KeySet.all(),
                        List.of("A"),
                        Options.orderBy(Options.RpcOrderBy.PRIMARY_KEY));
        assertThatThrownBy(() -> Rows.of(txn.execute(ordered.get(0))))
                .isInstanceOfSatisfying(
                        SpannerException.class,
                        e -> {
                            assertThat(e.getErrorCode()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
                            assertThat(e.getMessage()).contains("ORDER_BY_PRIMARY_KEY");
                        });
        List<Partition> unordered =
                txn.partitionRead(
                        PartitionOptions.getDefaultInstance(),
                        "C",
                        KeySet.all(),
                        List.of("A"),
                        Options.orderBy(Options.RpcOrderBy.NO_ORDER));
        int rows = 0;
        for (Partition p : unordered) {
            rows += Rows.of(txn.execute(p)).size();
        }
        assertThat(rows).isEqualTo(9);
        assertThatThrownBy(
                        () ->
                                txn.partitionQuery(
                                        PartitionOptions.getDefaultInstance(),
                                        Statement.of("SELECT A FROM C ORDER BY A")))
                .isInstanceOfSatisfying(
                        SpannerException.class,
                        e -> {
                            assertThat(e.getErrorCode()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
                            assertThat(e.getMessage()).contains("not root partitionable");
                        });
        assertThatThrownBy(
                        () ->
                                txn.partitionRead(
                                        PartitionOptions.getDefaultInstance(),
                                        "Nope",
                                        KeySet.all(),
                                        List.of("A")))
                .isInstanceOfSatisfying(
                        SpannerException.class,
                        e -> assertThat(e.getErrorCode()).isEqualTo(ErrorCode.NOT_FOUND));
        txn.close();
    }

    @Test
    void snapshotsMatchTheGroundTruthWhileAWorkloadWrites() throws Exception {
        WorkloadGenerator workload =
                new WorkloadGenerator(
                        emulator.database(),
                        WorkloadConfig.builder()
                                .tables("Acc")
                                .keySpace(300)
                                .transactionsPerSecond(400)
                                .seed(7)
                                .build());
        workload.preload(100);
        workload.start();
        try {
            BatchClient batch = clients.spanner().getBatchClient(dbId());
            for (int i = 0; i < 5; i++) {
                Thread.sleep(150);
                Timestamp t =
                        Timestamp.ofTimeMicroseconds(
                                TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis()) - 2000);
                List<String> viaRead;
                try (ResultSet rs =
                        client.singleUse(TimestampBound.ofReadTimestamp(t))
                                .read(
                                        "Acc",
                                        KeySet.all(),
                                        List.of("Id", "Owner", "Balance", "Active"))) {
                    viaRead = Rows.of(rs);
                }
                List<String> expected =
                        Rows.ofCanonical(
                                emulator.database()
                                        .rowsAt(
                                                "Acc",
                                                Instant.ofEpochSecond(
                                                        t.getSeconds(), t.getNanos())));
                assertThat(viaRead).isEqualTo(expected).isNotEmpty();
                try (ResultSet rs =
                        client.singleUse(TimestampBound.ofReadTimestamp(t))
                                .executeQuery(
                                        Statement.of(
                                                "SELECT Id, Owner, Balance, Active FROM Acc"))) {
                    assertThat(Rows.of(rs)).isEqualTo(expected);
                }
                BatchReadOnlyTransaction txn =
                        batch.batchReadOnlyTransaction(TimestampBound.ofReadTimestamp(t));
                List<Partition> parts =
                        txn.partitionRead(
                                PartitionOptions.newBuilder().setMaxPartitions(4).build(),
                                "Acc",
                                KeySet.all(),
                                List.of("Id", "Owner", "Balance", "Active"));
                assertThat(union(txn, parts)).isEqualTo(expected);
                txn.close();
            }
        } finally {
            workload.stop();
        }
        assertThat(workload.stats().committedTransactions()).isGreaterThan(50);
    }

    @Test
    void readsAtSharedCommitTimestampsMatchTheFoldedGroundTruth() {
        try (SpannerEmulator shared =
                        SpannerEmulator.builder()
                                .ddl(DDL)
                                .seed(3)
                                .edgeCases(EdgeCases.of(EdgeCase.SHARED_TIMESTAMPS))
                                .start();
                EmulatorClients c = new EmulatorClients(shared)) {
            WorkloadGenerator workload =
                    new WorkloadGenerator(
                            shared.database(),
                            WorkloadConfig.builder()
                                    .tables("Acc")
                                    .keySpace(40)
                                    .mix(40, 40, 20)
                                    .seed(5)
                                    .build());
            workload.runTransactions(400);
            assertThat(shared.edgeCaseCounts().get(EdgeCase.SHARED_TIMESTAMPS)).isPositive();
            List<CommittedTransaction> truth = shared.database().groundTruth();
            Map<List<com.google.protobuf.Value>, List<com.google.protobuf.Value>> folded =
                    new LinkedHashMap<>();
            int checked = 0;
            for (int i = 0; i < truth.size(); i++) {
                CommittedTransaction txn = truth.get(i);
                for (RowChange ch : txn.changes()) {
                    if (ch.newRow() == null) {
                        folded.remove(ch.key());
                    } else {
                        folded.put(ch.key(), ch.newRow());
                    }
                }
                boolean lastAtTimestamp =
                        i + 1 == truth.size()
                                || truth.get(i + 1).commitMicros() != txn.commitMicros();
                boolean shares = i > 0 && truth.get(i - 1).commitMicros() == txn.commitMicros();
                if (!lastAtTimestamp || (!shares && i % 25 != 0)) {
                    continue;
                }
                List<List<com.google.protobuf.Value>> expectedRows =
                        new ArrayList<>(folded.values());
                expectedRows.sort(
                        (a, b) ->
                                Long.compare(
                                        Long.parseLong(a.get(0).getStringValue()),
                                        Long.parseLong(b.get(0).getStringValue())));
                List<String> expected = Rows.ofCanonical(expectedRows);
                assertThat(Rows.ofCanonical(shared.database().rowsAt("Acc", txn.commitMicros())))
                        .isEqualTo(expected);
                try (ResultSet rs =
                        c.client()
                                .singleUse(
                                        TimestampBound.ofReadTimestamp(
                                                Timestamp.ofTimeMicroseconds(txn.commitMicros())))
                                .read(
                                        "Acc",
                                        KeySet.all(),
                                        List.of("Id", "Owner", "Balance", "Active"))) {
                    assertThat(Rows.of(rs)).isEqualTo(expected);
                }
                checked++;
            }
            assertThat(checked).isGreaterThan(3);
        }
    }

    @Test
    void readsInTheFutureWaitForTheirTimestampAndSeeCommitsBeforeIt() throws Exception {
        Timestamp t =
                Timestamp.ofTimeMicroseconds(
                        TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis() + 1500));
        java.util.concurrent.CompletableFuture<List<String>> read =
                java.util.concurrent.CompletableFuture.supplyAsync(
                        () -> {
                            try (ResultSet rs =
                                    client.singleUse(TimestampBound.ofReadTimestamp(t))
                                            .read(
                                                    "Acc",
                                                    KeySet.singleKey(Key.of(5000)),
                                                    List.of("Owner"))) {
                                return Rows.of(rs);
                            }
                        });
        Thread.sleep(300);
        Timestamp commit = client.write(List.of(acc(5000, "before-T", 1)));
        assertThat(commit).isLessThan(t);
        List<String> got = read.get(10, TimeUnit.SECONDS);
        assertThat(got).containsExactly("before-T");
        assertThat(System.currentTimeMillis() * 1000)
                .isGreaterThanOrEqualTo(t.getSeconds() * 1_000_000 + t.getNanos() / 1000);
        // Commits after the read get later timestamps: the read stays repeatable.
        Timestamp after = client.write(List.of(acc(5000, "after-T", 2)));
        assertThat(after).isGreaterThan(t);
        try (ResultSet rs =
                client.singleUse(TimestampBound.ofReadTimestamp(t))
                        .read("Acc", KeySet.singleKey(Key.of(5000)), List.of("Owner"))) {
            assertThat(Rows.of(rs)).containsExactly("before-T");
        }
    }

    @Test
    void readsTooFarInThePastOrFutureFail() {
        Timestamp beforeCreation =
                Timestamp.ofTimeMicroseconds(
                        emulator.database().database().createdMicros() - 1_000);
        for (Runnable read :
                List.<Runnable>of(
                        () ->
                                Rows.of(
                                        client.singleUse(
                                                        TimestampBound.ofReadTimestamp(
                                                                beforeCreation))
                                                .read("C", KeySet.all(), List.of("A"))),
                        () ->
                                Rows.of(
                                        client.singleUse(
                                                        TimestampBound.ofReadTimestamp(
                                                                beforeCreation))
                                                .executeQuery(Statement.of("SELECT A FROM C"))),
                        () ->
                                Rows.of(
                                        client.singleUse(
                                                        TimestampBound.ofExactStaleness(
                                                                2, TimeUnit.HOURS))
                                                .read("C", KeySet.all(), List.of("A"))),
                        () -> {
                            // Beginning the transaction works (as in Google's emulator); its
                            // reads and partitions fail.
                            BatchReadOnlyTransaction txn =
                                    clients.spanner()
                                            .getBatchClient(dbId())
                                            .batchReadOnlyTransaction(
                                                    TimestampBound.ofReadTimestamp(beforeCreation));
                            txn.partitionRead(
                                    PartitionOptions.getDefaultInstance(),
                                    "C",
                                    KeySet.all(),
                                    List.of("A"));
                        })) {
            assertThatThrownBy(read::run)
                    .isInstanceOfSatisfying(
                            SpannerException.class,
                            e -> {
                                assertThat(e.getErrorCode())
                                        .isEqualTo(ErrorCode.FAILED_PRECONDITION);
                                assertThat(e.getMessage())
                                        .containsPattern(
                                                "Read-only transaction timestamp \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?\\+00:00 has exceeded the maximum timestamp staleness");
                            });
        }
        Timestamp farFuture =
                Timestamp.ofTimeSecondsAndNanos(Instant.now().getEpochSecond() + 7200, 0);
        assertThatThrownBy(
                        () ->
                                Rows.of(
                                        client.singleUse(TimestampBound.ofReadTimestamp(farFuture))
                                                .read("C", KeySet.all(), List.of("A"))))
                .isInstanceOfSatisfying(
                        SpannerException.class,
                        e -> {
                            assertThat(e.getErrorCode()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
                            assertThat(e.getMessage()).contains("is more than 1 hour in future");
                        });
    }

    @Test
    void groundTruthHelperIsExactForDeletes() {
        Timestamp inserted = client.write(List.of(acc(7000, "x", 1)));
        Timestamp deleted = client.write(List.of(Mutation.delete("Acc", Key.of(7000))));
        assertThat(
                        Rows.ofCanonical(
                                emulator.database()
                                        .rowsAt(
                                                "Acc",
                                                Instant.ofEpochSecond(
                                                        inserted.getSeconds(),
                                                        inserted.getNanos()))))
                .contains("7000|x|1|true");
        assertThat(
                        Rows.ofCanonical(
                                emulator.database()
                                        .rowsAt(
                                                "Acc",
                                                Instant.ofEpochSecond(
                                                        deleted.getSeconds(), deleted.getNanos()))))
                .noneMatch(r -> r.startsWith("7000|"));
    }

    private DatabaseId dbId() {
        return DatabaseId.of(emulator.projectId(), emulator.instanceId(), emulator.databaseId());
    }
}
