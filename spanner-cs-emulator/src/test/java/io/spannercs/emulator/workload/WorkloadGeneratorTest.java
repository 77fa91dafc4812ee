package io.spannercs.emulator.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.google.protobuf.ListValue;
import com.google.protobuf.Value;
import com.google.spanner.v1.Mutation;
import io.spannercs.emulator.EmulatedDatabase;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.schema.ColumnDef;
import io.spannercs.emulator.schema.SpannerTypes;
import io.spannercs.emulator.schema.TableDef;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.emulator.storage.ModType;
import io.spannercs.emulator.storage.RowChange;
import io.spannercs.emulator.testing.Await;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WorkloadGeneratorTest {
    /** Every column type the emulator supports, NOT NULL columns and several kinds of key. */
    static final String ALL_TYPES_DDL =
            """
            CREATE TABLE AllTypes (
              Id INT64 NOT NULL,
              I INT64, F FLOAT64, F32 FLOAT32, N NUMERIC, B BOOL, S STRING(MAX), BY BYTES(MAX),
              D DATE, TS TIMESTAMP, J JSON,
              AI ARRAY<INT64>, AF ARRAY<FLOAT64>, AF32 ARRAY<FLOAT32>, AN ARRAY<NUMERIC>,
              AB ARRAY<BOOL>, ASTR ARRAY<STRING(MAX)>, ABY ARRAY<BYTES(MAX)>, AD ARRAY<DATE>,
              ATS ARRAY<TIMESTAMP>, AJ ARRAY<JSON>,
              RequiredS STRING(MAX) NOT NULL, RequiredN NUMERIC NOT NULL,
              RequiredA ARRAY<TIMESTAMP> NOT NULL
            ) PRIMARY KEY (Id);
            CREATE TABLE Composite (
              K1 STRING(MAX) NOT NULL, K2 BOOL NOT NULL, K3 TIMESTAMP NOT NULL, K4 DATE NOT NULL,
              K5 BYTES(MAX) NOT NULL, K6 NUMERIC NOT NULL, K7 FLOAT64 NOT NULL, K8 INT64 NOT NULL,
              V STRING(MAX), W FLOAT32 NOT NULL
            ) PRIMARY KEY (K1, K2, K3, K4, K5, K6, K7, K8);
            CREATE TABLE KeysOnly (A INT64 NOT NULL, B STRING(MAX) NOT NULL) PRIMARY KEY (A, B);
            CREATE TABLE Flags (X BOOL NOT NULL, Y BOOL NOT NULL, Note STRING(MAX))
              PRIMARY KEY (X, Y);
            CREATE CHANGE STREAM Everything FOR ALL;
            CREATE CHANGE STREAM Mutable FOR ALL OPTIONS (partition_mode = 'MUTABLE_KEY_RANGE',
              value_capture_type = 'NEW_ROW_AND_OLD_VALUES');
            """;

    private final List<SpannerEmulator> emulators = new ArrayList<>();

    @AfterEach
    void closeEmulators() {
        emulators.forEach(SpannerEmulator::close);
    }

    private EmulatedDatabase database(String ddl) {
        SpannerEmulator emulator = SpannerEmulator.builder().ddl(ddl).start();
        emulators.add(emulator);
        return emulator.database();
    }

    @Test
    void writesValidCanonicalValuesOfEveryType() {
        EmulatedDatabase db = database(ALL_TYPES_DDL);
        WorkloadGenerator gen =
                new WorkloadGenerator(
                        db,
                        WorkloadConfig.builder()
                                .keySpace(300)
                                .rowsPerTransaction(1, 5)
                                .transactionTag("wl")
                                .build());
        Set<String> nonNullColumns = new HashSet<>();
        List<String> notCanonical = new ArrayList<>();
        gen.setListener(
                (mutations, txn) -> {
                    for (Mutation m : mutations) {
                        Mutation.Write w =
                                m.hasInsert()
                                        ? m.getInsert()
                                        : m.hasUpdate() ? m.getUpdate() : null;
                        if (w == null) {
                            continue;
                        }
                        TableDef t = db.schema().table(w.getTable()).orElseThrow();
                        ListValue row = w.getValues(0);
                        for (int i = 0; i < w.getColumnsCount(); i++) {
                            ColumnDef c = t.column(w.getColumns(i)).orElseThrow();
                            Value v = row.getValues(i);
                            if (!SpannerTypes.canonicalize(c.type(), v).equals(v)) {
                                notCanonical.add(t.name() + "." + c.name() + "=" + v);
                            }
                            if (!SpannerTypes.isNull(v)) {
                                nonNullColumns.add(t.name() + "." + c.name());
                            }
                        }
                    }
                });

        WorkloadGenerator.RunResult result = gen.runTransactions(3000);

        assertThat(result.failedTransactions()).isZero();
        assertThat(result.committedTransactions()).isEqualTo(3000);
        assertThat(notCanonical).isEmpty();
        for (TableDef t : db.schema().tables()) {
            for (ColumnDef c : t.columns()) {
                assertThat(nonNullColumns).contains(t.name() + "." + c.name());
            }
        }
        List<CommittedTransaction> truth = db.groundTruth();
        assertThat(truth).hasSize(3000);
        assertThat(truth).allMatch(txn -> txn.transactionTag().equals("wl"));
        long changes = truth.stream().mapToLong(txn -> txn.changes().size()).sum();
        assertThat(gen.rowChanges()).isEqualTo(changes);
        WorkloadGenerator.Stats stats = gen.stats();
        assertThat(stats.inserts() + stats.updates() + stats.deletes()).isEqualTo(changes);
        int rows = db.database().rowCounts().values().stream().mapToInt(Integer::intValue).sum();
        assertThat(rows).isEqualTo(stats.inserts() - stats.deletes());
        // Small key spaces fill up: the all-BOOL key has 4 keys, the key spaces 300.
        assertThat(db.database().rowCounts().get("Flags")).isBetween(0, 4);
        assertThat(db.database().rowCounts().get("AllTypes")).isBetween(1, 300);
        assertThat(db.changeStream("Everything").recordCount()).isGreaterThan(0);
    }

    @Test
    void respectsTheMix() {
        EmulatedDatabase db = database(ALL_TYPES_DDL);
        WorkloadGenerator gen =
                new WorkloadGenerator(
                        db,
                        WorkloadConfig.builder()
                                .tables("AllTypes")
                                .keySpace(100_000)
                                .rowsPerTransaction(1, 1)
                                .seed(7)
                                .build());
        gen.preload(500);
        assertThat(db.database().rowCounts().get("AllTypes")).isEqualTo(500);
        WorkloadGenerator.Stats before = gen.stats();

        gen.runTransactions(4000);

        WorkloadGenerator.Stats after = gen.stats();
        double total = 4000;
        assertThat(after.failedTransactions()).isZero();
        assertThat((after.inserts() - before.inserts()) / total).isCloseTo(0.50, within(0.04));
        assertThat((after.updates() - before.updates()) / total).isCloseTo(0.35, within(0.04));
        assertThat((after.deletes() - before.deletes()) / total).isCloseTo(0.15, within(0.04));
    }

    @Test
    void updateOnlyMixUpdatesExistingRows() {
        EmulatedDatabase db = database(ALL_TYPES_DDL);
        WorkloadGenerator loader =
                new WorkloadGenerator(db, WorkloadConfig.builder().tables("Composite").build());
        loader.preload(50);
        WorkloadGenerator gen =
                new WorkloadGenerator(
                        db,
                        WorkloadConfig.builder()
                                .tables("Composite")
                                .mix(0, 1, 0)
                                .hotKeys(2, 0.5)
                                .build());
        int before = db.groundTruth().size();

        WorkloadGenerator.RunResult result = gen.runTransactions(200);

        assertThat(result.failedTransactions()).isZero();
        List<CommittedTransaction> truth = db.groundTruth();
        assertThat(truth.subList(before, truth.size()))
                .flatMap(CommittedTransaction::changes)
                .allMatch(c -> c.modType() == ModType.UPDATE);
        assertThat(db.database().rowCounts().get("Composite")).isEqualTo(50);
    }

    @Test
    void sameSeedGivesSameMutations() {
        List<List<Mutation>> a = record(11, 400);
        List<List<Mutation>> b = record(11, 400);
        List<List<Mutation>> c = record(12, 400);
        assertThat(a).hasSize(400);
        assertThat(b).isEqualTo(a);
        assertThat(c).isNotEqualTo(a);
    }

    private List<List<Mutation>> record(long seed, int n) {
        EmulatedDatabase db = database(ALL_TYPES_DDL);
        WorkloadGenerator gen =
                new WorkloadGenerator(
                        db,
                        WorkloadConfig.builder().seed(seed).keySpace(50).hotKeys(5, 0.2).build());
        List<List<Mutation>> out = new ArrayList<>();
        gen.setListener((mutations, txn) -> out.add(mutations));
        gen.runTransactions(n);
        return out;
    }

    @Test
    void demoPresetWritesOrdersThatMoveThroughStatuses() {
        Clock clock = Clock.fixed(Instant.parse("2026-01-02T03:04:05.123456Z"), ZoneOffset.UTC);
        EmulatedDatabase db = database(DemoSchema.ddl());
        WorkloadGenerator gen =
                new WorkloadGenerator(db, WorkloadConfig.demo().clock(clock).seed(3).build());

        WorkloadGenerator.RunResult result = gen.runTransactions(1500);

        assertThat(result.failedTransactions()).isZero();
        assertThat(result.committedTransactions()).isEqualTo(1500);
        Map<List<Value>, String> status = new HashMap<>();
        List<Long> insertedOrderIds = new ArrayList<>();
        int orderChanges = 0;
        for (CommittedTransaction txn : db.groundTruth()) {
            for (RowChange change : txn.changes()) {
                if (!change.table().name().equals("Orders")) {
                    continue;
                }
                orderChanges++;
                if (change.modType() == ModType.DELETE) {
                    status.remove(change.key());
                    continue;
                }
                List<Value> row = change.newRow();
                String s = row.get(2).getStringValue();
                String previous = status.put(change.key(), s);
                if (change.modType() == ModType.INSERT) {
                    insertedOrderIds.add(Long.parseLong(change.key().get(0).getStringValue()));
                    assertThat(s).isEqualTo("NEW");
                    assertThat(row.get(1).getStringValue()).matches("\\d+");
                    assertThat(new BigDecimal(row.get(3).getStringValue()).scale())
                            .isLessThanOrEqualTo(2);
                    assertThat(row.get(7).getStringValue())
                            .isEqualTo("2026-01-02T03:04:05.123456Z");
                } else {
                    assertThat(List.of(previous + ">" + s))
                            .containsAnyOf("NEW>PAID", "PAID>SHIPPED", "SHIPPED>SHIPPED");
                }
            }
        }
        assertThat(orderChanges).isGreaterThan(1000);
        assertThat(status.values()).contains("NEW", "PAID", "SHIPPED");
        // Keys are handed out in sequence.
        for (int i = 0; i < insertedOrderIds.size(); i++) {
            assertThat(insertedOrderIds.get(i)).isEqualTo(i + 1L);
        }
        assertThat(db.database().rowCounts().get("Customers")).isGreaterThan(0);
    }

    @Test
    void failedCommitsAreCountedAndTheLiveKeysReread() {
        EmulatedDatabase db = database(ALL_TYPES_DDL);
        WorkloadConfig insertOnly =
                WorkloadConfig.builder().tables("KeysOnly").keySpace(5).mix(1, 0, 0).build();
        WorkloadGenerator gen = new WorkloadGenerator(db, insertOnly);
        List<RuntimeException> errors = new CopyOnWriteArrayList<>();
        gen.setListener(
                new WorkloadGenerator.Listener() {
                    @Override
                    public void committed(List<Mutation> mutations, CommittedTransaction txn) {}

                    @Override
                    public void failed(List<Mutation> mutations, RuntimeException error) {
                        errors.add(error);
                    }
                });
        // Another writer takes the whole key space behind the generator's back.
        new WorkloadGenerator(
                        db,
                        WorkloadConfig.builder()
                                .tables("KeysOnly")
                                .keySpace(5)
                                .mix(1, 0, 0)
                                .seed(99)
                                .build())
                .preload(5);

        assertThat(gen.runTransactions(1).failedTransactions()).isEqualTo(1);
        assertThat(errors).singleElement().asString().contains("ALREADY_EXISTS");
        // It now knows the table is full: an insert-only mix falls back to deletes.
        WorkloadGenerator.RunResult next = gen.runTransactions(1);
        assertThat(next.failedTransactions()).isZero();
        assertThat(next.committedTransactions()).isEqualTo(1);
        assertThat(gen.stats().deletes()).isPositive();
    }

    /**
     * Never faster than the rate (a bound that holds at any moment, however loaded the machine),
     * and it gets there: 100 commits at 200 a second within a limit that only a stalled generator
     * misses. After {@code stop()} returns, nothing more commits: its thread is gone.
     */
    @Test
    void runsAtTheConfiguredRateAndStops() {
        EmulatedDatabase db = database(DemoSchema.ddl());
        WorkloadGenerator gen =
                new WorkloadGenerator(db, WorkloadConfig.demo().transactionsPerSecond(200).build());
        Set<Thread> others = workloadThreads();
        long before = System.nanoTime();
        gen.start();
        Set<Thread> own = workloadThreads();
        own.removeAll(others);
        assertThat(own).as("the generator's own thread").hasSize(1);
        Await.until(
                "100 commits", Duration.ofSeconds(30), () -> gen.committedTransactions() >= 100);
        long committed = gen.committedTransactions();
        double seconds = (System.nanoTime() - before) / 1e9;
        assertThat(committed)
                .as("commits after %.3f s at 200/s", seconds)
                .isLessThanOrEqualTo((long) (seconds * 200));
        gen.stop();
        assertThat(gen.isRunning()).isFalse();
        Thread thread = own.iterator().next();
        Await.until("the workload thread to end", Duration.ofSeconds(10), () -> !thread.isAlive());
        committed = gen.committedTransactions();
        assertThat(committed).isGreaterThanOrEqualTo(100);
        assertThat(gen.failedTransactions()).isZero();
        assertThat(db.groundTruth()).hasSize((int) committed);
    }

    private static Set<Thread> workloadThreads() {
        Set<Thread> out = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("spanner-cs-workload") && t.isAlive()) {
                out.add(t);
            }
        }
        return out;
    }

    @Test
    void backgroundTaskSurvivesListenerExceptions() {
        EmulatedDatabase db = database(DemoSchema.ddl());
        WorkloadGenerator gen =
                new WorkloadGenerator(db, WorkloadConfig.demo().transactionsPerSecond(100).build());
        AtomicInteger calls = new AtomicInteger();
        gen.setListener(
                (mutations, txn) -> {
                    calls.incrementAndGet();
                    throw new IllegalStateException("listener bug");
                });
        gen.start();
        // The task goes on after the first exception: more calls follow it.
        Await.until("6 listener calls", Duration.ofSeconds(30), () -> calls.get() > 5);
        gen.stop();
        assertThat(calls.get()).isGreaterThan(5);
        assertThat(gen.committedTransactions()).isEqualTo(calls.get());
        assertThat(gen.failedTransactions()).isZero();
    }

    @Test
    void rejectsUnknownTables() {
        EmulatedDatabase db = database(DemoSchema.ddl());
        assertThatThrownBy(
                        () ->
                                new WorkloadGenerator(
                                        db, WorkloadConfig.builder().tables("Nope").build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Nope");
    }
}
