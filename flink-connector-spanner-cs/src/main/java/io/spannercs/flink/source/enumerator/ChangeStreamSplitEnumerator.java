package io.spannercs.flink.source.enumerator;

import io.spannercs.flink.source.ChangeFilter;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.event.AckReportsEvent;
import io.spannercs.flink.source.event.AssignedElsewhereEvent;
import io.spannercs.flink.source.event.EnumeratorEventsEvent;
import io.spannercs.flink.source.event.EventsStoppedEvent;
import io.spannercs.flink.source.event.LowWatermarkEvent;
import io.spannercs.flink.source.event.ReaderFailingEvent;
import io.spannercs.flink.source.event.ReaderReportsEvent;
import io.spannercs.flink.source.event.ReleaseBarrierEvent;
import io.spannercs.flink.source.event.SplitsResumedEvent;
import io.spannercs.flink.source.event.StreamShapeEvent;
import io.spannercs.flink.source.spanner.ChangeStreamQuery;
import io.spannercs.flink.source.spanner.RecordMethodCaches;
import io.spannercs.flink.source.spanner.RootPartitions;
import io.spannercs.flink.source.spanner.SnapshotPlanner;
import io.spannercs.flink.source.spanner.SpannerRootPartitions;
import io.spannercs.flink.source.spanner.SpannerSnapshotPlanner;
import io.spannercs.flink.source.split.PartitionReport;
import io.spannercs.flink.source.split.PartitionSplit;
import io.spannercs.flink.source.split.SnapshotSplit;
import io.spannercs.flink.source.split.SpannerSplit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.util.FlinkRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the partition graph of a change stream read: lists the first partitions, assigns partitions
 * to readers, applies the readers' reports, releases move-in barriers, broadcasts the low watermark
 * and acknowledges reports once applied. It does no per-record work. All methods run on the
 * coordinator thread.
 */
@Internal
public final class ChangeStreamSplitEnumerator
        implements SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> {
    private static final Logger LOG = LoggerFactory.getLogger(ChangeStreamSplitEnumerator.class);

    static final long BARRIER_CHECK_INTERVAL_MILLIS = 1000;

    private final SplitEnumeratorContext<SpannerSplit> context;
    private final SpannerSourceConfig config;
    private final RootPartitions rootPartitions;
    private final LongSupplier clockMillis;
    private final PartitionGraph graph;
    // Partitions each reader finished since the last completed checkpoint: a restart of that
    // reader rolls their end back.
    private final CheckpointGatedLog<String> recentEnds = new CheckpointGatedLog<>();
    private final EnumeratorMetrics metrics;
    private final BarrierTimeoutMonitor barrierTimeouts;
    private final Set<Integer> signalledNoMoreSplits = new HashSet<>();
    // Readers that failed and were told nothing more will come (see ReaderFailingEvent), until
    // their subtask registers again.
    private final Set<Integer> failingReaders = new HashSet<>();
    // Registered readers not told the low watermark yet (see afterChange).
    private final Set<Integer> readersAwaitingLowWatermark = new HashSet<>();
    // The highest low watermark each registered reader instance was told: it may have emitted it
    // as its watermark, so it gets no partition that resumes below it (see eligibleReaders).
    private final Map<Integer, Long> lowWatermarkTold = new HashMap<>();
    // Until every reader has registered once (or START_ASSIGNMENT_WAIT_MILLIS passed), nothing is
    // assigned: the first reader to register would otherwise get every partition.
    private boolean assignmentStarted;
    private final long createdMillis;
    // Dialect and partition mode found by the root query, told to every reader; null until then
    // (and in a restored job, whose readers ask the database).
    private StreamShapeEvent shape;

    /**
     * Report ids applied but not acknowledged yet, per reader. Acknowledgements go out in batches:
     * one event per reports event cost the job's RPC service more than the reports themselves.
     */
    private final Map<Integer, List<String>> pendingAcks = new TreeMap<>();

    private final Map<Integer, Long> lastAckMillis = new HashMap<>();

    /**
     * Events for each reader not sent yet: those one change produces travel together (see {@link
     * #flushEvents}).
     */
    private final Map<Integer, List<SourceEvent>> outgoing = new TreeMap<>();

    /** A reader's acknowledgements wait at most this long while it keeps sending events. */
    static final long ACK_INTERVAL_MILLIS = 100;

    /** A reader's acknowledgements go out at once when this many are pending. */
    static final int ACK_BATCH = 512;

    /**
     * How long the first assignment waits for every reader to register before it assigns to those
     * that have (they register within a second or two of each other when a job starts).
     */
    static final long START_ASSIGNMENT_WAIT_MILLIS = 10_000;

    /** Unfinished snapshot splits a reader gets at a time: more as it finishes them. */
    public static final int SNAPSHOT_SPLITS_PER_READER = 4;

    private final SnapshotPlanner snapshotPlanner;
    private final SnapshotPhase snapshot;
    // Whether this job checkpoints: the stream then starts after a completed checkpoint holds the
    // finished snapshot.
    private boolean checkpointing;
    private long lastSnapshotLogMillis;

    /**
     * The enumerator of a source, reading the first partitions from Spanner.
     *
     * @param state the restored state, or null for a new job
     */
    public static ChangeStreamSplitEnumerator create(
            SplitEnumeratorContext<SpannerSplit> context,
            SpannerSourceConfig config,
            ChangeFilter filter,
            ChangeStreamEnumeratorState state) {
        return new ChangeStreamSplitEnumerator(
                context,
                config,
                new SpannerRootPartitions(config),
                new SpannerSnapshotPlanner(config, filter),
                state != null ? state : ChangeStreamEnumeratorState.initial(),
                System::currentTimeMillis);
    }

    public ChangeStreamSplitEnumerator(
            SplitEnumeratorContext<SpannerSplit> context,
            SpannerSourceConfig config,
            RootPartitions rootPartitions,
            ChangeStreamEnumeratorState state) {
        this(context, config, rootPartitions, null, state, System::currentTimeMillis);
    }

    @VisibleForTesting
    ChangeStreamSplitEnumerator(
            SplitEnumeratorContext<SpannerSplit> context,
            SpannerSourceConfig config,
            RootPartitions rootPartitions,
            ChangeStreamEnumeratorState state,
            LongSupplier clockMillis) {
        this(context, config, rootPartitions, null, state, clockMillis);
    }

    @VisibleForTesting
    ChangeStreamSplitEnumerator(
            SplitEnumeratorContext<SpannerSplit> context,
            SpannerSourceConfig config,
            RootPartitions rootPartitions,
            SnapshotPlanner snapshotPlanner,
            ChangeStreamEnumeratorState state,
            LongSupplier clockMillis) {
        this.context = context;
        this.config = config;
        this.rootPartitions = rootPartitions;
        this.snapshotPlanner = snapshotPlanner;
        this.clockMillis = clockMillis;
        this.createdMillis = clockMillis.getAsLong();
        this.graph = PartitionGraph.restore(state, clockMillis.getAsLong());
        boolean fresh = !state.rootQueryDone() && state.partitions().isEmpty();
        this.snapshot =
                state.snapshot().status() == SnapshotPhase.Status.NONE
                                && fresh
                                && config.snapshots()
                        ? SnapshotPhase.planning(config.snapshotMicros())
                        : SnapshotPhase.restore(state.snapshot());
        // A restored snapshot comes from a checkpoint: this job checkpoints.
        this.checkpointing = state.snapshot().status() != SnapshotPhase.Status.NONE;
        this.metrics = new EnumeratorMetrics(context.metricGroup());
        this.barrierTimeouts =
                new BarrierTimeoutMonitor(
                        config.barrierTimeout().toMillis(), metrics.barrierTimeouts());
        metrics.update(graph, snapshot, clockMillis.getAsLong());
    }

    @Override
    public void start() {
        if (!snapshot.done()) {
            startSnapshot();
            if (!config.streamAfterSnapshot() && config.streams()) {
                startStream(); // tests only: lets changes overtake snapshot rows
            }
        } else {
            startStream();
        }
        context.callAsync(
                () -> null,
                (ignored, error) -> {
                    if (!assignmentStarted) {
                        afterChange(); // the wait for every reader may have run out
                    }
                    barrierTimeouts.check(graph, clockMillis.getAsLong());
                    new ArrayList<>(pendingAcks.keySet()).forEach(r -> acknowledgeIfDue(r, true));
                    flushEvents();
                    metrics.update(graph, snapshot, clockMillis.getAsLong()); // waits grow
                },
                BARRIER_CHECK_INTERVAL_MILLIS,
                BARRIER_CHECK_INTERVAL_MILLIS);
    }

    /**
     * Plans the snapshot, or goes on with a restored one. Until the snapshot is done, the low
     * watermark stays just below its timestamp: every snapshot row carries it.
     */
    private void startSnapshot() {
        graph.raiseLowWatermark(snapshot.snapshotMicros() - 1);
        if (snapshot.status() == SnapshotPhase.Status.PLANNING) {
            LOG.info(
                    "Planning the snapshot at {} of the tables change stream {} tracks",
                    TimeFormat.micros(snapshot.snapshotMicros()),
                    config.changeStream());
            context.callAsync(snapshotPlanner::plan, this::onSnapshotPlanned);
        } else {
            LOG.info(
                    "Restored the snapshot of change stream {}: {}",
                    config.changeStream(),
                    snapshot);
            afterChange();
        }
    }

    private void onSnapshotPlanned(SnapshotPlanner.Plan plan, Throwable error) {
        if (error != null) {
            // Thrown on the coordinator thread, this fails the job with the reason.
            throw new FlinkRuntimeException(
                    "The Spanner change stream source cannot take its snapshot: "
                            + error.getMessage(),
                    error);
        }
        snapshot.planned(plan.splits(), plan.rows());
        if (plan.splits().isEmpty()) {
            LOG.info(
                    "Snapshot at {}: nothing to read ({}); the snapshot is complete",
                    TimeFormat.micros(snapshot.snapshotMicros()),
                    plan.tables() == 0
                            ? "change stream "
                                    + config.changeStream()
                                    + " tracks no table, or the source's filter excludes every"
                                    + " table it tracks"
                            : "the " + plan.tables() + " tables it tracks have no rows");
        } else {
            LOG.info(
                    "Snapshot at {}: {} rows of {} tables in {} splits",
                    TimeFormat.micros(snapshot.snapshotMicros()),
                    plan.rows(),
                    plan.tables(),
                    plan.splits().size());
        }
        if (snapshot.done()) {
            onSnapshotDone();
        } else {
            afterChange();
        }
    }

    /**
     * The snapshot is complete: the stream starts one microsecond after it (or the source ends).
     */
    private void onSnapshotDone() {
        LOG.info(
                "Snapshot at {} complete: {} rows in {} splits",
                TimeFormat.micros(snapshot.snapshotMicros()),
                snapshot.rowsDone(),
                snapshot.total());
        if (config.streams() && config.streamAfterSnapshot()) {
            startStream();
        } else if (config.streams()) {
            afterChange(); // the stream started with the snapshot (tests only)
        } else {
            graph.markRootQueryDone(); // a snapshot only: no partitions to read
            afterChange();
        }
    }

    private void startStream() {
        if (!graph.rootQueryDone() && graph.isEmpty()) {
            long start = config.startMicros();
            long aheadMillis = start / 1000 - clockMillis.getAsLong();
            if (aheadMillis > 1000) {
                // Spanner holds a query that starts in the future until its start has come.
                LOG.info(
                        "The start timestamp {} of change stream {} is {} s in the future: the"
                                + " source waits until then before it lists partitions and reads"
                                + " changes",
                        TimeFormat.micros(start),
                        config.changeStream(),
                        (aheadMillis + 999) / 1000);
            }
            LOG.info(
                    "Listing the first partitions of change stream {} at {}",
                    config.changeStream(),
                    TimeFormat.micros(start));
            context.callAsync(() -> rootPartitions.query(start), this::onRootPartitions);
        } else {
            graph.markRootQueryDone();
            LOG.info(
                    "Restored change stream {}: {} partitions, {} pending barriers, low watermark"
                            + " {}",
                    config.changeStream(),
                    graph.partitions().size(),
                    graph.barriers().size(),
                    TimeFormat.micros(graph.lowWatermarkMicros()));
            afterChange();
        }
    }

    private void onRootPartitions(List<PartitionReport.NewPartition> partitions, Throwable error) {
        if (error != null) {
            // Thrown on the coordinator thread, this fails the job with Spanner's reason.
            throw new FlinkRuntimeException(
                    "The Spanner change stream source cannot start: " + error.getMessage(), error);
        }
        partitions.forEach(p -> graph.discover(p, PartitionEntry.NO_SUBTASK));
        graph.markRootQueryDone();
        ChangeStreamQuery query = rootPartitions.query();
        if (query != null) {
            shape = new StreamShapeEvent(query.dialect(), query.partitionMode());
            liveReaders().forEach(r -> send(r, shape));
        }
        List<String> tokens = partitions.stream().map(PartitionReport.NewPartition::token).toList();
        LOG.info(
                "Change stream {} starts with {} partitions: {}",
                config.changeStream(),
                partitions.size(),
                PartitionNames.list(tokens));
        logTokens(tokens);
        afterChange();
    }

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {
        // Splits are pushed as they become ready; readers never need to ask.
    }

    /**
     * Called when a reader restarts from its last completed checkpoint (Flink calls it on every
     * subtask reset, with the splits assigned since that checkpoint). The reader's restored splits
     * and these returned ones are now all it owns; whatever it did after the checkpoint was rolled
     * back, so the graph forgets it (see {@link PartitionGraph#returnSplit} and {@link
     * PartitionGraph#resume}).
     */
    @Override
    public void addSplitsBack(List<SpannerSplit> splits, int subtaskId) {
        graph.readerRestarting(subtaskId, recentEnds.held(subtaskId));
        recentEnds.discard(subtaskId);
        pendingAcks.remove(subtaskId); // the restarted reader sends its reports again
        List<String> back = new ArrayList<>();
        for (SpannerSplit split : splits) {
            if (split instanceof SnapshotSplit s) {
                snapshot.returned(s);
            } else if (graph.returnSplit((PartitionSplit) split, clockMillis.getAsLong())) {
                back.add(split.splitId());
            }
        }
        if (!back.isEmpty()) {
            LOG.info(
                    "Subtask {} gave back {} partitions {}; assigning them again from where they"
                            + " were assigned",
                    subtaskId,
                    back.size(),
                    PartitionNames.list(back));
        }
        afterChange();
    }

    @Override
    public void addReader(int subtaskId) {
        failingReaders.remove(subtaskId);
        // A new reader instance, whose pipeline (re)starts without a watermark.
        lowWatermarkTold.remove(subtaskId);
        // A registering reader is a new instance; it has not been told anything yet. Barriers its
        // restored splits wait at come back with its SplitsResumedEvent.
        signalledNoMoreSplits.remove(subtaskId);
        // Told once the graph is settled: after a failover, once restarted readers have resumed.
        readersAwaitingLowWatermark.add(subtaskId);
        if (shape != null) {
            send(subtaskId, shape); // before any partition: events reach a reader in order
        }
        afterChange();
    }

    @Override
    public void handleSourceEvent(int subtaskId, SourceEvent event) {
        if (event instanceof ReaderFailingEvent failing) {
            stopSendingTo(subtaskId, failing);
            return;
        }
        if (!(event instanceof ReaderReportsEvent reports)) {
            LOG.warn("Ignoring unexpected event {} from subtask {}", event, subtaskId);
            return;
        }
        if (reports.resumed() != null) {
            resume(subtaskId, reports.resumed());
        }
        if (reports.reports() != null && !reports.reports().isEmpty()) {
            List<String> ids = new ArrayList<>(reports.reports().size());
            for (PartitionReport report : reports.reports()) {
                apply(subtaskId, report);
                ids.add(report.id());
            }
            // Acknowledged once applied, which is safe because Flink holds events the coordinator
            // sends after its checkpoint until the reader has taken its own: a reader drops a
            // report only in checkpoints whose enumerator state already holds its effect. A
            // report the reader checkpointed before the acknowledgement arrived is sent again
            // after a restore, and applying it twice changes nothing.
            pendingAcks.computeIfAbsent(subtaskId, s -> new ArrayList<>()).addAll(ids);
        }
        acknowledgeIfDue(subtaskId, false);
        if (reports.progressMicros() != null) {
            reports.progressMicros()
                    .forEach(
                            (token, micros) -> {
                                graph.readBy(token, subtaskId);
                                graph.progress(token, micros);
                            });
        }
        afterChange();
    }

    /** Splits added to a reader: where each resumes (see {@link SplitsResumedEvent}). */
    private void resume(int subtaskId, SplitsResumedEvent resumed) {
        long now = clockMillis.getAsLong();
        resumed.splits().forEach(split -> graph.resume(subtaskId, split, now));
        resumed.unfinishedSnapshotSplits().forEach(id -> snapshot.resumed(id, subtaskId));
    }

    private void apply(int subtask, PartitionReport report) {
        graph.readBy(report.token(), subtask);
        if (report instanceof PartitionReport.Discovered d) {
            onDiscovered(subtask, d);
        } else if (report instanceof PartitionReport.Finished f) {
            if (graph.finish(f.token(), f.endMicros())) {
                recentEnds.add(subtask, f.token());
                LOG.debug(
                        "Partition {} finished at {} ({} of {} known partitions finished)",
                        PartitionNames.of(f.token()),
                        TimeFormat.micros(f.endMicros()),
                        graph.count(PartitionStatus.FINISHED),
                        graph.partitions().size());
            }
        } else if (report instanceof PartitionReport.BarrierReached b) {
            onBarrierReached(subtask, b);
        } else if (report instanceof PartitionReport.MovedOut m) {
            graph.movedOut(m.token(), m.micros());
        } else if (report instanceof PartitionReport.SnapshotFinished f) {
            onSnapshotSplitFinished(f);
        }
    }

    private void onDiscovered(int subtask, PartitionReport.Discovered d) {
        List<String> added = new ArrayList<>();
        List<String> elsewhere = new ArrayList<>();
        for (PartitionReport.NewPartition p : d.partitions()) {
            PartitionGraph.Discovery outcome = graph.discover(p, subtask);
            if (outcome == PartitionGraph.Discovery.ADDED) {
                added.add(p.token());
            } else if (outcome == PartitionGraph.Discovery.ALREADY_KNOWN) {
                if (takenElsewhere(graph.get(p.token()), subtask)) {
                    elsewhere.add(p.token());
                }
            } else if (outcome == PartitionGraph.Discovery.STALE) {
                LOG.debug(
                        "Ignoring partition {} from a re-sent report of {}: it starts at {}, below"
                                + " the low watermark {}, so it has finished already",
                        p.token(),
                        d.token(),
                        TimeFormat.micros(p.startMicros()),
                        TimeFormat.micros(graph.lowWatermarkMicros()));
            }
        }
        if (!elsewhere.isEmpty() && config.readAhead()) {
            // A second parent announced it after it was assigned (a merge): the announcer's
            // read ahead would otherwise wait for an assignment that never comes.
            send(subtask, new AssignedElsewhereEvent(elsewhere));
        }
        if (!added.isEmpty()) {
            LOG.info(
                    "Partition {} announced {} partitions {} at {}",
                    PartitionNames.of(d.token()),
                    added.size(),
                    PartitionNames.list(added),
                    TimeFormat.micros(d.micros()));
            logTokens(added);
        }
    }

    /** The whole tokens behind the short names of the INFO lines, at DEBUG. */
    private static void logTokens(List<String> tokens) {
        if (LOG.isDebugEnabled()) {
            for (String token : tokens) {
                LOG.debug("Partition {} has token {}", PartitionNames.of(token), token);
            }
        }
    }

    private void onSnapshotSplitFinished(PartitionReport.SnapshotFinished f) {
        if (!snapshot.finished(f.token(), f.rows())) {
            return;
        }
        long now = clockMillis.getAsLong();
        if (now - lastSnapshotLogMillis >= 5000 || snapshot.unfinished().isEmpty()) {
            lastSnapshotLogMillis = now;
            LOG.info("Snapshot of change stream {}: {}", config.changeStream(), snapshot);
        }
        if (!checkpointing && snapshot.completeWithoutCheckpoint()) {
            onSnapshotDone();
        }
    }

    private void onBarrierReached(int subtask, PartitionReport.BarrierReached b) {
        if (graph.isPast(b.token(), b.micros())) {
            // Re-sent after a restore although the partition has gone past it: answer again.
            LOG.debug("Barrier of {} at {} was passed already", b.token(), b.micros());
            release(subtask, b.token(), b.micros());
            return;
        }
        LOG.debug(
                "Partition {} waits at {} for sources {}",
                b.token(),
                TimeFormat.micros(b.micros()),
                b.sources());
        graph.addBarrier(b, subtask, clockMillis.getAsLong());
    }

    /** Brings everything in line with the graph after any change. */
    private void afterChange() {
        if (mayAssign()) {
            assignSnapshotSplits();
            assignReadyPartitions();
        }
        releaseSatisfiedBarriers();
        boolean changed = graph.updateLowWatermark(config.bounded(), config.endMicros());
        if (graph.lowWatermarkSettled() && (changed || !readersAwaitingLowWatermark.isEmpty())) {
            LowWatermarkEvent event = new LowWatermarkEvent(graph.lowWatermarkMicros());
            for (int r : liveReaders()) {
                if (changed || readersAwaitingLowWatermark.contains(r)) {
                    send(r, event);
                    lowWatermarkTold.merge(r, event.micros(), Math::max);
                }
            }
            readersAwaitingLowWatermark.clear();
        }
        graph.prune();
        flushEvents();
        signalNoMoreSplitsIfDone();
        metrics.update(graph, snapshot, clockMillis.getAsLong());
    }

    /**
     * Whether splits may be assigned: once every reader has registered, or the wait for them ran
     * out. Later (failovers, rescales) readers come and go and assignment does not wait.
     */
    private boolean mayAssign() {
        if (!assignmentStarted) {
            int registered = context.registeredReaders().size();
            long waited = clockMillis.getAsLong() - createdMillis;
            if (registered >= context.currentParallelism()) {
                assignmentStarted = true;
            } else if (registered > 0 && waited >= START_ASSIGNMENT_WAIT_MILLIS) {
                LOG.warn(
                        "Only {} of {} readers registered within {} s; assigning to those",
                        registered,
                        context.currentParallelism(),
                        waited / 1000);
                assignmentStarted = true;
            }
        }
        return assignmentStarted;
    }

    /** Hands snapshot splits to the readers, a few at a time each, the least loaded first. */
    private void assignSnapshotSplits() {
        if (snapshot.status() != SnapshotPhase.Status.READING) {
            return;
        }
        Set<Integer> readers = assignableReaders();
        List<SnapshotSplit> unassigned = snapshot.unassigned();
        if (readers.isEmpty() || unassigned.isEmpty()) {
            return;
        }
        Map<Integer, Integer> loads = snapshot.loads(readers);
        Map<Integer, List<SpannerSplit>> chosen = new TreeMap<>();
        for (SnapshotSplit split : unassigned) {
            int reader = -1;
            for (Map.Entry<Integer, Integer> e : loads.entrySet()) {
                if (e.getValue() < SNAPSHOT_SPLITS_PER_READER
                        && (reader < 0 || e.getValue() < loads.get(reader))) {
                    reader = e.getKey();
                }
            }
            if (reader < 0) {
                break; // every reader has enough for now
            }
            loads.merge(reader, 1, Integer::sum);
            snapshot.markAssigned(split, reader);
            chosen.computeIfAbsent(reader, r -> new ArrayList<>()).add(split);
        }
        if (!chosen.isEmpty()) {
            chosen.forEach(
                    (reader, list) ->
                            LOG.debug(
                                    "Assigning {} snapshot splits to subtask {}",
                                    list.size(),
                                    reader));
            flushEvents();
            context.assignSplits(new SplitsAssignment<>(chosen));
        }
    }

    private void assignReadyPartitions() {
        Set<Integer> readers = assignableReaders();
        if (readers.isEmpty() || (config.streamAfterSnapshot() && !snapshot.done())) {
            // Stream partitions never run alongside snapshot splits: a key's snapshot row must
            // come before its changes.
            return;
        }
        // Legacy children wait for all their parents when per-key order is kept: a merged
        // child must not emit a key's change before the parent it came from emitted earlier ones.
        List<PartitionEntry> ready =
                graph.readyToAssign(config.perKeyOrdering(), clockMillis.getAsLong());
        if (ready.isEmpty()) {
            return;
        }
        Map<Integer, List<PartitionEntry>> chosen =
                SplitAssigner.assign(ready, graph.loads(readers), this::mayRead);
        if (chosen.values().stream().mapToInt(List::size).sum() < ready.size()
                && LOG.isDebugEnabled()) {
            LOG.debug(
                    "Partitions that resume below the watermark every running reader may have"
                            + " emitted wait for a restarted reader: {}",
                    ready.stream()
                            .filter(p -> chosen.values().stream().noneMatch(l -> l.contains(p)))
                            .map(PartitionEntry::token)
                            .toList());
        }
        if (chosen.isEmpty()) {
            return;
        }
        Map<Integer, List<SpannerSplit>> splits = new TreeMap<>();
        chosen.forEach(
                (reader, entries) -> {
                    List<SpannerSplit> list = new ArrayList<>(entries.size());
                    for (PartitionEntry p : entries) {
                        list.add(p.split(config.endMicros()));
                        graph.markAssigned(p.token(), reader);
                        LOG.debug("Partition {} goes to subtask {}", p.token(), reader);
                    }
                    splits.put(reader, list);
                    LOG.info(
                            "Assigning {} partitions {} to subtask {} ({} assigned, {} finished"
                                    + " of {} known)",
                            entries.size(),
                            PartitionNames.list(
                                    entries.stream().map(PartitionEntry::token).toList()),
                            reader,
                            graph.count(PartitionStatus.ASSIGNED),
                            graph.count(PartitionStatus.FINISHED),
                            graph.partitions().size());
                });
        flushEvents();
        context.assignSplits(new SplitsAssignment<>(splits));
        tellReadersWhatWentElsewhere(readers, chosen);
    }

    /**
     * Whether the reader may get the partition: only if its records all lie above the highest low
     * watermark the reader was told, which it may have emitted. After a failover of some readers a
     * partition given back resumes below what the others were told; their pipelines did not
     * restart, so its records would be late there. It goes to a restarted reader instead.
     */
    private boolean mayRead(int reader, PartitionEntry p) {
        Long told = lowWatermarkTold.get(reader);
        return told == null || told <= p.progressMicros();
    }

    /** Readers that read a partition ahead give it up once another reader has it. */
    private void tellReadersWhatWentElsewhere(
            Set<Integer> readers, Map<Integer, List<PartitionEntry>> chosen) {
        if (!config.readAhead() || readers.size() < 2) {
            return;
        }
        for (int reader : readers) {
            List<String> elsewhere = new ArrayList<>();
            chosen.forEach(
                    (other, entries) -> {
                        for (PartitionEntry p : entries) {
                            if (other != reader && mayHaveReadAhead(reader, p)) {
                                elsewhere.add(p.token());
                            }
                        }
                    });
            if (!elsewhere.isEmpty()) {
                send(reader, new AssignedElsewhereEvent(elsewhere));
            }
        }
    }

    /** Whether a known partition is read, or was read, by a subtask other than {@code reader}. */
    private static boolean takenElsewhere(PartitionEntry known, int reader) {
        return known != null
                && (known.status() == PartitionStatus.FINISHED
                        || (known.status() == PartitionStatus.ASSIGNED
                                && known.subtask() != reader));
    }

    /**
     * Whether the reader may have started the partition's query ahead: only a record of a partition
     * it reads announces one to it, so never a root, and a legacy child only to readers of its
     * parents (when every parent's reader is known; a MUTABLE_KEY_RANGE partition names none).
     */
    private boolean mayHaveReadAhead(int reader, PartitionEntry p) {
        if (p.discoverer() == PartitionEntry.NO_SUBTASK) {
            return false;
        }
        if (p.parentTokens().isEmpty()) {
            return true;
        }
        boolean parentHere = false;
        for (String parent : p.parentTokens()) {
            PartitionEntry e = graph.get(parent);
            if (e == null || e.subtask() == PartitionEntry.NO_SUBTASK) {
                return true; // pruned or unassigned: the announcer is not known
            }
            parentHere |= e.subtask() == reader;
        }
        return parentHere;
    }

    private void releaseSatisfiedBarriers() {
        for (PendingBarrier b : graph.satisfiedBarriers()) {
            int target = graph.releaseTarget(b);
            if (!isLive(target)) {
                // Kept until the partition has a reader again; assignment retries it.
                LOG.debug("Barrier of {} at {} waits for a reader", b.token(), b.micros());
                continue;
            }
            graph.removeBarrier(b.token());
            long waited = clockMillis.getAsLong() - b.sinceMillis();
            metrics.barrierReleased(waited);
            LOG.debug(
                    "Releasing partition {} at {} after {} ms",
                    b.token(),
                    TimeFormat.micros(b.micros()),
                    waited);
            release(target, b.token(), b.micros());
        }
    }

    private void signalNoMoreSplitsIfDone() {
        if (!config.bounded() || !snapshot.done() || !graph.allFinished()) {
            return;
        }
        List<Integer> toSignal = new ArrayList<>();
        for (int reader : liveReaders()) {
            if (!signalledNoMoreSplits.contains(reader)) {
                toSignal.add(reader);
                // A reader told there are no more splits may finish at once, and an event to a
                // finished task fails the job: what it is owed goes first, nothing follows.
                acknowledgeIfDue(reader, true);
            }
        }
        flushEvents();
        for (int reader : toSignal) {
            signalledNoMoreSplits.add(reader);
            LOG.info("Every partition has finished; no more splits for subtask {}", reader);
            context.signalNoMoreSplits(reader);
        }
    }

    /**
     * Sends a reader the acknowledgements pending for it: with {@code force}, else when the first
     * since a while, when {@link #ACK_INTERVAL_MILLIS} have passed since the last, or when {@link
     * #ACK_BATCH} are pending. The periodic check sends what a reader that went quiet still has.
     */
    private void acknowledgeIfDue(int subtask, boolean force) {
        List<String> ids = pendingAcks.get(subtask);
        if (ids == null || ids.isEmpty()) {
            return;
        }
        long now = clockMillis.getAsLong();
        Long last = lastAckMillis.get(subtask);
        if (force || last == null || now - last >= ACK_INTERVAL_MILLIS || ids.size() >= ACK_BATCH) {
            pendingAcks.remove(subtask);
            lastAckMillis.put(subtask, now);
            send(subtask, new AckReportsEvent(ids));
        }
    }

    private void release(int subtask, String token, long micros) {
        send(subtask, new ReleaseBarrierEvent(token, micros));
    }

    /** Registered readers that have not announced their failure. */
    private Set<Integer> liveReaders() {
        Set<Integer> readers = new HashSet<>(context.registeredReaders().keySet());
        readers.removeAll(failingReaders);
        return readers;
    }

    /**
     * Live readers that may still get splits: not those told there are no more, which may have
     * finished (a failover of another reader can give partitions back after that; they wait for the
     * restarted reader, which registers anew).
     */
    private Set<Integer> assignableReaders() {
        Set<Integer> readers = liveReaders();
        readers.removeAll(signalledNoMoreSplits);
        return readers;
    }

    private boolean isLive(int subtask) {
        return context.registeredReaders().containsKey(subtask)
                && !failingReaders.contains(subtask);
    }

    /**
     * A reader has failed: it gets nothing more, neither events nor splits, until its subtask
     * registers again, and {@link EventsStoppedEvent} tells it so, after which its task fails with
     * its own cause (see {@link ReaderFailingEvent}). What it was owed it is told again, or
     * re-sends, after the failover.
     */
    private void stopSendingTo(int subtask, ReaderFailingEvent failing) {
        if (!isLive(subtask)) {
            return; // Flink already knows it failed, or it said so already
        }
        LOG.warn(
                "Subtask {} failed: {}. Sending it nothing more until it registers again.",
                subtask,
                failing.cause());
        failingReaders.add(subtask);
        outgoing.remove(subtask);
        pendingAcks.remove(subtask);
        context.sendEventToSourceReader(subtask, new EventsStoppedEvent());
    }

    private void send(int subtask, SourceEvent event) {
        // After no more splits the reader may have finished (see signalNoMoreSplitsIfDone).
        if (isLive(subtask) && !signalledNoMoreSplits.contains(subtask)) {
            outgoing.computeIfAbsent(subtask, r -> new ArrayList<>()).add(event);
        }
    }

    /**
     * Sends the events waiting for each reader, several as one {@link EnumeratorEventsEvent}.
     * Called at the end of every change and before splits are assigned or no more splits are
     * signalled, so readers see events in the order they were produced.
     */
    private void flushEvents() {
        if (outgoing.isEmpty()) {
            return;
        }
        for (Map.Entry<Integer, List<SourceEvent>> e : outgoing.entrySet()) {
            if (!isLive(e.getKey())) {
                continue; // the reader failed meanwhile; it is told again when it registers
            }
            List<SourceEvent> events = e.getValue();
            context.sendEventToSourceReader(
                    e.getKey(),
                    events.size() == 1 ? events.get(0) : new EnumeratorEventsEvent(events));
        }
        outgoing.clear();
    }

    @Override
    public ChangeStreamEnumeratorState snapshotState(long checkpointId) {
        checkpointing = true;
        recentEnds.snapshotTaken(checkpointId);
        snapshot.snapshotTaken(checkpointId);
        return graph.snapshot().withSnapshot(snapshot.state());
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        recentEnds.checkpointCompleted(checkpointId);
        if (snapshot.checkpointCompleted(checkpointId)) {
            onSnapshotDone();
        }
    }

    @Override
    public void close() {
        try {
            if (snapshotPlanner != null) {
                snapshotPlanner.close();
            }
            rootPartitions.close();
        } finally {
            RecordMethodCaches.release(); // or the JobManager may keep this job's class loader
        }
    }

    @VisibleForTesting
    PartitionGraph graph() {
        return graph;
    }

    /** Partition ends still waiting for a completed checkpoint to become durable. */
    @VisibleForTesting
    int heldRecentEnds() {
        return recentEnds.size();
    }
}
