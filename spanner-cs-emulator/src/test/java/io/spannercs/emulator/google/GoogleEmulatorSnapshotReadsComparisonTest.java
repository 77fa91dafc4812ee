package io.spannercs.emulator.google;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.NoCredentials;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.BatchReadOnlyTransaction;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Dialect;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.KeyRange;
import com.google.cloud.spanner.KeySet;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Options;
import com.google.cloud.spanner.Partition;
import com.google.cloud.spanner.PartitionOptions;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.SpannerOptions;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.TimestampBound;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.GoogleSpannerEmulator;
import io.spannercs.emulator.testing.Rows;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Snapshot reads compared with Google's Cloud Spanner emulator, in both dialects: the same schema
 * and writes through the official client, then the Read API over keys, prefix ranges and limits
 * (rows and their order), its errors (codes and messages), reads past the retention period and in
 * the future, partitioned reads and queries (the union of the partitions), and the
 * information_schema views a snapshot reader uses.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GoogleEmulatorSnapshotReadsComparisonTest {
    private static final String PROJECT = "test-project";
    private static final String INSTANCE = "test-instance";

    private static final List<String> GSQL =
            List.of(
                    "CREATE TABLE C (B STRING(MAX) NOT NULL, V INT64, A INT64 NOT NULL, W BOOL)"
                            + " PRIMARY KEY (A, B)",
                    "CREATE TABLE N (K1 INT64, K2 STRING(MAX), V STRING(MAX)) PRIMARY KEY (K1, K2)",
                    "CREATE TABLE D (G INT64 NOT NULL, Ts INT64 NOT NULL, V STRING(MAX))"
                            + " PRIMARY KEY (G, Ts DESC)",
                    "CREATE CHANGE STREAM sAll FOR ALL",
                    "CREATE CHANGE STREAM sCols FOR C(V), N",
                    "CREATE CHANGE STREAM sKeys FOR C()");
    private static final List<String> PG =
            List.of(
                    "CREATE TABLE c (b varchar NOT NULL, v bigint, a bigint NOT NULL, w bool,"
                            + " PRIMARY KEY (a, b))",
                    "CREATE TABLE n (k1 bigint NOT NULL, k2 varchar NOT NULL, v varchar,"
                            + " PRIMARY KEY (k1, k2))",
                    "CREATE CHANGE STREAM sall FOR ALL",
                    "CREATE CHANGE STREAM scols FOR c(v), n",
                    "CREATE CHANGE STREAM skeys FOR c()");

    /** One side of the comparison: a database in Google's emulator or in ours. */
    private record Side(String name, DatabaseClient client, Spanner spanner, DatabaseId id) {}

    private GoogleSpannerEmulator google;
    private Spanner googleSpanner;
    private final Map<io.spannercs.emulator.schema.Dialect, SpannerEmulator> ours =
            new LinkedHashMap<>();
    private final List<EmulatorClients> ourClients = new ArrayList<>();
    private final Map<Dialect, List<Side>> sides = new LinkedHashMap<>();
    private final Map<Dialect, Timestamp> written = new LinkedHashMap<>();

    @BeforeAll
    void setUp() throws Exception {
        Optional<Path> gateway = GoogleSpannerEmulator.locate();
        if (gateway.isEmpty()) {
            String reason =
                    "Google's Cloud Spanner emulator (gateway_main) is not installed: set"
                            + " GOOGLE_SPANNER_EMULATOR or install the gcloud SDK component"
                            + " cloud-spanner-emulator to run this comparison";
            System.out.println("SKIPPED GoogleEmulatorSnapshotReadsComparisonTest: " + reason);
            Assumptions.abort(reason);
        }
        google = GoogleSpannerEmulator.start(gateway.get());
        googleSpanner =
                SpannerOptions.newBuilder()
                        .setProjectId(PROJECT)
                        .setEmulatorHost(google.hostPort())
                        .setCredentials(NoCredentials.getInstance())
                        .build()
                        .getService();
        DatabaseId gsqlId = DatabaseId.of(PROJECT, INSTANCE, "gsql-db");
        google.createDatabase(googleSpanner, gsqlId, GSQL);
        DatabaseId pgId = DatabaseId.of(PROJECT, INSTANCE, "pg-db");
        googleSpanner
                .getDatabaseAdminClient()
                .createDatabase(
                        googleSpanner
                                .getDatabaseAdminClient()
                                .newDatabaseBuilder(pgId)
                                .setDialect(Dialect.POSTGRESQL)
                                .build(),
                        List.of())
                .get(60, TimeUnit.SECONDS);
        googleSpanner
                .getDatabaseAdminClient()
                .updateDatabaseDdl(INSTANCE, "pg-db", PG, null)
                .get(60, TimeUnit.SECONDS);

        for (Dialect d : List.of(Dialect.GOOGLE_STANDARD_SQL, Dialect.POSTGRESQL)) {
            boolean pg = d == Dialect.POSTGRESQL;
            DatabaseId id = pg ? pgId : gsqlId;
            SpannerEmulator e =
                    SpannerEmulator.builder()
                            .projectId(PROJECT)
                            .instanceId(INSTANCE)
                            .databaseId(id.getDatabase())
                            .dialect(
                                    pg
                                            ? io.spannercs.emulator.schema.Dialect.POSTGRESQL
                                            : io.spannercs.emulator.schema.Dialect
                                                    .GOOGLE_STANDARD_SQL)
                            .ddl(String.join(";\n", pg ? PG : GSQL))
                            .start();
            ours.put(
                    pg
                            ? io.spannercs.emulator.schema.Dialect.POSTGRESQL
                            : io.spannercs.emulator.schema.Dialect.GOOGLE_STANDARD_SQL,
                    e);
            EmulatorClients c = new EmulatorClients(e);
            ourClients.add(c);
            List<Side> pair =
                    List.of(
                            new Side(
                                    "google",
                                    googleSpanner.getDatabaseClient(id),
                                    googleSpanner,
                                    id),
                            new Side("ours", c.client(), c.spanner(), id));
            sides.put(d, pair);
            for (Side s : pair) {
                written.put(d, write(s.client(), pg));
            }
        }
    }

    private static Timestamp write(DatabaseClient c, boolean pg) {
        String C = pg ? "c" : "C";
        String N = pg ? "n" : "N";
        List<Mutation> ms = new ArrayList<>();
        for (int a = 1; a <= 4; a++) {
            for (String b : List.of("x", "y", "z")) {
                ms.add(
                        Mutation.newInsertBuilder(C)
                                .set(pg ? "a" : "A")
                                .to(a)
                                .set(pg ? "b" : "B")
                                .to(b)
                                .set(pg ? "v" : "V")
                                .to(a * 10)
                                .set(pg ? "w" : "W")
                                .to(a % 2 == 0)
                                .build());
            }
        }
        for (int k = 1; k <= 3; k++) {
            for (String s : List.of("", "a", "b")) {
                ms.add(
                        Mutation.newInsertBuilder(N)
                                .set(pg ? "k1" : "K1")
                                .to(k)
                                .set(pg ? "k2" : "K2")
                                .to(s)
                                .set(pg ? "v" : "V")
                                .to(k + s)
                                .build());
            }
        }
        if (!pg) {
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
            // Strings sort by code point (UTF-8 bytes), not by UTF-16 unit: U+1F600 after U+E000.
            for (String k2 : List.of("\uE000", "\uD83D\uDE00", "z", "\u00E9")) {
                ms.add(
                        Mutation.newInsertBuilder("N")
                                .set("K1")
                                .to(9)
                                .set("K2")
                                .to(k2)
                                .set("V")
                                .to("s")
                                .build());
            }
            ms.add(
                    Mutation.newInsertBuilder("N")
                            .set("K1")
                            .to((Long) null)
                            .set("K2")
                            .to("n")
                            .set("V")
                            .to("null")
                            .build());
        }
        return c.write(ms);
    }

    @AfterAll
    void tearDown() {
        ourClients.forEach(EmulatorClients::close);
        ours.values().forEach(SpannerEmulator::close);
        if (googleSpanner != null) {
            googleSpanner.close();
        }
        if (google != null) {
            google.close();
        }
    }

    /** The answer of an operation on one side: its rows, or its error code and message. */
    private static String answer(Side s, Function<Side, List<String>> op) {
        try {
            return String.join(" / ", op.apply(s));
        } catch (SpannerException e) {
            return "ERROR " + codeAndMessage(e);
        }
    }

    /** {@code NOT_FOUND: Table not found: Nope}, without the client's wrapping and request id. */
    static String codeAndMessage(SpannerException e) {
        String m = e.getMessage();
        int i = m.lastIndexOf("StatusRuntimeException: ");
        if (i >= 0) {
            m = m.substring(i + "StatusRuntimeException: ".length());
        }
        int r = m.indexOf(" - RequestId");
        if (r >= 0) {
            m = m.substring(0, r);
        }
        int nl = m.indexOf('\n');
        return (nl >= 0 ? m.substring(0, nl) : m).trim();
    }

    private void assertSame(Dialect d, String what, Function<Side, List<String>> op) {
        List<Side> pair = sides.get(d);
        String g = answer(pair.get(0), op);
        String o = answer(pair.get(1), op);
        assertThat(o).as(what + " (" + d + ")").isEqualTo(g);
    }

    private static List<String> read(
            Side s, String table, KeySet keys, List<String> cols, Options.ReadOption... o) {
        try (ResultSet rs = s.client().singleUse().read(table, keys, cols, o)) {
            return Rows.of(rs);
        }
    }

    private static List<String> query(Side s, String sql) {
        try (ResultSet rs = s.client().singleUse().executeQuery(Statement.of(sql))) {
            return Rows.of(rs);
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = Dialect.class,
            names = {"GOOGLE_STANDARD_SQL", "POSTGRESQL"})
    void readsAnswerTheSameRowsInTheSameOrder(Dialect d) {
        boolean pg = d == Dialect.POSTGRESQL;
        String C = pg ? "c" : "C";
        String N = pg ? "n" : "N";
        List<String> cCols = pg ? List.of("a", "b", "v", "w") : List.of("A", "B", "V", "W");
        List<String> nCols = pg ? List.of("k1", "k2", "v") : List.of("K1", "K2", "V");
        Map<String, KeySet> keySets = new LinkedHashMap<>();
        keySets.put("all", KeySet.all());
        keySets.put("key", KeySet.singleKey(Key.of(2, "y")));
        keySets.put("missing key", KeySet.singleKey(Key.of(2, "q")));
        keySets.put(
                "keys out of order",
                KeySet.newBuilder()
                        .addKey(Key.of(4, "z"))
                        .addKey(Key.of(1, "x"))
                        .addKey(Key.of(4, "z"))
                        .build());
        keySets.put("prefix [2]..[3]", KeySet.range(KeyRange.closedClosed(Key.of(2), Key.of(3))));
        keySets.put("prefix (1)..(3)", KeySet.range(KeyRange.openOpen(Key.of(1), Key.of(3))));
        keySets.put(
                "[2,y]..(3,y)", KeySet.range(KeyRange.closedOpen(Key.of(2, "y"), Key.of(3, "y"))));
        keySets.put("(1,z]..[3]", KeySet.range(KeyRange.openClosed(Key.of(1, "z"), Key.of(3))));
        keySets.put("[]..[]", KeySet.range(KeyRange.closedClosed(Key.of(), Key.of())));
        keySets.put("[]..(2)", KeySet.range(KeyRange.closedOpen(Key.of(), Key.of(2))));
        keySets.put("(3)..()", KeySet.range(KeyRange.openOpen(Key.of(3), Key.of())));
        keySets.put("(3)..[]", KeySet.range(KeyRange.openClosed(Key.of(3), Key.of())));
        keySets.put("inverted", KeySet.range(KeyRange.closedClosed(Key.of(3), Key.of(1))));
        keySets.put(
                "overlapping",
                KeySet.newBuilder()
                        .addRange(KeyRange.closedClosed(Key.of(1), Key.of(2)))
                        .addRange(KeyRange.closedClosed(Key.of(2, "x"), Key.of(3, "x")))
                        .addKey(Key.of(1, "y"))
                        .build());
        keySets.put("wrong number of key parts", KeySet.singleKey(Key.of(2)));
        keySets.put(
                "too many key parts in a range",
                KeySet.range(KeyRange.closedClosed(Key.of(1, "x", 3), Key.of(2))));
        keySets.forEach(
                (name, keys) -> {
                    assertSame(d, "read " + name, s -> read(s, C, keys, cCols));
                    assertSame(
                            d,
                            "read " + name + " limit 4",
                            s -> read(s, C, keys, cCols, Options.limit(4)));
                });
        assertSame(d, "read N all", s -> read(s, N, KeySet.all(), nCols));
        assertSame(
                d,
                "read N prefix",
                s ->
                        read(
                                s,
                                N,
                                KeySet.range(KeyRange.closedOpen(Key.of(2, ""), Key.of(3, "a"))),
                                nCols));
        if (!pg) {
            assertSame(
                    d,
                    "read NULL key part",
                    s -> read(s, N, KeySet.singleKey(Key.of(null, "n")), nCols));
        }
        assertSame(d, "unknown table", s -> read(s, "Nope", KeySet.all(), cCols));
        assertSame(
                d, "unknown column", s -> read(s, C, KeySet.all(), List.of(cCols.get(0), "Nope")));
        assertSame(
                d,
                "names in another case",
                s -> read(s, C.toUpperCase(), KeySet.all(), List.of(cCols.get(1).toUpperCase())));
    }

    @ParameterizedTest
    @EnumSource(
            value = Dialect.class,
            names = {"GOOGLE_STANDARD_SQL", "POSTGRESQL"})
    void readsPastTheRetentionPeriodFailAlike(Dialect d) {
        String table = d == Dialect.POSTGRESQL ? "c" : "C";
        List<String> cols = List.of(d == Dialect.POSTGRESQL ? "a" : "A");
        Timestamp old = Timestamp.ofTimeSecondsAndNanos(Instant.now().getEpochSecond() - 7200, 0);
        if (d == Dialect.POSTGRESQL) {
            // Google's emulator resolves the schema at the read timestamp first: its PostgreSQL
            // tables were created after the database (UpdateDatabaseDdl), so there it answers
            // NOT_FOUND "Table not found" for any read before that. Its GoogleSQL tables were
            // created with the database. Only the transaction's begin compares.
            assertSame(
                    d,
                    "a batch transaction 2 hours ago begins",
                    s ->
                            List.of(
                                    s.spanner()
                                            .getBatchClient(s.id())
                                            .batchReadOnlyTransaction(
                                                    TimestampBound.ofReadTimestamp(old))
                                            .getReadTimestamp()
                                            .toString()));
            return;
        }
        {
            assertSame(
                    d,
                    "read 2 hours ago",
                    s ->
                            Rows.of(
                                    s.client()
                                            .singleUse(TimestampBound.ofReadTimestamp(old))
                                            .read(table, KeySet.all(), cols)));
            assertSame(
                    d,
                    "query 2 hours ago",
                    s ->
                            Rows.of(
                                    s.client()
                                            .singleUse(TimestampBound.ofReadTimestamp(old))
                                            .executeQuery(
                                                    Statement.of(
                                                            "SELECT "
                                                                    + cols.get(0)
                                                                    + " FROM "
                                                                    + table))));
        }
        assertSame(
                d,
                "exact staleness of 2 hours",
                s ->
                        List.of(
                                codeOf(
                                        () ->
                                                Rows.of(
                                                        s.client()
                                                                .singleUse(
                                                                        TimestampBound
                                                                                .ofExactStaleness(
                                                                                        2,
                                                                                        TimeUnit
                                                                                                .HOURS))
                                                                .read(
                                                                        table,
                                                                        KeySet.all(),
                                                                        cols)))));
        assertSame(
                d,
                "a batch transaction 2 hours ago begins; its read fails",
                s -> {
                    BatchReadOnlyTransaction txn =
                            s.spanner()
                                    .getBatchClient(s.id())
                                    .batchReadOnlyTransaction(TimestampBound.ofReadTimestamp(old));
                    return List.of(
                            txn.getReadTimestamp().toString(),
                            codeOf(() -> Rows.of(txn.read(table, KeySet.all(), cols))));
                });
    }

    private static String codeOf(Runnable r) {
        try {
            r.run();
            return "OK";
        } catch (SpannerException e) {
            return e.getErrorCode().name();
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = Dialect.class,
            names = {"GOOGLE_STANDARD_SQL", "POSTGRESQL"})
    void readsInTheFutureWaitForTheirTimestamp(Dialect d) {
        String table = d == Dialect.POSTGRESQL ? "c" : "C";
        List<String> cols = List.of(d == Dialect.POSTGRESQL ? "a" : "A");
        for (Side s : sides.get(d)) {
            Timestamp t =
                    Timestamp.ofTimeMicroseconds(
                            TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis() + 1500));
            long start = System.nanoTime();
            List<String> rows;
            try (ResultSet rs =
                    s.client()
                            .singleUse(TimestampBound.ofReadTimestamp(t))
                            .read(table, KeySet.all(), cols)) {
                rows = Rows.of(rs);
            }
            long tookMillis = (System.nanoTime() - start) / 1_000_000;
            assertThat(rows).as(s.name()).hasSize(12);
            assertThat(tookMillis).as(s.name() + " waited for the timestamp").isGreaterThan(1000);
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = Dialect.class,
            names = {"GOOGLE_STANDARD_SQL", "POSTGRESQL"})
    void partitionsOfAReadAndAQueryCoverTheSameRows(Dialect d) {
        boolean pg = d == Dialect.POSTGRESQL;
        String C = pg ? "c" : "C";
        List<String> cols = pg ? List.of("a", "b", "v", "w") : List.of("A", "B", "V", "W");
        Timestamp t = written.get(d);
        for (Function<BatchReadOnlyTransaction, List<Partition>> partitions :
                List.<Function<BatchReadOnlyTransaction, List<Partition>>>of(
                        txn ->
                                txn.partitionRead(
                                        PartitionOptions.newBuilder().setMaxPartitions(3).build(),
                                        C,
                                        KeySet.all(),
                                        cols),
                        txn ->
                                txn.partitionRead(
                                        PartitionOptions.getDefaultInstance(),
                                        C,
                                        KeySet.range(KeyRange.closedOpen(Key.of(2), Key.of(4))),
                                        cols),
                        txn ->
                                txn.partitionQuery(
                                        PartitionOptions.newBuilder().setMaxPartitions(2).build(),
                                        Statement.of(
                                                "SELECT "
                                                        + String.join(", ", cols)
                                                        + " FROM "
                                                        + C)))) {
            assertSame(
                    d,
                    "partitions' union",
                    s -> {
                        BatchReadOnlyTransaction txn =
                                s.spanner()
                                        .getBatchClient(s.id())
                                        .batchReadOnlyTransaction(
                                                TimestampBound.ofReadTimestamp(t));
                        TreeSet<String> union = new TreeSet<>();
                        int count = 0;
                        for (Partition p : partitions.apply(txn)) {
                            for (String row : Rows.of(txn.execute(p))) {
                                union.add(row);
                                count++;
                            }
                        }
                        txn.close();
                        List<String> out = new ArrayList<>(union);
                        out.add("rows=" + count);
                        return out;
                    });
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = Dialect.class,
            names = {"GOOGLE_STANDARD_SQL", "POSTGRESQL"})
    void informationSchemaAnswersAlike(Dialect d) {
        boolean pg = d == Dialect.POSTGRESQL;
        String schema = pg ? "'public'" : "''";
        for (String sql :
                List.of(
                        "SELECT change_stream_name, \"all\" FROM information_schema.change_streams",
                        "SELECT change_stream_name, table_name, all_columns FROM information_schema.change_stream_tables",
                        "SELECT change_stream_name, table_name, column_name FROM information_schema.change_stream_columns",
                        "SELECT table_name, index_name, index_type, column_name, ordinal_position, column_ordering,"
                                + " is_nullable, spanner_type FROM information_schema.index_columns WHERE table_schema = "
                                + schema,
                        "SELECT constraint_name, table_name, column_name, ordinal_position FROM"
                                + " information_schema.key_column_usage WHERE table_schema = "
                                + schema,
                        "SELECT constraint_name, table_name, constraint_type FROM"
                                + " information_schema.table_constraints WHERE table_schema = "
                                + schema,
                        "SELECT table_name, column_name, ordinal_position, is_nullable, spanner_type FROM"
                                + " information_schema.columns WHERE table_schema = "
                                + schema,
                        "SELECT option_name, option_value FROM information_schema.database_options WHERE"
                                + " option_name = 'database_dialect'")) {
            String q = pg ? sql : sql.replace("\"all\"", "`all`");
            assertSame(
                    d,
                    q,
                    s -> {
                        List<String> rows = new ArrayList<>(query(s, q));
                        rows.sort(null); // row order is unspecified without ORDER BY
                        return rows;
                    });
        }
    }
}
