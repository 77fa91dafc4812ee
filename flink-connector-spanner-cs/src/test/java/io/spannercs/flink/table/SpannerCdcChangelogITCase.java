package io.spannercs.flink.table;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.KeyRange;
import com.google.cloud.spanner.KeySet;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.TimestampBound;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.flink.source.CommittedRange;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every changelog mode folds to the table's contents under every kind of write: INSERT, UPDATE (of
 * one or all columns), INSERT_OR_UPDATE of new and existing rows, REPLACE of new and existing rows
 * (which Spanner records as an INSERT without old values), DELETE, key-range DELETE, and several
 * writes to one row in one transaction. The writes go through the official client with partitions
 * churning, most of them before the job starts (it reads them as history) and a random mix while it
 * reads the head; the changelog, applied per key as a retracting sink would (an INSERT for a key
 * that holds a row fails the test), must leave exactly the rows the official client reads at the
 * end timestamp. Both partition modes, both changelog modes, with and without 'scan.reorder', and
 * at source parallelism 2.
 */
@Timeout(value = 4, unit = java.util.concurrent.TimeUnit.MINUTES)
class SpannerCdcChangelogITCase {
    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = SqlTests.cluster();

    static final String COLUMNS =
            "(Id BIGINT, Owner STRING, Balance BIGINT, PRIMARY KEY (Id) NOT ENFORCED)";

    static String ddl(String partitionMode, String captureType) {
        return "CREATE TABLE Accounts (Id INT64 NOT NULL, Owner STRING(MAX), Balance INT64)"
                + " PRIMARY KEY (Id);\n"
                + "CREATE CHANGE STREAM cs FOR Accounts OPTIONS (partition_mode = '"
                + partitionMode
                + "', value_capture_type = '"
                + captureType
                + "');\n";
    }

    static SpannerEmulator emulator(String partitionMode, String captureType) {
        return SpannerEmulator.builder()
                .ddl(ddl(partitionMode, captureType))
                .initialPartitions(2)
                .maxPartitions(4)
                .churnInterval(Duration.ofMillis(700))
                .seed(11)
                .start();
    }

    /** Random writes before the job starts, so the fold has many rows and overwrites to check. */
    private static final int MIN_RANDOM_WRITES = 60;

    /** REPLACEs the mix must hold: Spanner records them as INSERTs, the case most likely wrong. */
    private static final int MIN_REPLACES = 5;

    /** Splits, merges and moves the readers must follow (one every 700 ms). */
    private static final int MIN_CHURN_EVENTS = 3;

    /** How long past the last commit before the job starts the range reads at the head. */
    private static final Duration LIVE_TAIL = Duration.ofMillis(1500);

    @ParameterizedTest(name = "{0} {1} changelog-mode {2} scan.reorder {3} parallelism {4}")
    @CsvSource({
        "MUTABLE_KEY_RANGE, NEW_ROW_AND_OLD_VALUES, all, true, 1",
        "IMMUTABLE_KEY_RANGE, NEW_ROW_AND_OLD_VALUES, all, true, 1",
        "MUTABLE_KEY_RANGE, NEW_ROW, upsert, true, 1",
        "IMMUTABLE_KEY_RANGE, NEW_ROW, upsert, true, 1",
        "MUTABLE_KEY_RANGE, NEW_ROW_AND_OLD_VALUES, upsert, true, 1",
        "IMMUTABLE_KEY_RANGE, NEW_ROW_AND_OLD_VALUES, upsert, true, 1",
        "MUTABLE_KEY_RANGE, NEW_ROW_AND_OLD_VALUES, all, false, 1",
        "IMMUTABLE_KEY_RANGE, NEW_ROW, upsert, false, 1",
        "MUTABLE_KEY_RANGE, NEW_ROW_AND_OLD_VALUES, all, true, 2"
    })
    void changelogFoldsToTheTableUnderEveryKindOfWrite(
            String partitionMode, String captureType, String mode, boolean reorder, int parallelism)
            throws Exception {
        try (SpannerEmulator emulator = emulator(partitionMode, captureType);
                Spanner spanner = SqlTests.client(emulator)) {
            DatabaseClient db = SqlTests.db(spanner, emulator);
            // The range ends by what is written, not by a clock: every kind of write and a
            // random mix go in until the mix holds enough of each kind and the partitions have
            // churned; the range then ends a short live tail after the last commit, and the job,
            // started now, reads that history and then the head while the mix goes on through the
            // tail (under load it may read the tail as history too).
            CommittedRange range = CommittedRange.startingNow(emulator, "cs");
            Instant start = range.start();
            Counts counts = new Counts();
            everyKindOfWrite(db, counts);
            Random random = new Random(partitionMode.hashCode() + captureType.hashCode());
            long deadline = System.nanoTime() + CommittedRange.WRITE_LIMIT.toNanos();
            int randomWrites = 0;
            while (randomWrites < MIN_RANDOM_WRITES
                    || counts.byKind.getOrDefault("replace", 0) <= MIN_REPLACES
                    || range.churnEvents() < MIN_CHURN_EVENTS) {
                assertThat(System.nanoTime())
                        .as(
                                "time to write enough (%s, %s churn events)",
                                counts.byKind, range.churnEvents())
                        .isLessThan(deadline);
                randomWrite(db, random, counts);
                randomWrites++;
            }
            Instant end = range.afterLastCommit().plus(LIVE_TAIL);
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            StreamTableEnvironment tEnv = SqlTests.tableEnv(env);
            env.setParallelism(parallelism);
            tEnv.executeSql(
                    "CREATE TABLE accounts "
                            + COLUMNS
                            + SqlTests.with(
                                    emulator,
                                    "cs",
                                    "Accounts",
                                    start,
                                    end,
                                    ", 'changelog-mode' = '"
                                            + mode
                                            + "', 'scan.reorder' = '"
                                            + reorder
                                            + "'"));
            TableResult result = tEnv.executeSql("SELECT Id, Owner, Balance FROM accounts");

            // The job is running: the random mix goes on until the end.
            while (Instant.now().isBefore(end.minusMillis(200))) {
                randomWrite(db, random, counts);
            }
            List<Row> changelog = SqlTests.collect(result);

            Map<Object, Row> actual = SqlTests.foldPerKey(changelog, 0);
            assertThat(actual).isEqualTo(tableAt(db, end)).isNotEmpty();
            assertThat(counts.byKind)
                    .as("writes that changed rows, by kind")
                    .containsKeys(
                            "insert",
                            "update",
                            "insert_or_update",
                            "replace",
                            "delete",
                            "range_delete",
                            "delete_insert");
            assertThat(counts.byKind.get("replace")).isGreaterThan(MIN_REPLACES);
        }
    }

    /**
     * The case: insert (1, 10), replace (1, 20). The count and sum must end at one row and
     * 20, not two rows and 30.
     */
    @ParameterizedTest(name = "{0} changelog-mode {1}")
    @CsvSource({
        "MUTABLE_KEY_RANGE, all",
        "IMMUTABLE_KEY_RANGE, all",
        "MUTABLE_KEY_RANGE, upsert",
        "IMMUTABLE_KEY_RANGE, upsert"
    })
    void replaceOfAnExistingRowIsCountedOnce(String partitionMode, String mode) throws Exception {
        try (SpannerEmulator emulator = emulator(partitionMode, "NEW_ROW_AND_OLD_VALUES");
                Spanner spanner = SqlTests.client(emulator)) {
            DatabaseClient db = SqlTests.db(spanner, emulator);
            Instant start = Instant.now();
            db.write(List.of(account(Mutation.newInsertBuilder("Accounts"), 1, "a", 10)));
            db.write(List.of(account(Mutation.newReplaceBuilder("Accounts"), 1, "a", 20)));
            Instant end = Instant.now();

            StreamTableEnvironment tEnv = SqlTests.tableEnv();
            tEnv.executeSql(
                    "CREATE TABLE accounts "
                            + COLUMNS
                            + SqlTests.with(
                                    emulator,
                                    "cs",
                                    "Accounts",
                                    start,
                                    end,
                                    ", 'changelog-mode' = '" + mode + "'"));
            Map<Row, Integer> folded =
                    SqlTests.fold(
                            SqlTests.collect(
                                    tEnv.executeSql(
                                            "SELECT COUNT(*), SUM(Balance) FROM accounts")));
            assertThat(folded).isEqualTo(Map.of(Row.of(1L, 20L), 1));
        }
    }

    private static Mutation account(Mutation.WriteBuilder b, long id, String owner, long balance) {
        return b.set("Id").to(id).set("Owner").to(owner).set("Balance").to(balance).build();
    }

    /** How many writes of each kind changed the table. */
    static final class Counts {
        final Map<String, Integer> byKind = new HashMap<>();

        void add(String kind) {
            byKind.merge(kind, 1, Integer::sum);
        }
    }

    /** One of each kind of write, on keys 100 and up (the random mix uses 0..19). */
    static void everyKindOfWrite(DatabaseClient db, Counts counts) {
        write(db, counts, "insert", account(Mutation.newInsertBuilder("Accounts"), 100, "a", 10));
        // REPLACE of an existing row: Spanner records an INSERT, with no old values.
        write(db, counts, "replace", account(Mutation.newReplaceBuilder("Accounts"), 100, "a", 20));
        // REPLACE of a new row.
        write(db, counts, "replace", account(Mutation.newReplaceBuilder("Accounts"), 101, "b", 5));
        // REPLACE that leaves the unwritten column NULL.
        write(
                db,
                counts,
                "replace",
                Mutation.newReplaceBuilder("Accounts")
                        .set("Id")
                        .to(101)
                        .set("Owner")
                        .to("b")
                        .build());
        write(
                db,
                counts,
                "insert_or_update",
                account(Mutation.newInsertOrUpdateBuilder("Accounts"), 102, "c", 7));
        write(
                db,
                counts,
                "insert_or_update",
                Mutation.newInsertOrUpdateBuilder("Accounts")
                        .set("Id")
                        .to(102)
                        .set("Balance")
                        .to(8)
                        .build());
        write(db, counts, "update", account(Mutation.newUpdateBuilder("Accounts"), 101, "b", 6));
        write(
                db,
                counts,
                "update",
                Mutation.newUpdateBuilder("Accounts")
                        .set("Id")
                        .to(101)
                        .set("Owner")
                        .to("b2")
                        .build());
        write(db, counts, "delete", Mutation.delete("Accounts", Key.of(102)));
        for (long id = 103; id <= 107; id++) {
            write(
                    db,
                    counts,
                    "insert",
                    account(Mutation.newInsertBuilder("Accounts"), id, "d", id));
        }
        write(
                db,
                counts,
                "range_delete",
                Mutation.delete(
                        "Accounts", KeySet.range(KeyRange.closedOpen(Key.of(104), Key.of(106)))));
        // Several writes to one row in one transaction, recorded as their net change.
        write(
                db,
                counts,
                "delete_insert",
                Mutation.delete("Accounts", Key.of(103)),
                account(Mutation.newInsertBuilder("Accounts"), 103, "e", 1));
        write(
                db,
                counts,
                "update_replace",
                Mutation.newUpdateBuilder("Accounts")
                        .set("Id")
                        .to(100)
                        .set("Balance")
                        .to(21)
                        .build(),
                account(Mutation.newReplaceBuilder("Accounts"), 100, "f", 22));
        write(
                db,
                counts,
                "insert_update",
                account(Mutation.newInsertBuilder("Accounts"), 108, "g", 1),
                Mutation.newUpdateBuilder("Accounts")
                        .set("Id")
                        .to(108)
                        .set("Balance")
                        .to(2)
                        .build());
        write(
                db,
                counts,
                "insert_delete",
                account(Mutation.newInsertBuilder("Accounts"), 109, "h", 1),
                Mutation.delete("Accounts", Key.of(109)));
        write(
                db,
                counts,
                "update_delete",
                Mutation.newUpdateBuilder("Accounts")
                        .set("Id")
                        .to(107)
                        .set("Balance")
                        .to(70)
                        .build(),
                Mutation.delete("Accounts", Key.of(107)));
    }

    /** A random write of a random kind to one of 20 rows. */
    static void randomWrite(DatabaseClient db, Random random, Counts counts) {
        long id = random.nextInt(20);
        String owner = "o" + random.nextInt(4);
        long balance = random.nextInt(1000);
        switch (random.nextInt(9)) {
            case 0:
                write(
                        db,
                        counts,
                        "insert",
                        account(Mutation.newInsertBuilder("Accounts"), id, owner, balance));
                break;
            case 1:
                write(
                        db,
                        counts,
                        "update",
                        Mutation.newUpdateBuilder("Accounts")
                                .set("Id")
                                .to(id)
                                .set("Balance")
                                .to(balance)
                                .build());
                break;
            case 2:
                write(
                        db,
                        counts,
                        "insert_or_update",
                        account(Mutation.newInsertOrUpdateBuilder("Accounts"), id, owner, balance));
                break;
            case 3:
            case 4:
                write(
                        db,
                        counts,
                        "replace",
                        account(Mutation.newReplaceBuilder("Accounts"), id, owner, balance));
                break;
            case 5:
                write(db, counts, "delete", Mutation.delete("Accounts", Key.of(id)));
                break;
            case 6:
                write(
                        db,
                        counts,
                        "range_delete",
                        Mutation.delete(
                                "Accounts",
                                KeySet.range(KeyRange.closedOpen(Key.of(id), Key.of(id + 3)))));
                break;
            case 7:
                write(
                        db,
                        counts,
                        "delete_insert",
                        Mutation.delete("Accounts", Key.of(id)),
                        account(Mutation.newInsertBuilder("Accounts"), id, owner, balance));
                break;
            default:
                write(
                        db,
                        counts,
                        "update_replace",
                        Mutation.newUpdateBuilder("Accounts")
                                .set("Id")
                                .to(id)
                                .set("Owner")
                                .to(owner)
                                .build(),
                        account(Mutation.newReplaceBuilder("Accounts"), id, owner, balance + 1));
        }
    }

    private static void write(DatabaseClient db, Counts counts, String kind, Mutation... m) {
        try {
            db.write(List.of(m));
            counts.add(kind);
        } catch (SpannerException e) {
            // An INSERT of a row that exists or an UPDATE of one that does not: nothing written.
            if (e.getErrorCode() != ErrorCode.ALREADY_EXISTS
                    && e.getErrorCode() != ErrorCode.NOT_FOUND) {
                throw e;
            }
        }
    }

    /** The table as the official client reads it at a timestamp, by key. */
    static Map<Object, Row> tableAt(DatabaseClient db, Instant at) {
        Map<Object, Row> out = new HashMap<>();
        TimestampBound bound =
                TimestampBound.ofReadTimestamp(
                        Timestamp.ofTimeSecondsAndNanos(at.getEpochSecond(), at.getNano()));
        try (ResultSet rs =
                db.singleUse(bound)
                        .executeQuery(Statement.of("SELECT Id, Owner, Balance FROM Accounts"))) {
            while (rs.next()) {
                List<Object> fields = new ArrayList<>();
                fields.add(rs.getLong(0));
                fields.add(rs.isNull(1) ? null : rs.getString(1));
                fields.add(rs.isNull(2) ? null : rs.getLong(2));
                out.put(rs.getLong(0), Row.of(fields.toArray()));
            }
        }
        return out;
    }
}
