package io.spannercs.flink.source.anywhere;

import io.spannercs.flink.source.enumerator.SnapshotPhase;
import io.spannercs.flink.source.reader.AnywhereProbe;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs restore points of one scenario: an original run up to the point, a checkpoint there (none
 * for {@link Mode#BEFORE_FIRST_CHECKPOINT}), a seeded number of elements more, a failure of the
 * mode's kind, the restored run to its end, and the checks of {@link Verifier}.
 */
final class Runner {
    /** How a job fails and comes back. */
    enum Mode {
        GLOBAL_SAME_PARALLELISM("(a) global restore"),
        GLOBAL_OTHER_PARALLELISM("(b) global restore at another parallelism"),
        REGION_ALL("(c) failover of every reader"),
        REGION_ONE("(d) failover of one reader"),
        BEFORE_FIRST_CHECKPOINT("(e) failover before any checkpoint");

        final String label;

        Mode(String label) {
            this.label = label;
        }

        /** a, b, c, d or e. */
        String letter() {
            return label.substring(1, 2);
        }
    }

    /**
     * Where a restore point is: after the {@code occurrence}-th element of {@code kind} (any kind
     * if null), of partition {@code split} at {@code micros} if given.
     */
    record Point(AnywhereProbe.Kind kind, int occurrence, String split, long micros) {
        static Point of(AnywhereProbe.Kind kind, int occurrence) {
            return new Point(kind, occurrence, null, Long.MIN_VALUE);
        }

        boolean matches(Job.Element element) {
            AnywhereProbe.Element e = element.e();
            return (kind == null || element.kind() == kind)
                    && (split == null || split.equals(e.split()))
                    && (micros == Long.MIN_VALUE || micros == e.micros());
        }

        @Override
        public String toString() {
            if (kind == null) {
                return "after element " + occurrence;
            }
            return "after "
                    + kind
                    + " #"
                    + occurrence
                    + (split == null ? "" : " of " + Scenario.shortToken(split) + " at " + micros);
        }
    }

    /** The outcome of one restore point in one mode. */
    record Outcome(Mode mode, Point point, String kind, String failure) {}

    /** Restored points per mode, partition mode and kind, over the whole test class. */
    static final ConcurrentMap<String, Integer> RESTORED = new ConcurrentHashMap<>();

    static final ConcurrentMap<String, Integer> SKIPPED = new ConcurrentHashMap<>();

    private final Scenario scenario;
    private final long seed;
    private final List<Job.Element> survey = new ArrayList<>();

    Runner(Scenario scenario, long seed) {
        this.scenario = scenario;
        this.seed = seed;
    }

    /**
     * A run without failure: checks it, and learns the elements a run has (for choosing points) and
     * the history's first move-in (whose sources lag from then on).
     */
    List<String> survey() {
        try (Job job = Job.fresh(scenario, scenario.parallelism(), seed, scenario + " survey")) {
            job.backgroundCheckpoints = true;
            job.runToEnd();
            survey.addAll(job.elements());
            List<String> problems =
                    Verifier.check(
                            scenario,
                            List.of(job.emissions()),
                            job.emissions(),
                            job.finishedReports());
            if (scenario.mutable()) {
                survey.stream()
                        .filter(e -> e.e().kind() == AnywhereProbe.Kind.MOVE_IN_EVENT)
                        .min(Comparator.comparingLong(e -> e.e().micros()))
                        .ifPresent(
                                e ->
                                        scenario.setFirstMoveIn(
                                                new Scenario.MoveIn(
                                                        e.e().split(),
                                                        e.e().micros(),
                                                        e.e().moveInSources())));
            } else {
                for (Job.Element e : survey) {
                    if (e.e().kind() != AnywhereProbe.Kind.CHILD_PARTITIONS) {
                        continue;
                    }
                    for (String child : e.e().announced()) {
                        List<String> parents = scenario.partitionParents(child);
                        if (parents.size() > 1
                                && (scenario.firstMerge() == null
                                        || e.e().micros() < scenario.firstMerge().micros())) {
                            scenario.setFirstMerge(
                                    new Scenario.Merge(child, e.e().micros(), parents));
                        }
                    }
                }
            }
            return problems;
        }
    }

    List<Job.Element> surveyElements() {
        return survey;
    }

    /**
     * The points of a default run: per kind of element the survey saw, its first and last
     * occurrence (and more, up to {@code perKind}, seeded); the first move-in's event, and the end
     * of each parent of the first merge (where the lags decide).
     */
    List<Point> sampledPoints(int perKind) {
        Map<AnywhereProbe.Kind, Integer> counts = new EnumMap<>(AnywhereProbe.Kind.class);
        survey.forEach(e -> counts.merge(e.kind(), 1, Integer::sum));
        Random random = new Random(seed ^ 0x5eed);
        List<Point> points = new ArrayList<>();
        counts.forEach(
                (kind, n) -> {
                    Set<Integer> chosen = new TreeSet<>();
                    chosen.add(1);
                    if (perKind > 1) {
                        chosen.add(n);
                    }
                    while (chosen.size() < Math.min(n, perKind)) {
                        chosen.add(1 + random.nextInt(n));
                    }
                    chosen.forEach(j -> points.add(Point.of(kind, j)));
                });
        points.addAll(targetedPoints());
        return points;
    }

    /** The first move-in's event and the end of each parent of the first merge. */
    private List<Point> targetedPoints() {
        List<Point> points = new ArrayList<>();
        Scenario.Merge merge = scenario.firstMerge();
        if (merge != null) {
            for (String parent : merge.parents()) {
                points.add(
                        new Point(AnywhereProbe.Kind.CHILD_PARTITIONS, 1, parent, merge.micros()));
            }
        }
        Scenario.MoveIn first = scenario.firstMoveIn();
        if (first != null) {
            points.add(
                    new Point(
                            AnywhereProbe.Kind.MOVE_IN_EVENT,
                            1,
                            first.destination(),
                            first.micros()));
        }
        return points;
    }

    /**
     * Every element of a run as a point: each occurrence of each kind the survey saw (a point names
     * an element by its kind and occurrence, which the threads' timing does not move the way it
     * moves an element's index in the run), and the targeted points of {@link #sampledPoints}.
     */
    List<Point> everyPoint() {
        Map<AnywhereProbe.Kind, Integer> counts = new EnumMap<>(AnywhereProbe.Kind.class);
        survey.forEach(e -> counts.merge(e.kind(), 1, Integer::sum));
        List<Point> points = new ArrayList<>();
        counts.forEach(
                (kind, n) -> {
                    for (int j = 1; j <= n; j++) {
                        points.add(Point.of(kind, j));
                    }
                });
        points.addAll(targetedPoints());
        return points;
    }

    /** Runs one point in the given modes. */
    List<Outcome> run(Point point, Set<Mode> modes) {
        List<Outcome> out = new ArrayList<>();
        long pointSeed = Objects.hash(seed, point.toString());
        if (modes.contains(Mode.GLOBAL_SAME_PARALLELISM)
                || modes.contains(Mode.GLOBAL_OTHER_PARALLELISM)
                || modes.contains(Mode.REGION_ALL)) {
            out.addAll(runSharedOriginal(point, modes, pointSeed));
        }
        if (modes.contains(Mode.REGION_ONE)) {
            Outcome o = runRegionOne(point, pointSeed + 1);
            if (o != null) {
                out.add(o);
            }
        }
        if (modes.contains(Mode.BEFORE_FIRST_CHECKPOINT)) {
            Outcome o = runBeforeFirstCheckpoint(point, pointSeed + 2);
            if (o != null) {
                out.add(o);
            }
        }
        return out;
    }

    /**
     * One original run for (a), (b) and (c): (c) on the live job, then (a) and (b) from its
     * checkpoint.
     */
    private List<Outcome> runSharedOriginal(Point point, Set<Mode> modes, long pointSeed) {
        List<Outcome> out = new ArrayList<>();
        Job job = Job.fresh(scenario, scenario.parallelism(), pointSeed, scenario + " " + point);
        try {
            job.backgroundCheckpoints = true;
            Job.Element at;
            Job.Checkpoint cp;
            try {
                at = runTo(job, point);
                if (at == null) {
                    for (Mode m : modes) {
                        if (m != Mode.REGION_ONE && m != Mode.BEFORE_FIRST_CHECKPOINT) {
                            skip(m, point);
                        }
                    }
                    return out;
                }
                cp = checkpointAt(job, at);
                goOn(job, cp, job.random().nextInt(6));
            } catch (RuntimeException e) {
                for (Mode m : modes) {
                    if (m != Mode.REGION_ONE && m != Mode.BEFORE_FIRST_CHECKPOINT) {
                        out.add(fail(m, point, "?", "the original run failed: " + describe(e)));
                    }
                }
                return out;
            }
            String kind = at.kind().name();
            Job original = job;
            if (modes.contains(Mode.REGION_ALL)) {
                out.add(
                        attempt(
                                Mode.REGION_ALL,
                                point,
                                kind,
                                () -> {
                                    List<Integer> all = new ArrayList<>();
                                    for (int s = 0; s < original.parallelism(); s++) {
                                        if (!cp.finished.contains(s)) {
                                            all.add(s);
                                        }
                                    }
                                    original.failover(all, cp);
                                    original.backgroundCheckpoints = true;
                                    original.runToEnd();
                                    trace(Mode.REGION_ALL, point, original);
                                    return Verifier.check(
                                            scenario,
                                            List.of(regionLane(original, cp, Set.copyOf(all), -1)),
                                            original.emissions(),
                                            original.finishedReports());
                                }));
            }
            for (Mode m : List.of(Mode.GLOBAL_SAME_PARALLELISM, Mode.GLOBAL_OTHER_PARALLELISM)) {
                if (!modes.contains(m)) {
                    continue;
                }
                int p = scenario.parallelism();
                int newParallelism =
                        m == Mode.GLOBAL_SAME_PARALLELISM ? p : (p == 1 ? 2 : p == 2 ? 3 : p - 1);
                out.add(
                        attempt(
                                m,
                                point,
                                kind,
                                () -> {
                                    try (Job restored =
                                            original.restoreGlobally(
                                                    cp,
                                                    newParallelism,
                                                    pointSeed * 31 + m.ordinal())) {
                                        restored.backgroundCheckpoints = true;
                                        restored.runToEnd();
                                        trace(m, point, restored);
                                        List<SimOutput.Emission> lane =
                                                new ArrayList<>(committedAt(original, cp));
                                        lane.addAll(restored.emissions());
                                        List<SimOutput.Emission> all =
                                                new ArrayList<>(original.emissions());
                                        all.addAll(restored.emissions());
                                        List<Job.FinishedReport> ends =
                                                new ArrayList<>(original.finishedReports());
                                        ends.addAll(restored.finishedReports());
                                        return Verifier.check(scenario, List.of(lane), all, ends);
                                    }
                                }));
            }
            return out;
        } finally {
            job.close();
        }
    }

    /** (d): only the reader that emitted the point's element fails. */
    private Outcome runRegionOne(Point point, long pointSeed) {
        Mode m = Mode.REGION_ONE;
        try (Job job =
                Job.fresh(scenario, scenario.parallelism(), pointSeed, scenario + " " + point)) {
            job.backgroundCheckpoints = true;
            Job.Element at;
            Job.Checkpoint cp;
            try {
                at = runTo(job, point);
                if (at == null) {
                    skip(m, point);
                    return null;
                }
                cp = checkpointAt(job, at);
                goOn(job, cp, job.random().nextInt(6));
            } catch (RuntimeException e) {
                return fail(m, point, "?", "the original run failed: " + describe(e));
            }
            int failing = at.subtask();
            return attempt(
                    m,
                    point,
                    at.kind().name(),
                    () -> {
                        job.failover(List.of(failing), cp);
                        job.backgroundCheckpoints = true;
                        job.runToEnd();
                        trace(m, point, job);
                        List<List<SimOutput.Emission>> lanes = new ArrayList<>();
                        for (int s = 0; s < job.parallelism(); s++) {
                            lanes.add(regionLane(job, cp, Set.of(failing), s));
                        }
                        return Verifier.check(
                                scenario, lanes, job.emissions(), job.finishedReports());
                    });
        }
    }

    /** (e): no checkpoint before the failure; every reader restarts without state. */
    private Outcome runBeforeFirstCheckpoint(Point point, long pointSeed) {
        Mode m = Mode.BEFORE_FIRST_CHECKPOINT;
        try (Job job =
                Job.fresh(scenario, scenario.parallelism(), pointSeed, scenario + " " + point)) {
            job.backgroundCheckpoints = false;
            Job.Element at;
            try {
                at = runTo(job, point);
                if (at == null) {
                    skip(m, point);
                    return null;
                }
                int more = job.random().nextInt(6);
                int base = job.elements().size();
                job.runUntil(() -> job.elements().size() >= base + more || job.allFinished(), true);
            } catch (RuntimeException e) {
                return fail(m, point, "?", "the original run failed: " + describe(e));
            }
            return attempt(
                    m,
                    point,
                    at.kind().name(),
                    () -> {
                        List<Integer> all = new ArrayList<>();
                        for (int s = 0; s < job.parallelism(); s++) {
                            all.add(s);
                        }
                        try {
                            job.failover(all, null);
                        } catch (Job.JobFailure failure) {
                            if (!snapshotRolledBack(failure)) {
                                throw failure;
                            }
                            // The enumerator fails the job (a finished snapshot no checkpoint
                            // holds came back): Flink restarts it from its last completed
                            // checkpoint, here none, so from the start; nothing was committed.
                            job.close(); // its readers, enumerator and lags go
                            return restartedFromScratch(pointSeed);
                        }
                        job.backgroundCheckpoints = true;
                        job.runToEnd();
                        trace(m, point, job);
                        return Verifier.check(
                                scenario,
                                List.of(regionLane(job, null, Set.copyOf(all), -1)),
                                job.emissions(),
                                job.finishedReports());
                    });
        }
    }

    private static boolean snapshotRolledBack(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SnapshotPhase.SnapshotRolledBackException) {
                return true;
            }
        }
        return false;
    }

    /** A new job of the scenario run to its end: what a global restart without a checkpoint is. */
    private List<String> restartedFromScratch(long pointSeed) {
        try (Job again =
                Job.fresh(scenario, scenario.parallelism(), pointSeed, scenario + " again")) {
            again.backgroundCheckpoints = true;
            again.runToEnd();
            return Verifier.check(
                    scenario,
                    List.of(again.emissions()),
                    again.emissions(),
                    again.finishedReports());
        }
    }

    /** Runs the job until the point's element was emitted; null if the job ended before. */
    private static Job.Element runTo(Job job, Point point) {
        AtomicReference<Job.Element> hit = new AtomicReference<>();
        int[] seen = {0};
        job.addListener(
                e -> {
                    if (hit.get() == null && point.matches(e) && ++seen[0] == point.occurrence()) {
                        hit.set(e);
                    }
                });
        job.runUntil(() -> hit.get() != null || job.allFinished());
        return hit.get();
    }

    /**
     * The checkpoint right after the point's element: a checkpoint in progress completes first
     * (Flink triggers one at a time), then the coordinator's snapshot, then at once the snapshot of
     * the reader that emitted the element; the other readers take theirs as the job goes on.
     */
    private static Job.Checkpoint checkpointAt(Job job, Job.Element at) {
        job.completeCheckpointInProgress();
        Job.Checkpoint cp = job.triggerCheckpoint();
        job.backgroundCheckpoints = false; // the failover restores this one: the last completed
        if (cp.pending.contains(at.subtask())) {
            job.snapshotReader(at.subtask());
        }
        return cp;
    }

    /**
     * Lets the job go on until the checkpoint completed and {@code more} elements came after it.
     */
    private static void goOn(Job job, Job.Checkpoint cp, int more) {
        int base = job.elements().size();
        // Idle: the job may need another checkpoint to go on (a snapshot completes only with
        // one), and none is taken before the failure.
        job.runUntil(
                () -> (cp.completed && job.elements().size() >= base + more) || job.allFinished(),
                true);
        if (!cp.completed) {
            job.completeCheckpointInProgress();
        }
        if (job.random().nextInt(3) == 0 && job.inProgress() == null && !job.allFinished()) {
            // One more, triggered but not completed before the failure: what the coordinator
            // assigned before its snapshot comes back to the enumerator too.
            job.triggerCheckpoint().frozen = true;
            job.runSteps(job.random().nextInt(8));
        }
    }

    /** What checkpoint {@code cp} holds of the job's first attempts, in emission order. */
    private static List<SimOutput.Emission> committedAt(Job job, Job.Checkpoint cp) {
        List<SimOutput.Emission> out = new ArrayList<>();
        for (Job.Attempt a : job.attempts()) {
            if (a.number == 0) {
                int cut = cp.emissionCut.getOrDefault(a.subtask, a.output.emissions().size());
                out.addAll(a.output.emissions().subList(0, cut));
            }
        }
        out.sort(Comparator.comparingLong(SimOutput.Emission::seq));
        return out;
    }

    /**
     * The committed output of a job after a region failover of {@code failed} to {@code cp}, in
     * emission order: the failed subtasks' first attempts up to the checkpoint (nothing without
     * one), every other attempt in full; only subtask {@code only}'s if it is not negative.
     */
    private static List<SimOutput.Emission> regionLane(
            Job job, Job.Checkpoint cp, Set<Integer> failed, int only) {
        List<SimOutput.Emission> out = new ArrayList<>();
        for (Job.Attempt a : job.attempts()) {
            if (only >= 0 && a.subtask != only) {
                continue;
            }
            List<SimOutput.Emission> e = a.output.emissions();
            if (failed.contains(a.subtask) && a.number == 0) {
                int cut = cp == null ? 0 : cp.emissionCut.getOrDefault(a.subtask, e.size());
                out.addAll(e.subList(0, cut));
            } else {
                out.addAll(e);
            }
        }
        out.sort(Comparator.comparingLong(SimOutput.Emission::seq));
        return out;
    }

    /** With {@code -Dspannercs.anywhere.trace=true}: what each restored run did. */
    private static final boolean TRACE = Boolean.getBoolean("spannercs.anywhere.trace");

    private void trace(Mode mode, Point point, Job job) {
        if (TRACE) {
            System.out.println(
                    "TRACE "
                            + scenario
                            + " "
                            + mode.label
                            + " "
                            + point
                            + "\n"
                            + job.describe(200));
        }
    }

    private interface Check {
        List<String> run();
    }

    private Outcome attempt(Mode mode, Point point, String kind, Check check) {
        String failure;
        try {
            List<String> problems = check.run();
            failure = problems.isEmpty() ? null : String.join("\n      ", problems);
        } catch (RuntimeException e) {
            failure = describe(e);
        }
        RESTORED.merge(
                mode.label + " | " + scenario.partitionMode() + " | " + kind, 1, Integer::sum);
        return new Outcome(mode, point, kind, failure);
    }

    private Outcome fail(Mode mode, Point point, String kind, String failure) {
        return new Outcome(mode, point, kind, failure);
    }

    private void skip(Mode mode, Point point) {
        SKIPPED.merge(mode.label + " | " + scenario.name(), 1, Integer::sum);
    }

    private static String describe(RuntimeException e) {
        if (e instanceof Job.Stuck) {
            return e.getMessage();
        }
        StringBuilder out = new StringBuilder(e.toString());
        for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
            out.append("\n        caused by ").append(c);
        }
        return out.toString();
    }

    /** Counts as lines: mode | partition mode | kind = n. */
    static String table(Map<String, Integer> counts) {
        StringBuilder out = new StringBuilder();
        new java.util.TreeMap<>(counts)
                .forEach((k, v) -> out.append("  ").append(k).append(" = ").append(v).append('\n'));
        return out.toString();
    }

    static Map<String, Integer> byPrefix(Map<String, Integer> counts, int parts) {
        Map<String, Integer> out = new LinkedHashMap<>();
        counts.forEach(
                (k, v) -> {
                    String[] p = k.split(" \\| ");
                    StringBuilder key = new StringBuilder(p[0]);
                    for (int i = 1; i < parts && i < p.length; i++) {
                        key.append(" | ").append(p[i]);
                    }
                    out.merge(key.toString(), v, Integer::sum);
                });
        return out;
    }
}
