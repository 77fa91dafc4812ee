package io.spannercs.flink.source.enumerator;

import io.spannercs.flink.source.TestConfigs;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.event.EnumeratorEventsEvent;
import io.spannercs.flink.source.event.ReaderReportsEvent;
import io.spannercs.flink.source.event.SplitsResumedEvent;
import io.spannercs.flink.source.spanner.ChangeStreamQuery;
import io.spannercs.flink.source.spanner.RootPartitions;
import io.spannercs.flink.source.spanner.SnapshotPlanner;
import io.spannercs.flink.source.split.PartitionReport;
import io.spannercs.flink.source.split.PartitionReport.NewPartition;
import io.spannercs.flink.source.split.PartitionSplit;
import io.spannercs.flink.source.split.SnapshotSplit;
import io.spannercs.flink.source.split.SpannerSplit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitsAssignment;

/** An enumerator on Flink's mock context, with a fake root query and a clock tests move. */
final class EnumeratorHarness implements AutoCloseable {
    static final long START = 1_700_000_000_000_000L;
    static final long SNAPSHOT = START - 1;
    static final Duration BARRIER_TIMEOUT = Duration.ofMinutes(1);

    final TestingEnumeratorContext context;
    final SpannerSourceConfig config;
    final AtomicLong clockMillis = new AtomicLong(1_000_000);
    final AtomicInteger rootQueries = new AtomicInteger();
    private final List<NewPartition> rootResult;
    private RuntimeException rootFailure;
    private ChangeStreamQuery rootShape;
    // Null: a source without a snapshot.
    private final SnapshotPlanner.Plan snapshotPlan;
    ChangeStreamSplitEnumerator enumerator;

    EnumeratorHarness(int parallelism, long endMicros, NewPartition... root) {
        this(parallelism, endMicros, ChangeStreamEnumeratorState.initial(), root);
    }

    EnumeratorHarness(
            int parallelism,
            long endMicros,
            ChangeStreamEnumeratorState state,
            NewPartition... root) {
        this(parallelism, config(endMicros), null, state, root);
    }

    private EnumeratorHarness(
            int parallelism,
            SpannerSourceConfig config,
            SnapshotPlanner.Plan snapshotPlan,
            ChangeStreamEnumeratorState state,
            NewPartition... root) {
        this.context = new TestingEnumeratorContext(parallelism);
        this.config = config;
        this.snapshotPlan = snapshotPlan;
        this.rootResult = List.of(root);
        this.enumerator = create(state);
    }

    /**
     * An unbounded source that starts with a snapshot at {@link #SNAPSHOT} (then streams from
     * {@link #START}), whose planner finds {@code plan}.
     */
    static EnumeratorHarness withSnapshot(
            int parallelism, SnapshotPlanner.Plan plan, NewPartition... root) {
        return new EnumeratorHarness(
                parallelism,
                config(SpannerSourceConfig.NO_END).withSnapshot(SNAPSHOT, true, 1000, true),
                plan,
                ChangeStreamEnumeratorState.initial(),
                root);
    }

    /** A new enumerator on a new context, restored from a checkpoint of {@link #withSnapshot}. */
    static EnumeratorHarness restoredWithSnapshot(
            int parallelism, ChangeStreamEnumeratorState state) {
        return new EnumeratorHarness(
                parallelism,
                config(SpannerSourceConfig.NO_END).withSnapshot(SNAPSHOT, true, 1000, true),
                null,
                state);
    }

    /** A new enumerator (on a new context) restored from a checkpoint of an unbounded source. */
    static EnumeratorHarness restored(int parallelism, ChangeStreamEnumeratorState state) {
        return new EnumeratorHarness(parallelism, SpannerSourceConfig.NO_END, state);
    }

    /** An unbounded source starting at {@link #START}. */
    static EnumeratorHarness unbounded(int parallelism, NewPartition... root) {
        return new EnumeratorHarness(parallelism, SpannerSourceConfig.NO_END, root);
    }

    static SpannerSourceConfig config(long endMicros) {
        return TestConfigs.config(TestConfigs.builder("orders_cs", START, endMicros));
    }

    static NewPartition partition(String token, long startMicros, String... parents) {
        return new NewPartition(token, startMicros, List.of(parents));
    }

    static NewPartition root(String token) {
        return partition(token, START);
    }

    /** The dialect and partition mode the fake root query says it found. */
    void rootQueryFinds(ChangeStreamQuery query) {
        rootShape = query;
    }

    void failRootQueryWith(RuntimeException e) {
        rootFailure = e;
    }

    private ChangeStreamSplitEnumerator create(ChangeStreamEnumeratorState state) {
        RootPartitions root =
                new RootPartitions() {
                    @Override
                    public List<NewPartition> query(long startMicros) {
                        rootQueries.incrementAndGet();
                        if (rootFailure != null) {
                            throw rootFailure;
                        }
                        return rootResult;
                    }

                    @Override
                    public ChangeStreamQuery query() {
                        return rootShape;
                    }
                };
        SnapshotPlanner planner =
                new SnapshotPlanner() {
                    @Override
                    public Plan plan() {
                        if (snapshotPlan == null) {
                            throw new IllegalStateException("planned again after a restore");
                        }
                        return snapshotPlan;
                    }

                    @Override
                    public void close() {}
                };
        return new ChangeStreamSplitEnumerator(
                context, config, root, planner, state, clockMillis::get);
    }

    /**
     * Starts the enumerator and lets the root query (if any) complete; with a snapshot, its
     * planning.
     */
    void start() throws Throwable {
        enumerator.start();
        runOneTimeCallables();
    }

    /** Runs what the enumerator asked to run asynchronously (root query, snapshot planning). */
    void runOneTimeCallables() throws Throwable {
        while (!context.getOneTimeCallables().isEmpty()) {
            context.runNextOneTimeCallable();
        }
    }

    /** Every snapshot split assigned so far, in order. */
    List<Map.Entry<Integer, SnapshotSplit>> snapshotAssignments() {
        List<Map.Entry<Integer, SnapshotSplit>> out = new ArrayList<>();
        for (SplitsAssignment<SpannerSplit> a : context.getSplitsAssignmentSequence()) {
            a.assignment()
                    .forEach(
                            (r, splits) ->
                                    splits.forEach(
                                            s -> {
                                                if (s instanceof SnapshotSplit p) {
                                                    out.add(Map.entry(r, p));
                                                }
                                            }));
        }
        return out;
    }

    void addReaders(int... subtasks) {
        for (int s : subtasks) {
            context.registerReader(new ReaderInfo(s, "host-" + s));
            enumerator.addReader(s);
        }
    }

    void report(int subtask, PartitionReport... reports) {
        report(subtask, Map.of(), reports);
    }

    void report(int subtask, Map<String, Long> progress, PartitionReport... reports) {
        enumerator.handleSourceEvent(subtask, new ReaderReportsEvent(List.of(reports), progress));
    }

    /**
     * What a reader sends when splits are added: where its (restored or assigned) splits resume, in
     * a {@link ReaderReportsEvent}.
     */
    void resume(int subtask, SplitsResumedEvent.ResumedSplit... splits) {
        enumerator.handleSourceEvent(
                subtask,
                new ReaderReportsEvent(
                        new SplitsResumedEvent(List.of(splits)), List.of(), Map.of()));
    }

    void progress(int subtask, String token, long micros) {
        report(subtask, Map.of(token, micros));
    }

    void checkBarrierTimeouts() throws Throwable {
        context.runPeriodicCallable(0);
    }

    /** Every split assigned so far, in order. */
    List<Map.Entry<Integer, PartitionSplit>> assignments() {
        List<Map.Entry<Integer, PartitionSplit>> out = new ArrayList<>();
        for (SplitsAssignment<SpannerSplit> a : context.getSplitsAssignmentSequence()) {
            a.assignment()
                    .forEach(
                            (r, splits) ->
                                    splits.forEach(
                                            s -> {
                                                if (s instanceof PartitionSplit p) {
                                                    out.add(Map.entry(r, p));
                                                }
                                            }));
        }
        return out;
    }

    /** The subtask each partition was last assigned to. */
    Map<String, Integer> owners() {
        Map<String, Integer> out = new LinkedHashMap<>();
        assignments().forEach(e -> out.put(e.getValue().token(), e.getKey()));
        return out;
    }

    /** The subtask the enumerator believes reads a partition. */
    int ownerOf(String token) {
        return enumerator.graph().get(token).subtask();
    }

    /** Events sent to the reader, those sent together one by one. */
    List<SourceEvent> events(int subtask) throws Exception {
        List<SourceEvent> out = new ArrayList<>();
        for (SourceEvent e : context.getSentSourceEvent().getOrDefault(subtask, List.of())) {
            if (e instanceof EnumeratorEventsEvent batch) {
                out.addAll(batch.events());
            } else {
                out.add(e);
            }
        }
        return out;
    }

    <T> List<T> events(int subtask, Class<T> type) throws Exception {
        return events(subtask).stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** Snapshot through the serializer, as a checkpoint would. */
    ChangeStreamEnumeratorState checkpoint(long checkpointId) throws Exception {
        ChangeStreamEnumeratorState state = enumerator.snapshotState(checkpointId);
        ChangeStreamEnumeratorStateSerializer s = ChangeStreamEnumeratorStateSerializer.INSTANCE;
        return s.deserialize(s.getVersion(), s.serialize(state));
    }

    long metric(String gauge) {
        return context.metrics.gauge(gauge);
    }

    @Override
    public void close() throws Exception {
        enumerator.close();
        context.close();
    }
}
