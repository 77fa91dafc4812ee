package io.spannercs.emulator.google;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.ByteArray;
import com.google.cloud.Date;
import com.google.cloud.NoCredentials;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.KeyRange;
import com.google.cloud.spanner.KeySet;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Options;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import com.google.cloud.spanner.Value;
import com.google.protobuf.ListValue;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.testing.ClientChangeStreamReader;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.GoogleSpannerEmulator;
import io.spannercs.emulator.testing.ReadRecord;
import io.spannercs.emulator.testing.TestTimes;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The independent check of legacy mode: the same writes, through the official client, to Google's
 * Cloud Spanner emulator and to ours; every legacy change stream read back from both must agree
 * field by field, except for tokens, timestamps, transaction ids and exactly the deviations of
 * Google's emulator that DESIGN.md lists (TIMESTAMP values truncated to seconds, NaN and Infinity
 * written as null, a NULL array element written as "NULL", transaction tags dropped).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GoogleEmulatorComparisonTest {
    private static final String PROJECT = "test-project";
    private static final DatabaseId DB = DatabaseId.of(PROJECT, "test-instance", "test-db");
    private static final List<String> DDL =
            List.of(
                    "CREATE TABLE Simple (Id INT64 NOT NULL, Name STRING(MAX), Val INT64) PRIMARY KEY (Id)",
                    "CREATE TABLE Typed (K1 INT64 NOT NULL, K2 STRING(MAX) NOT NULL, B BOOL, F FLOAT64,"
                            + " N NUMERIC, S STRING(MAX), BYT BYTES(MAX), D DATE, TS TIMESTAMP, J JSON,"
                            + " AI ARRAY<INT64>, ASTR ARRAY<STRING(MAX)>) PRIMARY KEY (K1, K2)",
                    "CREATE CHANGE STREAM CsAll FOR ALL",
                    "CREATE CHANGE STREAM CsNewRowOld FOR ALL OPTIONS (value_capture_type ="
                            + " 'NEW_ROW_AND_OLD_VALUES')",
                    "CREATE CHANGE STREAM CsCols FOR Simple(Name), Typed(S, AI) OPTIONS"
                            + " (value_capture_type = 'NEW_VALUES')");

    private GoogleSpannerEmulator google;
    private Spanner googleAdmin;
    private EmulatorClients googleClients;
    private SpannerEmulator ours;
    private EmulatorClients ourClients;
    private final Map<String, Timestamp[]> windows = new LinkedHashMap<>();

    @BeforeAll
    void writeToBoth() throws Exception {
        Optional<Path> gateway = GoogleSpannerEmulator.locate();
        if (gateway.isEmpty()) {
            String reason =
                    "Google's Cloud Spanner emulator (gateway_main) is not installed: set"
                            + " GOOGLE_SPANNER_EMULATOR or install the gcloud SDK component"
                            + " cloud-spanner-emulator to run this comparison";
            System.out.println("SKIPPED GoogleEmulatorComparisonTest: " + reason);
            Assumptions.abort(reason);
        }
        google = GoogleSpannerEmulator.start(gateway.get());
        googleAdmin =
                SpannerOptions.newBuilder()
                        .setProjectId(PROJECT)
                        .setEmulatorHost(google.hostPort())
                        .setCredentials(NoCredentials.getInstance())
                        .build()
                        .getService();
        google.createDatabase(googleAdmin, DB, DDL);
        googleClients =
                new EmulatorClients(
                        google.hostPort(),
                        PROJECT,
                        DB.getInstanceId().getInstance(),
                        DB.getDatabase());
        ours =
                SpannerEmulator.builder()
                        .projectId(PROJECT)
                        .instanceId(DB.getInstanceId().getInstance())
                        .databaseId(DB.getDatabase())
                        .ddl(String.join(";\n", DDL))
                        .initialPartitions(1)
                        .start();
        ourClients = new EmulatorClients(ours);

        for (EmulatorClients c : List.of(googleClients, ourClients)) {
            Timestamp start = TestTimes.now();
            writeScript(c.client());
            windows.put(
                    c == googleClients ? "google" : "ours",
                    new Timestamp[] {start, TestTimes.now()});
        }
    }

    @AfterAll
    void stopAll() {
        if (googleClients != null) {
            googleClients.close();
        }
        if (googleAdmin != null) {
            googleAdmin.close();
        }
        if (google != null) {
            google.close();
        }
        if (ourClients != null) {
            ourClients.close();
        }
        if (ours != null) {
            ours.close();
        }
    }

    /** Every mutation kind and value the comparison covers, in a fixed order. */
    private static void writeScript(DatabaseClient c) {
        c.write(
                List.of(
                        Mutation.newInsertBuilder("Simple")
                                .set("Id")
                                .to(1)
                                .set("Name")
                                .to("one")
                                .build(),
                        Mutation.newInsertBuilder("Simple")
                                .set("Id")
                                .to(2)
                                .set("Val")
                                .to(2)
                                .build(),
                        Mutation.newInsertBuilder("Simple")
                                .set("Id")
                                .to(3)
                                .set("Name")
                                .to("three")
                                .set("Val")
                                .to(3)
                                .build()));
        c.write(
                List.of(
                        Mutation.newInsertBuilder("Typed")
                                .set("K1")
                                .to(Long.MIN_VALUE)
                                .set("K2")
                                .to("a")
                                .set("B")
                                .to(true)
                                .set("F")
                                .to(0.1)
                                .set("N")
                                .to(new BigDecimal("12345678901234567890.123456789"))
                                .set("S")
                                .to("héllo \"q\"")
                                .set("BYT")
                                .to(ByteArray.copyFrom(new byte[] {0, 1, 2, -1}))
                                .set("D")
                                .to(Date.fromYearMonthDay(2024, 2, 29))
                                .set("TS")
                                .to(Timestamp.ofTimeSecondsAndNanos(1_700_000_000L, 123_456_789))
                                .set("J")
                                .to(Value.json("{\"b\":1,\"a\":[true,null,1.5]}"))
                                .set("AI")
                                .toInt64Array(Arrays.asList(1L, null, Long.MIN_VALUE))
                                .set("ASTR")
                                .toStringArray(List.of("x", "", "ü"))
                                .build(),
                        Mutation.newInsertBuilder("Typed")
                                .set("K1")
                                .to(Long.MAX_VALUE)
                                .set("K2")
                                .to("b")
                                .set("F")
                                .to(Double.NaN)
                                .build()));
        c.write(
                List.of(
                        Mutation.newUpdateBuilder("Simple")
                                .set("Id")
                                .to(1)
                                .set("Val")
                                .to(10)
                                .build()));
        c.write(
                List.of(
                        Mutation.newUpdateBuilder("Simple")
                                .set("Id")
                                .to(2)
                                .set("Name")
                                .to("two")
                                .build()));
        c.writeWithOptions(
                List.of(
                        Mutation.newUpdateBuilder("Simple")
                                .set("Id")
                                .to(3)
                                .set("Name")
                                .to("drei")
                                .build()),
                Options.tag("tagged"));
        c.write(
                List.of(
                        Mutation.newInsertOrUpdateBuilder("Simple")
                                .set("Id")
                                .to(1)
                                .set("Name")
                                .to("uno")
                                .build(),
                        Mutation.newInsertOrUpdateBuilder("Simple")
                                .set("Id")
                                .to(4)
                                .set("Name")
                                .to("four")
                                .build()));
        c.write(
                List.of(
                        Mutation.newReplaceBuilder("Simple")
                                .set("Id")
                                .to(3)
                                .set("Name")
                                .to("three again")
                                .build()));
        c.write(
                List.of(
                        Mutation.delete("Simple", Key.of(2)),
                        Mutation.delete("Simple", Key.of(999))));
        c.write(List.of(Mutation.delete("Simple", Key.of(998))));
        c.write(
                List.of(
                        Mutation.newInsertBuilder("Simple")
                                .set("Id")
                                .to(20)
                                .set("Name")
                                .to("x")
                                .build(),
                        Mutation.newUpdateBuilder("Simple")
                                .set("Id")
                                .to(20)
                                .set("Val")
                                .to(7)
                                .build()));
        c.write(
                List.of(
                        Mutation.newInsertBuilder("Simple").set("Id").to(30).build(),
                        Mutation.newUpdateBuilder("Typed")
                                .set("K1")
                                .to(Long.MIN_VALUE)
                                .set("K2")
                                .to("a")
                                .set("F")
                                .to(Double.POSITIVE_INFINITY)
                                .set("TS")
                                .to(Timestamp.ofTimeSecondsAndNanos(1_700_000_000L, 500_000_000))
                                .build(),
                        Mutation.newInsertBuilder("Simple")
                                .set("Id")
                                .to(31)
                                .set("Val")
                                .to(31)
                                .build()));
        c.write(
                List.of(
                        Mutation.newInsertBuilder("Simple").set("Id").to(11).build(),
                        Mutation.newInsertBuilder("Simple").set("Id").to(15).build()));
        c.write(
                List.of(
                        Mutation.delete(
                                "Simple",
                                KeySet.range(KeyRange.closedOpen(Key.of(10), Key.of(20))))));
        c.write(
                List.of(
                        Mutation.newUpdateBuilder("Typed")
                                .set("K1")
                                .to(Long.MIN_VALUE)
                                .set("K2")
                                .to("a")
                                .set("S")
                                .to((String) null)
                                .set("AI")
                                .toInt64Array((long[]) null)
                                .build()));
        c.write(List.of(Mutation.delete("Typed", Key.of(Long.MIN_VALUE, "a"))));
        c.write(
                List.of(
                        Mutation.newUpdateBuilder("Simple")
                                .set("Id")
                                .to(1)
                                .set("Name")
                                .to("uno")
                                .build()));
        // Orders of records within one transaction.
        c.write(
                List.of(
                        Mutation.newInsertBuilder("Simple").set("Id").to(40).build(),
                        Mutation.newUpdateBuilder("Simple")
                                .set("Id")
                                .to(1)
                                .set("Val")
                                .to(1)
                                .build()));
        c.write(
                List.of(
                        Mutation.newUpdateBuilder("Typed")
                                .set("K1")
                                .to(Long.MAX_VALUE)
                                .set("K2")
                                .to("b")
                                .set("B")
                                .to(false)
                                .build(),
                        Mutation.newInsertBuilder("Simple").set("Id").to(41).build()));
        c.write(
                List.of(
                        Mutation.newInsertBuilder("Simple").set("Id").to(43).build(),
                        Mutation.delete("Simple", Key.of(40)),
                        Mutation.newInsertBuilder("Simple").set("Id").to(42).build(),
                        Mutation.newUpdateBuilder("Simple")
                                .set("Id")
                                .to(41)
                                .set("Val")
                                .to(1)
                                .build()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"CsAll", "CsNewRowOld", "CsCols"})
    void legacyRecordsAgreeFieldByField(String stream) {
        List<List<ReadRecord>> fromGoogle =
                transactions(googleClients, stream, windows.get("google"));
        List<List<ReadRecord>> fromOurs = transactions(ourClients, stream, windows.get("ours"));
        assertThat(fromOurs).as(stream + " transactions").hasSameSizeAs(fromGoogle).isNotEmpty();
        boolean tagSeen = false;
        for (int t = 0; t < fromGoogle.size(); t++) {
            List<ReadRecord> g = fromGoogle.get(t);
            List<ReadRecord> o = fromOurs.get(t);
            String txn = stream + " transaction " + t;
            assertThat(o).as(txn).hasSameSizeAs(g);
            // Google's emulator orders the records of different tables in one transaction
            // arbitrarily; compare sequences as sets and records matched by content.
            assertThat(sequences(o)).as(txn + " sequences").isEqualTo(sequences(g));
            for (int i = 0; i < g.size(); i++) {
                assertSameRecord(txn + " record " + i, g.get(i).data(), o.get(i).data());
                tagSeen |= o.get(i).data().transactionTag().equals("tagged");
            }
        }
        assertThat(tagSeen).as("our emulator keeps transaction tags").isTrue();
    }

    private static java.util.Set<String> sequences(List<ReadRecord> records) {
        java.util.Set<String> out = new java.util.TreeSet<>();
        records.forEach(r -> out.add(r.sequence()));
        return out;
    }

    private static void assertSameRecord(String where, ReadRecord.Data g, ReadRecord.Data o) {
        where = where + " (" + g.table() + " " + g.modType() + ")";
        assertThat(o.table()).as(where).isEqualTo(g.table());
        assertThat(o.modType()).as(where).isEqualTo(g.modType());
        assertThat(o.valueCaptureType()).as(where).isEqualTo(g.valueCaptureType());
        assertThat(o.recordsInTransaction()).as(where).isEqualTo(g.recordsInTransaction());
        assertThat(o.partitionsInTransaction()).as(where).isEqualTo(g.partitionsInTransaction());
        assertThat(o.systemTransaction()).as(where).isEqualTo(g.systemTransaction());
        assertThat(o.columns()).as(where).isEqualTo(g.columns());
        // Google's emulator drops transaction tags; ours keeps them.
        assertThat(g.transactionTag()).as(where).isEmpty();
        assertThat(o.mods()).as(where).hasSameSizeAs(g.mods());
        Map<String, String> types = new LinkedHashMap<>();
        o.columns().forEach(col -> types.put(col.name(), col.typeCode()));
        for (int m = 0; m < g.mods().size(); m++) {
            ReadRecord.Mod gm = g.mods().get(m);
            ReadRecord.Mod om = o.mods().get(m);
            assertThat(om.keys()).as(where + " keys").isEqualTo(gm.keys());
            assertSameValues(where + " new_values", types, gm.newValues(), om.newValues());
            assertSameValues(where + " old_values", types, gm.oldValues(), om.oldValues());
        }
    }

    /** Data records grouped by transaction in commit order, each sorted by table and mod type. */
    private static List<List<ReadRecord>> transactions(
            EmulatorClients c, String stream, Timestamp[] window) {
        Map<Long, List<ReadRecord>> byCommit = new java.util.TreeMap<>();
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
        List<List<ReadRecord>> out = new ArrayList<>();
        for (List<ReadRecord> txn : byCommit.values()) {
            txn.sort(
                    Comparator.comparing((ReadRecord r) -> r.data().table())
                            .thenComparing(r -> r.data().modType()));
            out.add(txn);
        }
        return out;
    }

    private static void assertSameValues(
            String where,
            Map<String, String> types,
            Map<String, com.google.protobuf.Value> google,
            Map<String, com.google.protobuf.Value> ours) {
        assertThat(ours.keySet()).as(where).isEqualTo(google.keySet());
        for (String column : google.keySet()) {
            assertThat(allowedDeviation(types.get(column), google.get(column), ours.get(column)))
                    .as(
                            "%s column %s: google %s, ours %s",
                            where, column, google.get(column), ours.get(column))
                    .isTrue();
        }
    }

    /** Equal, or different in exactly one of the ways Google's emulator is known to deviate. */
    static boolean allowedDeviation(
            String type, com.google.protobuf.Value g, com.google.protobuf.Value o) {
        if (g.equals(o)) {
            return true;
        }
        if (g.hasListValue() && o.hasListValue()) {
            ListValue gl = g.getListValue();
            ListValue ol = o.getListValue();
            if (gl.getValuesCount() != ol.getValuesCount()) {
                return false;
            }
            for (int i = 0; i < gl.getValuesCount(); i++) {
                com.google.protobuf.Value ge = gl.getValues(i);
                com.google.protobuf.Value oe = ol.getValues(i);
                boolean nullAsText =
                        ge.hasStringValue()
                                && ge.getStringValue().equals("NULL")
                                && oe.hasNullValue();
                if (!nullAsText && !allowedDeviation(null, ge, oe)) {
                    return false;
                }
            }
            return true;
        }
        if (g.hasNullValue() && o.hasStringValue()) {
            String s = o.getStringValue();
            return s.equals("NaN") || s.equals("Infinity") || s.equals("-Infinity");
        }
        if ("TIMESTAMP".equals(type) && g.hasStringValue() && o.hasStringValue()) {
            Instant ours = Instant.parse(o.getStringValue());
            return Instant.parse(g.getStringValue())
                    .equals(ours.truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
        }
        return false;
    }
}
