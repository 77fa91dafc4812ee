package io.spannercs.emulator.google;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.NoCredentials;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.KeyRange;
import com.google.cloud.spanner.KeySet;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.testing.ClientChangeStreamReader;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.GoogleSpannerEmulator;
import io.spannercs.emulator.testing.ReadRecord;
import io.spannercs.emulator.testing.TestTimes;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a change stream records for each kind of write, in every value capture type, measured on
 * Google's Cloud Spanner emulator and required of ours: the same writes through the official client
 * to both, and per transaction the same records (mod type, columns, keys, new and old values). The
 * cases that matter most to consumers:
 *
 * <ul>
 *   <li>REPLACE of an existing row is an INSERT with every watched column new (NULL where not
 *       written) and no old values, in every capture type: the row replaced is not recorded.
 *   <li>INSERT_OR_UPDATE is an INSERT for a new row and an UPDATE (written columns) for an existing
 *       one; an UPDATE that writes an unchanged value is still recorded.
 *   <li>A key-range DELETE gives one DELETE mod per row deleted.
 *   <li>Several writes to a row in one transaction give their net change: DELETE then INSERT is an
 *       INSERT, INSERT then UPDATE an INSERT of the final row, UPDATE then DELETE a DELETE with the
 *       values from before the transaction, INSERT then DELETE nothing.
 * </ul>
 *
 * <p>Not compared, a known difference: for a write of only key columns, or (in a stream that
 * watches some columns) of only unwatched columns, to an existing row, Google's emulator records an
 * UPDATE with every watched column in NEW_ROW and NEW_ROW_AND_OLD_VALUES streams (old_values JSON
 * null in the latter); ours records nothing, following Spanner's documentation, which has NEW_ROW
 * record the watched columns when one of them changes.
 *
 * <p>Google allows at most three change streams per table, hence two tables with the same writes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GoogleEmulatorMutationKindsTest {
    private static final DatabaseId DB = DatabaseId.of("test-project", "test-instance", "test-db");
    private static final List<String> DDL =
            List.of(
                    "CREATE TABLE T (Id INT64 NOT NULL, A STRING(MAX), B INT64) PRIMARY KEY (Id)",
                    "CREATE TABLE U (Id INT64 NOT NULL, A STRING(MAX), B INT64) PRIMARY KEY (Id)",
                    "CREATE CHANGE STREAM CsOldAndNew FOR T",
                    "CREATE CHANGE STREAM CsNewValues FOR T OPTIONS (value_capture_type ="
                            + " 'NEW_VALUES')",
                    "CREATE CHANGE STREAM CsNewRow FOR U OPTIONS (value_capture_type = 'NEW_ROW')",
                    "CREATE CHANGE STREAM CsNewRowOld FOR U OPTIONS (value_capture_type ="
                            + " 'NEW_ROW_AND_OLD_VALUES')");

    private GoogleSpannerEmulator google;
    private Spanner googleAdmin;
    private EmulatorClients googleClients;
    private SpannerEmulator ours;
    private EmulatorClients ourClients;
    private final Map<String, Timestamp[]> windows = new LinkedHashMap<>();
    private List<String> script;

    @BeforeAll
    void writeToBoth() throws Exception {
        Optional<Path> gateway = GoogleSpannerEmulator.locate();
        if (gateway.isEmpty()) {
            String reason =
                    "Google's Cloud Spanner emulator (gateway_main) is not installed: set"
                            + " GOOGLE_SPANNER_EMULATOR or install the gcloud SDK component"
                            + " cloud-spanner-emulator to run this comparison";
            System.out.println("SKIPPED GoogleEmulatorMutationKindsTest: " + reason);
            Assumptions.abort(reason);
        }
        google = GoogleSpannerEmulator.start(gateway.get());
        googleAdmin =
                SpannerOptions.newBuilder()
                        .setProjectId(DB.getInstanceId().getProject())
                        .setEmulatorHost(google.hostPort())
                        .setCredentials(NoCredentials.getInstance())
                        .build()
                        .getService();
        google.createDatabase(googleAdmin, DB, DDL);
        googleClients =
                new EmulatorClients(
                        google.hostPort(),
                        DB.getInstanceId().getProject(),
                        DB.getInstanceId().getInstance(),
                        DB.getDatabase());
        ours =
                SpannerEmulator.builder()
                        .projectId(DB.getInstanceId().getProject())
                        .instanceId(DB.getInstanceId().getInstance())
                        .databaseId(DB.getDatabase())
                        .ddl(String.join(";\n", DDL))
                        .initialPartitions(1)
                        .start();
        ourClients = new EmulatorClients(ours);
        for (EmulatorClients c : List.of(googleClients, ourClients)) {
            Timestamp start = TestTimes.now();
            script = writeScript(c.client());
            windows.put(
                    c == googleClients ? "google" : "ours",
                    new Timestamp[] {start, TestTimes.now()});
        }
    }

    @AfterAll
    void stopAll() {
        for (AutoCloseable c : new AutoCloseable[] {googleClients, googleAdmin, ourClients}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        if (google != null) {
            google.close();
        }
        if (ours != null) {
            ours.close();
        }
    }

    private static Mutation.WriteBuilder row(Mutation.WriteBuilder b, long id) {
        return b.set("Id").to(id);
    }

    /** The writes, one transaction each, named for messages. */
    private static List<String> writeScript(DatabaseClient c) {
        List<String> names = new ArrayList<>();
        write(
                c,
                names,
                "insert 1, 2, 3, 4",
                row(Mutation.newInsertBuilder("T"), 1).set("A").to("a1").set("B").to(10).build(),
                row(Mutation.newInsertBuilder("T"), 2).set("A").to("a2").set("B").to(20).build(),
                row(Mutation.newInsertBuilder("T"), 3).set("A").to("a3").set("B").to(30).build(),
                row(Mutation.newInsertBuilder("T"), 4).set("A").to("a4").set("B").to(40).build());
        write(
                c,
                names,
                "replace existing 1, writing A only",
                row(Mutation.newReplaceBuilder("T"), 1).set("A").to("r1").build());
        write(
                c,
                names,
                "replace existing 2, writing every column",
                row(Mutation.newReplaceBuilder("T"), 2).set("A").to("r2").set("B").to(22).build());
        write(
                c,
                names,
                "replace existing 2 with the same values",
                row(Mutation.newReplaceBuilder("T"), 2).set("A").to("r2").set("B").to(22).build());
        write(
                c,
                names,
                "replace new 5",
                row(Mutation.newReplaceBuilder("T"), 5).set("A").to("r5").build());
        write(
                c,
                names,
                "insert_or_update new 6",
                row(Mutation.newInsertOrUpdateBuilder("T"), 6).set("A").to("u6").build());
        write(
                c,
                names,
                "insert_or_update existing 3, writing B",
                row(Mutation.newInsertOrUpdateBuilder("T"), 3).set("B").to(33).build());
        write(
                c,
                names,
                "update 3, writing A",
                row(Mutation.newUpdateBuilder("T"), 3).set("A").to("x3").build());
        write(
                c,
                names,
                "update 3, writing A unchanged",
                row(Mutation.newUpdateBuilder("T"), 3).set("A").to("x3").build());
        write(
                c,
                names,
                "insert_or_update 3 with the same values",
                row(Mutation.newInsertOrUpdateBuilder("T"), 3)
                        .set("A")
                        .to("x3")
                        .set("B")
                        .to(33)
                        .build());
        write(c, names, "delete 4", Mutation.delete("T", Key.of(4)));
        write(
                c,
                names,
                "delete [5, 7)",
                Mutation.delete("T", KeySet.range(KeyRange.closedOpen(Key.of(5), Key.of(7)))));
        write(
                c,
                names,
                "delete 1 and insert 1",
                Mutation.delete("T", Key.of(1)),
                row(Mutation.newInsertBuilder("T"), 1).set("A").to("n1").build());
        write(
                c,
                names,
                "delete 3 and insert 3 with the same values",
                Mutation.delete("T", Key.of(3)),
                row(Mutation.newInsertBuilder("T"), 3).set("A").to("x3").set("B").to(33).build());
        write(
                c,
                names,
                "delete 1 and insert_or_update 1",
                Mutation.delete("T", Key.of(1)),
                row(Mutation.newInsertOrUpdateBuilder("T"), 1).set("B").to(11).build());
        write(
                c,
                names,
                "insert 7 and delete 7 (records nothing)",
                row(Mutation.newInsertBuilder("T"), 7).set("A").to("a7").build(),
                Mutation.delete("T", Key.of(7)));
        write(
                c,
                names,
                "update 2 and delete 2",
                row(Mutation.newUpdateBuilder("T"), 2).set("B").to(99).build(),
                Mutation.delete("T", Key.of(2)));
        write(
                c,
                names,
                "insert 8 and update 8",
                row(Mutation.newInsertBuilder("T"), 8).set("A").to("a8").build(),
                row(Mutation.newUpdateBuilder("T"), 8).set("B").to(88).build());
        write(
                c,
                names,
                "update 8 and replace 8",
                row(Mutation.newUpdateBuilder("T"), 8).set("B").to(89).build(),
                row(Mutation.newReplaceBuilder("T"), 8).set("A").to("rr8").build());
        write(
                c,
                names,
                "replace existing 3, writing the key only",
                row(Mutation.newReplaceBuilder("T"), 3).build());
        return names;
    }

    /** Applies the mutations to T, and the same to U, in one transaction. */
    private static void write(DatabaseClient c, List<String> names, String name, Mutation... ms) {
        List<Mutation> both = new ArrayList<>(List.of(ms));
        for (Mutation m : ms) {
            both.add(toU(m));
        }
        c.write(both);
        names.add(name);
    }

    private static Mutation toU(Mutation m) {
        if (m.getOperation() == Mutation.Op.DELETE) {
            return Mutation.delete("U", m.getKeySet());
        }
        Mutation.WriteBuilder b;
        switch (m.getOperation()) {
            case INSERT:
                b = Mutation.newInsertBuilder("U");
                break;
            case UPDATE:
                b = Mutation.newUpdateBuilder("U");
                break;
            case INSERT_OR_UPDATE:
                b = Mutation.newInsertOrUpdateBuilder("U");
                break;
            default:
                b = Mutation.newReplaceBuilder("U");
        }
        m.asMap().forEach((column, value) -> b.set(column).to(value));
        return b.build();
    }

    @ParameterizedTest
    @ValueSource(strings = {"CsOldAndNew", "CsNewValues", "CsNewRow", "CsNewRowOld"})
    void everyKindOfWriteIsRecordedAsGooglesEmulatorRecordsIt(String stream) {
        List<String> fromGoogle = describe(googleClients, stream, windows.get("google"));
        List<String> fromOurs = describe(ourClients, stream, windows.get("ours"));
        // One transaction records nothing: insert and delete of one row.
        assertThat(fromGoogle).as("Google's records of " + stream).hasSize(script.size() - 1);
        assertThat(fromOurs).as(stream).containsExactlyElementsOf(fromGoogle);
        assertThat(fromOurs.get(1))
                .as("REPLACE of an existing row")
                .startsWith("INSERT ")
                .contains("old={}");
    }

    /** Each transaction's data records, as text: mod type, columns and each mod's values. */
    private static List<String> describe(EmulatorClients c, String stream, Timestamp[] window) {
        Map<Long, List<ReadRecord>> byCommit = new TreeMap<>();
        new ClientChangeStreamReader(c.client(), stream, false)
                .readAll(window[0], window[1])
                .values()
                .forEach(
                        records ->
                                records.stream()
                                        .filter(r -> r.kind() == ReadRecord.Kind.DATA)
                                        .forEach(
                                                r ->
                                                        byCommit.computeIfAbsent(
                                                                        r.micros(),
                                                                        k -> new ArrayList<>())
                                                                .add(r)));
        List<String> out = new ArrayList<>();
        for (List<ReadRecord> txn : byCommit.values()) {
            StringBuilder b = new StringBuilder();
            for (ReadRecord r : txn) {
                b.append(r.data().modType())
                        .append(' ')
                        .append(r.data().valueCaptureType())
                        .append(" columns=")
                        .append(r.data().columns().stream().map(ReadRecord.Column::name).toList());
                for (ReadRecord.Mod m : r.data().mods()) {
                    b.append(" [keys=")
                            .append(m.keys())
                            .append(" new=")
                            .append(m.newValues())
                            .append(" old=")
                            .append(m.oldValues())
                            .append(']');
                }
                b.append("; ");
            }
            out.add(b.toString().replace('\n', ' '));
        }
        return out;
    }
}
