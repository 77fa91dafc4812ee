package io.spannercs.flink.source.anywhere;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.flink.source.spanner.SharedReaderClients;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The checkpoint-anywhere test (DESIGN.md section 3, "Restore anywhere"): the real enumerator and
 * readers ({@code SpannerChangeStreamSource#createEnumerator}, {@code restoreEnumerator}, {@code
 * createReader}), the real split and enumerator state serializers (every checkpoint and every
 * assignment goes through them) and the real source events (Java-serialized on every send), driven
 * in this JVM by {@link Job} as Flink's runtime drives them, against the in-process emulator,
 * restored after elements of every kind in five ways: (a) a global restore, (b) a global restore at
 * another parallelism, (c) a failover of every reader without the enumerator, (d) a failover of the
 * one reader that emitted the element, (e) a failover before any checkpoint completed. In both
 * partition modes, with the emulator's plain behaviour and with every specification edge, at
 * parallelism 2 and 1, and from a snapshot then the stream.
 *
 * <p>What {@link Job} takes from Flink 2.3 (read in its sources): the coordinator checkpoints
 * first, and what it sends afterwards waits in the subtask's gateway until that subtask has taken
 * its snapshot ({@code OperatorCoordinatorHolder}: gateways close when the coordinator's checkpoint
 * completes and open on the subtask's {@code AcknowledgeCheckpointEvent}); what it sent before
 * reaches the task first; events from readers are delivered meanwhile. {@code SourceOperator.open}
 * adds restored splits, registers the reader, then starts it. A failed subtask is unregistered
 * ({@code SourceCoordinator.executionAttemptFailed}); when it is reset, {@code addSplitsBack} gets
 * what {@code SplitAssignmentTracker} recorded for it after the checkpoint it restarts from
 * (including checkpoints taken but not completed). {@code SourceCoordinatorContext} assigns only to
 * registered readers. A global restore creates the enumerator from the checkpoint; at another
 * parallelism the readers' split lists are concatenated and handed out in contiguous runs ({@code
 * RoundRobinOperatorStateRepartitioner}). Watermarks: see {@link SimOutput}.
 *
 * <p>For every restore point, on the committed output (what an exactly-once sink holds): every
 * change of the ground truth exactly once, per-key commit order, no late record, every reported
 * partition end the partition's own, and the job finishes (a run that cannot is described). Lags
 * that make order violations show whatever the timing come from the emulator's holds ({@link
 * Hold}).
 *
 * <p>By default a sample of points runs: per kind of element the first and last occurrence ({@code
 * -Dspannercs.anywhere.perKind=N} for more), the first move-in's event and the ends of the first
 * merge's parents, each in all five modes. {@code -Dspannercs.anywhere.all=true} restores after
 * every element of a run, in every mode. {@code -Dspannercs.anywhere.scenarios=mutable,legacy},
 * {@code -Dspannercs.anywhere.modes=a,c}, {@code -Dspannercs.anywhere.kinds=PARTITION_END} and
 * {@code -Dspannercs.anywhere.trace=true} narrow a run down and show what each restored job did
 * ({@code -Dspannercs.anywhere.events=true} adds the source events to what it shows). The counts of
 * points restored per mode, partition mode and element kind are printed at the end.
 */
class CheckpointAnywhereITCase {
    static final boolean ALL = Boolean.getBoolean("spannercs.anywhere.all");
    static final int PER_KIND = Integer.getInteger("spannercs.anywhere.perKind", 2);

    /** Only these scenarios (comma-separated names), for running one while working on it. */
    static final String ONLY = System.getProperty("spannercs.anywhere.scenarios", "");

    /** Only these modes (comma-separated: a,b,c,d,e). */
    static final String MODES = System.getProperty("spannercs.anywhere.modes", "");

    /** Only points after elements of these kinds (comma-separated kind names). */
    static final String KINDS = System.getProperty("spannercs.anywhere.kinds", "");

    /** At most this many points per scenario (for a quick look). */
    static final int MAX_POINTS =
            Integer.getInteger("spannercs.anywhere.maxPoints", Integer.MAX_VALUE);

    private static final Map<String, Scenario> SCENARIOS = new LinkedHashMap<>();
    private static SpannerEmulator plain;
    private static SpannerEmulator edges;
    // Keep a reader client of each emulator open between jobs, as a TaskManager's readers share
    // one (SharedReaderClients): the jobs' readers join it instead of starting clients anew.
    private static final List<SharedReaderClients.Lease> CLIENTS = new ArrayList<>();

    @BeforeAll
    static void writeHistories() {
        plain =
                SpannerEmulator.builder()
                        .ddl(Scenario.DDL)
                        .initialPartitions(3)
                        .maxPartitions(6)
                        .seed(11)
                        .start();
        edges =
                SpannerEmulator.builder()
                        .ddl(Scenario.DDL)
                        .initialPartitions(3)
                        .maxPartitions(6)
                        .seed(12)
                        .edgeCases(EdgeCases.all())
                        .start();
        Scenario.History p = Scenario.write(plain, 21);
        Scenario.History e = Scenario.write(edges, 22);
        add(new Scenario("mutable", p, Scenario.MUTABLE_STREAM, false, false, 2));
        add(new Scenario("mutable-p1", p, Scenario.MUTABLE_STREAM, false, false, 1));
        add(new Scenario("legacy", p, Scenario.LEGACY_STREAM, false, false, 2));
        add(new Scenario("mutable-edges", e, Scenario.MUTABLE_STREAM, true, false, 2));
        add(new Scenario("legacy-edges", e, Scenario.LEGACY_STREAM, true, false, 2));
        add(new Scenario("snapshot", p, Scenario.MUTABLE_STREAM, false, true, 2));
        CLIENTS.add(SharedReaderClients.acquire(SCENARIOS.get("mutable").source().config()));
        CLIENTS.add(SharedReaderClients.acquire(SCENARIOS.get("mutable-edges").source().config()));
    }

    private static void add(Scenario s) {
        SCENARIOS.put(s.name(), s);
    }

    @AfterAll
    static void report() {
        System.out.println(
                "Checkpoint-anywhere points restored per mode:\n"
                        + Runner.table(Runner.byPrefix(Runner.RESTORED, 1))
                        + "per mode and partition mode:\n"
                        + Runner.table(Runner.byPrefix(Runner.RESTORED, 2))
                        + "per mode, partition mode and element kind:\n"
                        + Runner.table(Runner.RESTORED)
                        + (Runner.SKIPPED.isEmpty()
                                ? ""
                                : "points a run did not reach (skipped):\n"
                                        + Runner.table(Runner.SKIPPED)));
        CLIENTS.forEach(SharedReaderClients.Lease::close);
        if (plain != null) {
            plain.close();
        }
        if (edges != null) {
            edges.close();
        }
    }

    static Stream<Arguments> scenarios() {
        return Stream.of(
                        "mutable",
                        "mutable-p1",
                        "legacy",
                        "mutable-edges",
                        "legacy-edges",
                        "snapshot")
                .map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void restoresAnywhere(String name) {
        org.junit.jupiter.api.Assumptions.assumeTrue(
                ONLY.isEmpty() || List.of(ONLY.split(",")).contains(name), "not selected");
        long started = System.nanoTime();
        Scenario scenario = SCENARIOS.get(name);
        Runner runner = new Runner(scenario, name.hashCode());
        List<String> baseline = runner.survey();
        assertThat(baseline).as("%s: a run without failure", name).isEmpty();
        Map<String, Integer> kinds = new java.util.TreeMap<>();
        runner.surveyElements().forEach(e -> kinds.merge(e.kind().name(), 1, Integer::sum));
        System.out.println(
                name
                        + ": a run has "
                        + runner.surveyElements().size()
                        + " elements "
                        + kinds
                        + (scenario.mutable()
                                ? ", first move-in " + scenario.firstMoveIn()
                                : ", first merge " + scenario.firstMerge())
                        + " (survey "
                        + (System.nanoTime() - started) / 1_000_000
                        + " ms)");
        List<Runner.Point> points = ALL ? runner.everyPoint() : runner.sampledPoints(PER_KIND);
        if (!KINDS.isEmpty()) {
            List<String> only = List.of(KINDS.split(","));
            points =
                    points.stream()
                            .filter(p -> p.kind() != null && only.contains(p.kind().name()))
                            .toList();
        }
        points = points.subList(0, Math.min(points.size(), MAX_POINTS));
        Set<Runner.Mode> modes = EnumSet.noneOf(Runner.Mode.class);
        for (Runner.Mode m : Runner.Mode.values()) {
            if (MODES.isEmpty() || List.of(MODES.split(",")).contains(m.letter())) {
                modes.add(m);
            }
        }
        List<Runner.Outcome> failures = new ArrayList<>();
        int outcomes = 0;
        for (Runner.Point point : points) {
            for (Runner.Outcome o : runner.run(point, modes)) {
                outcomes++;
                if (o.failure() != null) {
                    failures.add(o);
                }
            }
        }
        StringBuilder message = new StringBuilder();
        for (Runner.Outcome o : failures) {
            message.append("\n  ")
                    .append(o.mode().label)
                    .append(", ")
                    .append(o.point())
                    .append(" (")
                    .append(o.kind())
                    .append("):\n      ")
                    .append(o.failure());
        }
        System.out.println(
                name
                        + ": "
                        + points.size()
                        + " points, "
                        + outcomes
                        + " restores, "
                        + failures.size()
                        + " failed, "
                        + (System.nanoTime() - started) / 1_000_000
                        + " ms");
        assertThat(failures)
                .as("%s: %d of %d restores failed:%s", name, failures.size(), outcomes, message)
                .isEmpty();
    }
}
