package io.spannercs.emulator.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.Dialect;
import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.schema.ChangeStreamDef;
import io.spannercs.emulator.schema.PartitionMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * An emulator in specification-edge mode with {@link RandomClientWrites}' tables and two change
 * streams, {@code mut} (MUTABLE_KEY_RANGE, NEW_ROW_AND_OLD_VALUES) and {@code imm} (legacy,
 * OLD_AND_NEW_VALUES): random transactions from several client threads while partitions churn, then
 * reads with {@link EdgeTolerantReader} compared with the ground truth.
 */
public final class EdgeScenario implements AutoCloseable {
    public static final String MUTABLE = "mut";
    public static final String LEGACY = "imm";

    private final SpannerEmulator emulator;
    private final EmulatorClients clients;
    private final boolean postgres;
    private Timestamp start;
    private Timestamp end;

    private EdgeScenario(SpannerEmulator emulator, boolean postgres) {
        this.emulator = emulator;
        this.clients = new EmulatorClients(emulator);
        this.postgres = postgres;
    }

    /**
     * @param configure further builder settings (seed, partitions, ...)
     */
    public static EdgeScenario start(
            EdgeCases edges, boolean postgres, Consumer<SpannerEmulator.Builder> configure) {
        String ddl;
        if (postgres) {
            ddl =
                    RandomClientWrites.PG_TABLES
                            + "CREATE CHANGE STREAM mut FOR ALL WITH (partition_mode ="
                            + " 'MUTABLE_KEY_RANGE', value_capture_type ="
                            + " 'NEW_ROW_AND_OLD_VALUES');\n"
                            + "CREATE CHANGE STREAM imm FOR ALL WITH (value_capture_type ="
                            + " 'OLD_AND_NEW_VALUES');\n";
        } else {
            ddl =
                    RandomClientWrites.TABLES
                            + "CREATE CHANGE STREAM mut FOR ALL OPTIONS (partition_mode ="
                            + " 'MUTABLE_KEY_RANGE', value_capture_type ="
                            + " 'NEW_ROW_AND_OLD_VALUES');\n"
                            + "CREATE CHANGE STREAM imm FOR ALL OPTIONS (value_capture_type ="
                            + " 'OLD_AND_NEW_VALUES');\n";
        }
        SpannerEmulator.Builder b =
                SpannerEmulator.builder()
                        .ddl(ddl)
                        .edgeCases(edges)
                        .initialPartitions(2)
                        .maxPartitions(6)
                        .seed(Long.getLong("edge.seed", 17));
        if (postgres) {
            b.dialect(io.spannercs.emulator.schema.Dialect.POSTGRESQL);
        }
        configure.accept(b);
        return new EdgeScenario(b.start(), postgres);
    }

    public SpannerEmulator emulator() {
        return emulator;
    }

    public EmulatorClients clients() {
        return clients;
    }

    public Timestamp startTime() {
        return start;
    }

    public Timestamp endTime() {
        return end;
    }

    /**
     * Writes {@code transactions} random transactions from {@code writers} client threads while the
     * main thread churns every change stream every {@code churnEvery} transactions (0: never); the
     * read window is from before the first to after the last.
     */
    public EdgeScenario write(int transactions, int writers, int churnEvery) {
        return write(transactions, writers, churnEvery, ChangeStream::churnRandomly);
    }

    /** Like {@link #write(int, int, int)}, churning with {@code churn} on every change stream. */
    public EdgeScenario write(
            int transactions, int writers, int churnEvery, Consumer<ChangeStream> churn) {
        start = TestTimes.now();
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                RandomClientWrites writes = new RandomClientWrites(100 + w, 40, postgres);
                int n = transactions / writers;
                futures.add(
                        pool.submit(
                                () -> {
                                    for (int i = 0; i < n; i++) {
                                        writes.writeOne(clients.client());
                                    }
                                }));
            }
            int churned = 0;
            while (!futures.stream().allMatch(Future::isDone)) {
                long committed = emulator.database().groundTruth().size();
                if (churnEvery > 0 && committed / churnEvery > churned) {
                    churned++;
                    for (ChangeStream cs : emulator.database().changeStreams()) {
                        churn.accept(cs);
                    }
                }
                Thread.sleep(1);
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        } finally {
            pool.shutdownNow();
        }
        end = TestTimes.now();
        return this;
    }

    public boolean mutable(String stream) {
        return emulator.database().changeStream(stream).def().partitionMode()
                == PartitionMode.MUTABLE_KEY_RANGE;
    }

    public EdgeTolerantReader reader(String stream) {
        return new EdgeTolerantReader(
                clients.client(),
                stream,
                mutable(stream),
                postgres ? Dialect.POSTGRESQL : Dialect.GOOGLE_STANDARD_SQL);
    }

    /** Reads the stream over the write window with the reader. */
    public Map<String, List<ReadRecord>> read(EdgeTolerantReader reader) {
        return reader.readAll(start, end);
    }

    /** Reads the stream over the write window and checks it against the ground truth. */
    public Map<String, List<ReadRecord>> readAndCheck(String stream, boolean expectKeyMoves) {
        Map<String, List<ReadRecord>> partitions = read(reader(stream));
        check(stream, partitions, expectKeyMoves);
        return partitions;
    }

    /** Checks a read of the stream against the ground truth exactly. */
    public void check(
            String stream, Map<String, List<ReadRecord>> partitions, boolean expectKeyMoves) {
        ChangeStreamDef def = emulator.database().changeStream(stream).def();
        boolean mutable = mutable(stream);
        EdgeChecks.checkStream(
                def,
                emulator.database().groundTruth(),
                emulator.edgeCases(),
                mutable,
                mutable,
                partitions,
                expectKeyMoves);
        assertThat(EdgeChecks.dataRecords(partitions)).isNotEmpty();
    }

    @Override
    public void close() {
        clients.close();
        emulator.close();
    }
}
