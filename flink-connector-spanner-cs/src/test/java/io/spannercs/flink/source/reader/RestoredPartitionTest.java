package io.spannercs.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.Dialect;
import com.google.protobuf.Value;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.changestream.ChurnOp;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.source.TestConfigs;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.split.PartitionReport;
import io.spannercs.flink.source.split.PartitionSplit;
import io.spannercs.flink.source.split.SpannerSplit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A reader checkpointed after any element of a partition, and restored from that checkpoint, keeps
 * every guarantee (DESIGN.md section 3, "Restore anywhere"): a partition whose end was emitted
 * finishes without being queried forever, and a move-in keeps its barrier. Each test reads one
 * partition to its end or barrier, checkpoints after every element, and restores every checkpoint
 * in a reader of its own.
 */
class RestoredPartitionTest {
    private static final Duration LIMIT = Duration.ofSeconds(30);

    private ReaderFixture fixture;
    private SpannerEmulator emulator;

    @AfterEach
    void stop() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }

    /**
     * The partition ends (legacy: it splits into two children; mutable: it merges into another).
     * Restored after its end record, its query would start at the end timestamp, skip the end
     * record it had emitted and end; the partition must still finish, reporting its end once and
     * not query again and again.
     */
    @ParameterizedTest
    @ValueSource(strings = {"IMMUTABLE_KEY_RANGE", "MUTABLE_KEY_RANGE"})
    void aPartitionRestoredAfterAnyElementFinishes(String mode) throws Exception {
        boolean mutable = mode.equals("MUTABLE_KEY_RANGE");
        emulator = start(mode, mutable ? 2 : 1);
        ChangeStream cs = emulator.database().changeStream("cs");
        List<String> before = cs.liveTokens();
        long start = commit(0, 1, 2);
        cs.churn(mutable ? ChurnOp.MERGE : ChurnOp.SPLIT);
        commit(3, 4, 5);
        Set<String> ended = new LinkedHashSet<>(before);
        ended.removeAll(cs.liveTokens());
        assertThat(ended).as("partitions that ended").hasSize(1);
        String token = ended.iterator().next();
        // Unbounded, as a job that runs for months: the partition's end is its only end.
        SpannerSourceConfig config = config(mode, SpannerSourceConfig.NO_END);

        List<List<SpannerSplit>> checkpoints = new ArrayList<>();
        ReaderDriver first =
                driver(config, List.of(split(token, start, SpannerSourceConfig.NO_END)));
        checkpoints.add(first.checkpoint());
        first.pollUntil(
                () -> {
                    try {
                        checkpoints.add(first.checkpoint());
                        return finishedReport(first, token) != null;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                LIMIT,
                "partition " + token + " finished");
        PartitionReport.Finished finished = finishedReport(first, token);
        assertThat(finished).as("its end reported").isNotNull();
        // The last point is state an earlier version wrote between the end and the split's done
        // marker: the end emitted and reported, the split not finished.
        PartitionSplit done = partitionIn(checkpoints.get(checkpoints.size() - 1), token);
        assertThat(done.finished()).isTrue();
        checkpoints.add(
                List.of(
                        withState(
                                done,
                                PartitionSplit.NO_BARRIER,
                                done.pendingReports().stream()
                                        .filter(r -> !(r instanceof PartitionReport.Finished))
                                        .toList(),
                                false)));

        for (int i = 0; i < checkpoints.size(); i++) {
            PartitionSplit restored = partitionIn(checkpoints.get(i), token);
            if (restored == null || restored.finished()) {
                continue;
            }
            ReaderDriver again = driver(config, checkpoints.get(i));
            int point = i;
            again.pollUntil(
                    () -> {
                        assertThat(again.partitionQueries())
                                .as("queries of the partition restored at point %d", point)
                                .isLessThanOrEqualTo(4);
                        return finishedReport(again, token) != null;
                    },
                    LIMIT,
                    "partition " + token + " restored at " + restored + " finished");
            assertThat(finishedReport(again, token))
                    .as("restored at point %d (%s)", point, restored)
                    .isEqualTo(finished);
        }
    }

    /**
     * A key moves from partition S into P at T; P waits at T for S, which never gets there (no
     * enumerator releases the barrier). P restored from any checkpoint must wait at T too: a
     * checkpoint between the move-in record and its barrier must not lose the barrier.
     */
    @Test
    void aMoveInRestoredAfterAnyElementKeepsItsBarrier() throws Exception {
        runMoveIn(false);
    }

    /**
     * The same with the source partition read by the same reader, which then decides the barrier
     * itself ({@link LocalBarriers}); the emulator holds the source back, so it never reaches T.
     */
    @Test
    void aMoveInReleasedLocallyRestoredAfterAnyElementKeepsItsBarrier() throws Exception {
        runMoveIn(true);
    }

    private void runMoveIn(boolean sourceHere) throws Exception {
        String mode = "MUTABLE_KEY_RANGE";
        emulator = start(mode, 2);
        ChangeStream cs = emulator.database().changeStream("cs");
        List<Value> key = List.of(ReaderFixture.int64(7));
        String source = cs.ownerOf("T", key);
        long start = commit(7, 7, 7);
        long beforeMove = lastCommit;
        String destination = cs.moveKey("T", key);
        assertThat(destination).isNotEqualTo(source);
        long end = commit(7, 7, 7);
        SpannerSourceConfig config = config(mode, end);
        emulator.faults().hold(source);

        List<SpannerSplit> assigned = new ArrayList<>();
        assigned.add(split(destination, start, end));
        if (sourceHere) {
            assigned.add(split(source, start, end));
        }
        List<List<SpannerSplit>> checkpoints = new ArrayList<>();
        ReaderDriver first = driver(config, assigned);
        checkpoints.add(first.checkpoint());
        first.pollUntil(
                () -> {
                    try {
                        List<SpannerSplit> c = first.checkpoint();
                        checkpoints.add(c);
                        assertThat(afterMoveIn(first, beforeMove)).as("emitted after T").isEmpty();
                        return partitionIn(c, destination).barrierMicros()
                                != PartitionSplit.NO_BARRIER;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                LIMIT,
                "destination blocked at its barrier");
        long barrier =
                partitionIn(checkpoints.get(checkpoints.size() - 1), destination).barrierMicros();
        assertThat(barrier).as("the barrier is the move-in's").isGreaterThan(beforeMove);
        // The last point is state an earlier version wrote between the move-in and its barrier.
        List<SpannerSplit> earlier = new ArrayList<>();
        for (SpannerSplit s : checkpoints.get(checkpoints.size() - 1)) {
            earlier.add(
                    s instanceof PartitionSplit p && p.token().equals(destination)
                            ? withState(p, PartitionSplit.NO_BARRIER, p.pendingReports(), false)
                            : s);
        }
        checkpoints.add(earlier);

        for (int i = 0; i < checkpoints.size(); i++) {
            ReaderDriver again = driver(config, checkpoints.get(i));
            int point = i;
            again.pollUntil(
                    () -> {
                        assertThat(afterMoveIn(again, beforeMove))
                                .as(
                                        "changes after the move-in emitted by %s restored at point"
                                                + " %d while its source %s has not reached it",
                                        destination, point, source)
                                .isEmpty();
                        try {
                            return partitionIn(again.checkpoint(), destination).barrierMicros()
                                    == barrier;
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    LIMIT,
                    "destination restored at point " + point + " blocked at " + barrier);
        }
    }

    /**
     * Two partitions read by one reader swap key ranges at T: each waits at T for the other, and
     * the reader releases both, each having moved its range out. Restored from any checkpoint, each
     * reads to the end, or waits at a barrier that is the enumerator's to release (restored
     * waiting, or reported to it); none waits on this reader for ever. (Restored at no barrier
     * after the swap, both once waited here for each other: their move-outs were not handled
     * again.)
     */
    @Test
    void partitionsThatSwappedRangesRestoredAfterAnyElementPassTheSwap() throws Exception {
        emulator = start("MUTABLE_KEY_RANGE", 2);
        ChangeStream cs = emulator.database().changeStream("cs");
        List<String> tokens = cs.liveTokens();
        assertThat(tokens).hasSize(2);
        long start = commit(1, 2, 3, 4, 5, 6);
        cs.churn(ChurnOp.SWAP);
        commit(1, 2, 3, 4, 5, 6);
        long end = lastCommit;
        SpannerSourceConfig config = config("MUTABLE_KEY_RANGE", end);
        List<SpannerSplit> splits = new ArrayList<>();
        tokens.forEach(t -> splits.add(split(t, start, end)));

        List<List<SpannerSplit>> checkpoints = new ArrayList<>();
        ReaderDriver first = driver(config, splits);
        checkpoints.add(first.checkpoint());
        first.pollUntil(
                () -> {
                    try {
                        checkpoints.add(first.checkpoint());
                        return tokens.stream().allMatch(t -> finishedReport(first, t) != null);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                LIMIT,
                "both partitions read to the end");
        int changes = first.output.getEmittedRecords().size();
        assertThat(changes).as("changes read").isEqualTo(12);

        for (int i = 0; i < checkpoints.size(); i++) {
            List<SpannerSplit> restored = checkpoints.get(i);
            ReaderDriver again = driver(config, restored);
            try {
                again.pollUntil(
                        () -> tokens.stream().allMatch(t -> doneOrAsked(again, t, restored)),
                        LIMIT,
                        "both partitions restored at point " + i + " " + restored);
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; now " + describe(again), e);
            }
        }
    }

    /** Finished, or waiting at a barrier that is the enumerator's to release. */
    private static boolean doneOrAsked(ReaderDriver d, String token, List<SpannerSplit> restored) {
        if (finishedReport(d, token) != null) {
            return true;
        }
        PartitionSplit now;
        try {
            now = d.partition(token);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        if (now == null || now.barrierMicros() == PartitionSplit.NO_BARRIER) {
            return false;
        }
        PartitionSplit before = partitionIn(restored, token);
        boolean restoredWaiting = before != null && before.barrierMicros() == now.barrierMicros();
        boolean reported =
                d.reportsSent().stream()
                        .anyMatch(
                                r ->
                                        r instanceof PartitionReport.BarrierReached b
                                                && b.token().equals(token)
                                                && b.micros() == now.barrierMicros());
        return restoredWaiting || reported;
    }

    private static String describe(ReaderDriver d) {
        try {
            return d.checkpoint()
                    + ", sent "
                    + d.reportsSent()
                    + ", emitted "
                    + d.output.getEmittedRecords().size();
        } catch (Exception e) {
            return e.toString();
        }
    }

    private static List<ChangeEvent> afterMoveIn(ReaderDriver d, long micros) {
        List<ChangeEvent> out = new ArrayList<>();
        for (ChangeEvent e : d.output.getEmittedRecords()) {
            java.time.Instant t = e.getCommitTimestamp();
            if (t.getEpochSecond() * 1_000_000L + t.getNano() / 1000 > micros) {
                out.add(e);
            }
        }
        return out;
    }

    private static PartitionSplit withState(
            PartitionSplit p, long barrier, List<PartitionReport> reports, boolean finished) {
        return new PartitionSplit(
                p.token(),
                p.startMicros(),
                p.endMicros(),
                p.parentTokens(),
                p.position(),
                barrier,
                barrier == PartitionSplit.NO_BARRIER ? List.of() : p.barrierSources(),
                reports,
                finished);
    }

    private static PartitionReport.Finished finishedReport(ReaderDriver d, String token) {
        for (PartitionReport r : d.reportsSent()) {
            if (r instanceof PartitionReport.Finished f && f.token().equals(token)) {
                return f;
            }
        }
        return null;
    }

    private static PartitionSplit partitionIn(List<SpannerSplit> checkpoint, String token) {
        for (SpannerSplit s : checkpoint) {
            if (s instanceof PartitionSplit p && p.token().equals(token)) {
                return p;
            }
        }
        return null;
    }

    private ReaderDriver driver(SpannerSourceConfig config, List<SpannerSplit> splits) {
        return fixture.driver(config, splits);
    }

    private static PartitionSplit split(String token, long start, long end) {
        return PartitionSplit.fresh(token, start, end, List.of());
    }

    /** Commits one upsert per key, each in its own transaction; returns the first's timestamp. */
    private long commit(long... keys) {
        long first = Long.MAX_VALUE;
        long last = 0;
        for (long k : keys) {
            last = fixture.commit(List.of(ReaderFixture.upsert(k)));
            first = Math.min(first, last);
        }
        lastCommit = last;
        return first;
    }

    private long lastCommit;

    private SpannerEmulator start(String mode, int partitions) {
        fixture = new ReaderFixture(mode, partitions);
        return fixture.emulator;
    }

    /** Without reads ahead: the queries counted are the partition's own. */
    private SpannerSourceConfig config(String mode, long endMicros) {
        return TestConfigs.config(
                TestConfigs.onEmulator(emulator, "cs", 0, endMicros)
                        .setHeartbeatInterval(Duration.ofMillis(100))
                        .setBarrierTimeout(Duration.ofMinutes(5))
                        .setMaxConcurrentPartitionsPerReader(100)
                        .setBufferedRecordsPerPartition(1000)
                        .setProgressInterval(Duration.ofMillis(50))
                        .setPartitionMode(SpannerSourceConfig.PartitionMode.valueOf(mode))
                        .setDialect(Dialect.GOOGLE_STANDARD_SQL)
                        .setReadAhead(false));
    }
}
