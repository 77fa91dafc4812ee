package io.spannercs.flink.source.reader;

import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.source.ChangeFilter;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.enumerator.PartitionNames;
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
import io.spannercs.flink.source.spanner.ClientReads;
import io.spannercs.flink.source.spanner.LazySpannerClient;
import io.spannercs.flink.source.spanner.RecordMethodCaches;
import io.spannercs.flink.source.split.PartitionReport;
import io.spannercs.flink.source.split.PartitionSplit;
import io.spannercs.flink.source.split.SnapshotSplit;
import io.spannercs.flink.source.split.SpannerSplit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the partitions assigned to one subtask. Partition records become reports to the enumerator;
 * each report stays in its split's state until the enumerator acknowledges it, and finished splits
 * with unacknowledged reports stay in the checkpointed state as finished splits, so no report is
 * lost across a checkpoint. After a restore every pending report is sent again.
 */
@Internal
public final class ChangeStreamSourceReader<T>
        extends SingleThreadMultiplexSourceReaderBase<FetchedRecord, T, SpannerSplit, SplitState> {
    private static final Logger LOG = LoggerFactory.getLogger(ChangeStreamSourceReader.class);

    private final SpannerSourceConfig config;
    private final LazySpannerClient spanner;
    private final ExecutorService queryThreads;
    private final ReaderSharedState shared;
    private final ReadAheads readAheads;
    private final ChangeStreamFetcherManager fetchers;
    private final ReportOutbox outbox;
    private final Map<String, SplitState> states;
    private final LocalBarriers localBarriers;

    /** Finished splits whose last reports await acknowledgement. */
    private final Map<String, SplitState> finishedAwaitingAck = new LinkedHashMap<>();

    /** How long reports produced while records keep coming may wait for others. */
    static final long REPORT_BATCH_NANOS = 1_000_000L;

    /**
     * How long a failed reader waits for the enumerator's {@link EventsStoppedEvent} before its
     * task fails anyway; the answer takes a round trip to the JobManager.
     */
    static final long FAILURE_QUIET_WAIT_MILLIS = 10_000;

    // The failure this reader waits to throw until the enumerator has stopped sending (see
    // failOnceEnumeratorIsQuiet), whether it broke the operators downstream or the split states,
    // and what completes when the enumerator has stopped, or when the wait ran out.
    private Exception failure;
    private boolean failedWhileEmitting;
    private CompletableFuture<Void> enumeratorQuiet;
    private boolean enumeratorConfirmed;

    private long lastProgressNanos;
    // The output of the last poll (the same for the reader's life), for watermarks between polls.
    private ReaderOutput<T> output;
    private long lastLowWatermarkMillis = Long.MIN_VALUE;

    private ChangeStreamSourceReader(
            SpannerSourceConfig config,
            LazySpannerClient spanner,
            ExecutorService queryThreads,
            ReaderSharedState shared,
            ReadAheads readAheads,
            ReportOutbox outbox,
            Map<String, SplitState> states,
            LocalBarriers localBarriers,
            ChangeEventDeserializer<T> deserializer,
            ChangeFilter filter,
            SourceReaderContext context) {
        super(
                fetchers(config, spanner, queryThreads, shared, readAheads, filter),
                new ChangeStreamRecordEmitter<>(
                        deserializer,
                        config,
                        shared,
                        outbox,
                        localBarriers,
                        context.metricGroup().getIOMetricGroup().getNumRecordsInCounter(),
                        context.metricGroup().counter("numRecordsFiltered"),
                        context.metricGroup().counter("numSnapshotRows")),
                new Configuration(),
                context);
        this.config = config;
        this.spanner = spanner;
        this.queryThreads = queryThreads;
        this.shared = shared;
        this.readAheads = readAheads;
        this.fetchers = (ChangeStreamFetcherManager) splitFetcherManager;
        this.outbox = outbox;
        this.states = states;
        this.localBarriers = localBarriers;
        registerMetrics(context.metricGroup());
    }

    private static ChangeStreamFetcherManager fetchers(
            SpannerSourceConfig config,
            LazySpannerClient spanner,
            ExecutorService queryThreads,
            ReaderSharedState shared,
            ReadAheads readAheads,
            ChangeFilter filter) {
        return new ChangeStreamFetcherManager(
                () ->
                        new ChangeStreamSplitReader(
                                config,
                                ClientReads.of(spanner, config),
                                queryThreads,
                                shared,
                                readAheads,
                                filter),
                new Configuration());
    }

    /**
     * A reader with its client (opening in the background from {@link #start}, shared with other
     * readers of the TaskManager where channels allow) and query threads, closed with the reader.
     */
    public static <T> ChangeStreamSourceReader<T> create(
            SpannerSourceConfig config,
            ChangeEventDeserializer<T> deserializer,
            ChangeFilter filter,
            SourceReaderContext context) {
        AtomicInteger n = new AtomicInteger();
        // One thread per running partition query (a change stream query streams for its whole
        // window); the split reader keeps at most maxConcurrentPartitionsPerReader of them
        // reading, and idle threads go away.
        ExecutorService executor =
                Executors.newCachedThreadPool(
                        r -> {
                            Thread t =
                                    new Thread(
                                            r,
                                            "spanner-cs-query-"
                                                    + context.getIndexOfSubtask()
                                                    + "-"
                                                    + n.incrementAndGet());
                            t.setDaemon(true);
                            return t;
                        });
        // Opened from start(), in the background.
        LazySpannerClient spanner = new LazySpannerClient(config);
        try {
            ReaderSharedState shared = new ReaderSharedState();
            Map<String, SplitState> states = new LinkedHashMap<>();
            return new ChangeStreamSourceReader<>(
                    config,
                    spanner,
                    executor,
                    shared,
                    new ReadAheads(),
                    new ReportOutbox(),
                    states,
                    new LocalBarriers(states, shared),
                    deserializer,
                    filter,
                    context);
        } catch (RuntimeException | Error e) {
            executor.shutdownNow();
            spanner.close();
            throw e;
        }
    }

    private void registerMetrics(MetricGroup group) {
        group.gauge("currentFetchEventTimeLag", shared::fetchLagMillis);
        group.gauge(
                "activePartitions",
                () ->
                        states.values().stream()
                                .filter(s -> s instanceof PartitionSplitState)
                                .count());
        group.gauge(
                "activeSnapshotSplits",
                () ->
                        states.values().stream()
                                .filter(s -> s instanceof SnapshotSplitState)
                                .count());
        group.gauge(
                "blockedPartitions",
                () ->
                        states.values().stream()
                                .filter(
                                        s ->
                                                s instanceof PartitionSplitState p
                                                        && p.barrierMicros()
                                                                != PartitionSplit.NO_BARRIER)
                                .count());
        group.gauge("queryRestarts", shared::queryRestarts);
        group.counter("numPartitionQueries", shared.partitionQueries());
        group.counter("numPartitionsReadAhead", shared.readAheadsTaken());
        group.counter("numReadAheadsGivenUp", readAheads.givenUp());
        group.counter("numBarriersReleasedLocally", localBarriers.releasedHere());
        group.counter("numRecordsMutableKeyRange", shared.mutableKeyRangeRecords());
        group.counter("numRecordsImmutableKeyRange", shared.immutableKeyRangeRecords());
        group.gauge("lowWatermarkMicros", shared::lowWatermarkMicros);
    }

    @Override
    public void start() {
        // The client starts while the enumerator lists the first partitions, not after.
        spanner.openInBackground();
        super.start();
    }

    @Override
    public void addSplits(List<SpannerSplit> splits) {
        super.addSplits(splits);
        if (failure != null) {
            return; // kept for checkpoints while the failure waits; the enumerator hears no more
        }
        // First of all, tell the enumerator where these splits resume: after a failover its view
        // may be ahead of this reader's restored state.
        List<SplitsResumedEvent.ResumedSplit> resumed = new ArrayList<>(splits.size());
        List<String> unfinishedSnapshotSplits = new ArrayList<>();
        for (SpannerSplit split : splits) {
            SplitState s = states.get(split.splitId());
            if (s == null) {
                s = finishedAwaitingAck.get(split.splitId());
            }
            if (s instanceof PartitionSplitState p) {
                resumed.add(p.resumed());
            } else if (!s.finished()) {
                unfinishedSnapshotSplits.add(s.token());
            }
        }
        // Reports restored with a split were maybe never seen by the enumerator: send them again,
        // after the resume positions and with the current progress, in one event.
        for (SpannerSplit split : splits) {
            List<PartitionReport> pending =
                    split instanceof PartitionSplit p
                            ? p.pendingReports()
                            : ((SnapshotSplit) split).pendingReports();
            pending.forEach(outbox::resend);
            if (!pending.isEmpty()) {
                LOG.info(
                        "Re-sending {} unacknowledged reports of split {}",
                        pending.size(),
                        PartitionNames.of(split.splitId()));
            }
        }
        outbox.progressChanged();
        flushReports(true, true, new SplitsResumedEvent(resumed, unfinishedSnapshotSplits));
    }

    @Override
    public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
        if (failure != null) {
            if (enumeratorQuiet.isDone()) {
                throw failureOnceQuiet();
            }
            return InputStatus.NOTHING_AVAILABLE;
        }
        try {
            return poll(output);
        } catch (Exception e) {
            return failOnceEnumeratorIsQuiet(e);
        }
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        return failure != null ? enumeratorQuiet : super.isAvailable();
    }

    /**
     * Holds a failure back until the enumerator has confirmed it sends this reader nothing more, or
     * {@link #FAILURE_QUIET_WAIT_MILLIS} passed. An event reaching the task after it failed would
     * make Flink fail it again with "An OperatorEvent ... was lost", and whichever failure reaches
     * the JobManager first becomes the job's cause: users would read that instead of this one.
     */
    private InputStatus failOnceEnumeratorIsQuiet(Exception e) throws Exception {
        String causes = causes(e);
        LOG.warn(
                "Subtask {} failed; its task fails once the enumerator has stopped sending it"
                        + " events (at most {} ms): {}",
                context.getIndexOfSubtask(),
                FAILURE_QUIET_WAIT_MILLIS,
                causes);
        CompletableFuture<Void> quiet = new CompletableFuture<>();
        try {
            queryThreads.execute(() -> completeAfterWait(quiet));
            context.sendSourceEventToCoordinator(new ReaderFailingEvent(causes));
        } catch (RuntimeException | Error notSent) {
            e.addSuppressed(notSent);
            throw e;
        }
        failure = e;
        failedWhileEmitting |= ((ChangeStreamRecordEmitter<T>) recordEmitter).failedWhileEmitting();
        enumeratorQuiet = quiet;
        return InputStatus.NOTHING_AVAILABLE;
    }

    /** The failure, noting when the enumerator did not confirm in time. */
    private Exception failureOnceQuiet() {
        if (!enumeratorConfirmed) {
            String note =
                    "The enumerator did not confirm within "
                            + FAILURE_QUIET_WAIT_MILLIS
                            + " ms that it stopped sending to subtask "
                            + context.getIndexOfSubtask()
                            + "; Flink may report an event to it as lost.";
            LOG.warn(note);
            failure.addSuppressed(new IllegalStateException(note));
        }
        return failure;
    }

    /** Each exception of the chain, outermost first: Flink's fetcher wraps the useful one. */
    private static String causes(Throwable e) {
        StringBuilder out = new StringBuilder(e.toString());
        Set<Throwable> seen = new HashSet<>(List.of(e));
        for (Throwable c = e.getCause(); c != null && seen.add(c); c = c.getCause()) {
            out.append("; caused by ").append(c);
        }
        return out.toString();
    }

    private static void completeAfterWait(CompletableFuture<Void> quiet) {
        try {
            Thread.sleep(FAILURE_QUIET_WAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the reader is closing
        } finally {
            quiet.complete(null);
        }
    }

    private InputStatus poll(ReaderOutput<T> output) throws Exception {
        InputStatus status = super.pollNext(output);
        if (localBarriers.releaseReached()) {
            outbox.progressChanged();
        }
        // While records keep coming, reports wait up to a millisecond to travel together: every
        // event to the enumerator is serialized and sent through the job's RPC service, which
        // per record cost more than reading it. Nothing waits once the reader has no record.
        flushReports(false, status != InputStatus.MORE_AVAILABLE);
        this.output = output;
        failedWhileEmitting = true; // the watermark goes through the operators downstream
        emitLowWatermarkWithoutPartitions();
        failedWhileEmitting = false;
        return status;
    }

    /**
     * A reader without partitions has no split watermark, which would hold back every operator
     * downstream (the enumerator may give all partitions to other readers): it emits the
     * enumerator's low watermark instead. That is at or below every unfinished partition's
     * progress, so below every record this reader may still emit, whichever partitions it gets.
     *
     * <p>Not idleness: Flink leaves an input that was idle out of the downstream watermark until
     * its own watermark catches up, so records of a partition the reader gets next, or records
     * still in flight, could be late (NoLateRecordsITCase found it).
     */
    private void emitLowWatermarkWithoutPartitions() {
        if (output == null || !states.isEmpty()) {
            return;
        }
        long micros = shared.lowWatermarkMicros();
        if (micros == Long.MIN_VALUE) {
            return;
        }
        long millis = ChangeStreamRecordEmitter.watermarkMillis(micros);
        if (millis > lastLowWatermarkMillis) {
            lastLowWatermarkMillis = millis;
            output.emitWatermark(new Watermark(millis));
        }
    }

    /**
     * Sends the reports produced so far with the partitions' progress: at once with {@code force},
     * else when progress is due, or reports are waiting and either {@code noMoreRecordsNow} or they
     * have waited {@link #REPORT_BATCH_NANOS}.
     */
    private void flushReports(boolean force, boolean noMoreRecordsNow) {
        flushReports(force, noMoreRecordsNow, null);
    }

    /** As above, led by where the splits just added resume ({@code resumed} forces sending). */
    private void flushReports(boolean force, boolean noMoreRecordsNow, SplitsResumedEvent resumed) {
        long now = System.nanoTime();
        boolean progressDue = now - lastProgressNanos >= config.progressInterval().toNanos();
        boolean reportsDue =
                outbox.hasReports()
                        && (noMoreRecordsNow || now - lastProgressNanos >= REPORT_BATCH_NANOS);
        if (!(force || progressDue || reportsDue)) {
            return;
        }
        List<PartitionReport> reports = outbox.take();
        Map<String, Long> progress = new LinkedHashMap<>();
        for (SplitState s : states.values()) {
            if (s instanceof PartitionSplitState && !s.finished()) {
                progress.put(s.token(), s.progressMicros());
            }
        }
        if (resumed == null && reports.isEmpty() && progress.isEmpty()) {
            return;
        }
        lastProgressNanos = now;
        context.sendSourceEventToCoordinator(new ReaderReportsEvent(resumed, reports, progress));
    }

    @Override
    public void handleSourceEvents(SourceEvent event) {
        if (failure != null) {
            if (event instanceof EventsStoppedEvent) {
                enumeratorConfirmed = true;
                enumeratorQuiet.complete(null);
            }
            return; // a failing reader acts on nothing more
        }
        if (event instanceof EnumeratorEventsEvent batch) {
            batch.events().forEach(this::handleSourceEvents);
        } else if (event instanceof ReleaseBarrierEvent release) {
            if (states.get(release.token()) instanceof PartitionSplitState s) {
                s.release(release.micros());
            }
            shared.releaseBarrier(release.token(), release.micros());
            LOG.debug("Barrier of {} at {} released", release.token(), release.micros());
        } else if (event instanceof AssignedElsewhereEvent elsewhere) {
            readAheads.giveUp(elsewhere.tokens());
        } else if (event instanceof StreamShapeEvent shape) {
            shared.setKnownQuery(
                    new ChangeStreamQuery(
                            config.changeStream(), shape.dialect(), shape.partitionMode()));
        } else if (event instanceof LowWatermarkEvent low) {
            shared.setLowWatermark(low.micros());
            emitLowWatermarkWithoutPartitions();
        } else if (event instanceof AckReportsEvent ack) {
            Set<String> ids = new HashSet<>(ack.reportIds());
            states.values().forEach(s -> s.acknowledge(ids));
            finishedAwaitingAck.values().forEach(s -> s.acknowledge(ids));
            finishedAwaitingAck.values().removeIf(s -> s.pendingReports().isEmpty());
        } else {
            super.handleSourceEvents(event);
        }
    }

    @Override
    public List<SpannerSplit> snapshotState(long checkpointId) {
        if (failure != null && (failedWhileEmitting || enumeratorQuiet.isDone())) {
            // The split states or the operators downstream may stand part-way through what
            // failed, or the task fails anyway: no place to resume from.
            throw new IllegalStateException(
                    "Subtask "
                            + context.getIndexOfSubtask()
                            + " failed before checkpoint "
                            + checkpointId,
                    failure);
        }
        if (failure != null) {
            // The enumerator's answer cannot come by waiting here: Flink holds every event from
            // the coordinator to this subtask, from the coordinator's part of this checkpoint
            // until the subtask's part is done. Failing the task now would make Flink report the
            // held answer as lost, a second failure that could restart the job. The failure came
            // from reading or from the deserializer, between elements: the split states hold
            // exactly what went downstream, a checkpoint like any other.
            LOG.info(
                    "Subtask {} takes checkpoint {} while its failure waits for the enumerator",
                    context.getIndexOfSubtask(),
                    checkpointId);
        }
        Map<String, SpannerSplit> splits = new LinkedHashMap<>();
        for (SpannerSplit split : super.snapshotState(checkpointId)) {
            splits.put(split.splitId(), split);
        }
        for (SplitState s : finishedAwaitingAck.values()) {
            splits.put(s.token(), s.toSplit());
        }
        return new ArrayList<>(splits.values());
    }

    @Override
    protected void onSplitFinished(Map<String, SplitState> finished) {
        for (Map.Entry<String, SplitState> e : finished.entrySet()) {
            SplitState s = states.remove(e.getKey());
            if (s == null) {
                s = e.getValue();
            }
            if (!s.finished() && s instanceof PartitionSplitState) {
                // The source's end timestamp ended the split, not a partition record: the
                // enumerator still has to learn that nothing more will come from it.
                outbox.add(s, new PartitionReport.Finished(s.token(), config.endMicros()));
                s.markFinished();
            }
            if (s instanceof PartitionSplitState) {
                localBarriers.finished(s.token());
            }
            if (!s.pendingReports().isEmpty()) {
                finishedAwaitingAck.put(e.getKey(), s);
            }
        }
        // Sent by pollNext, which called this: at once when no record is waiting, else together
        // with what the next records produce.
        outbox.progressChanged();
    }

    @Override
    protected SplitState initializedState(SpannerSplit split) {
        SplitState state =
                split instanceof PartitionSplit p
                        ? new PartitionSplitState(p)
                        : new SnapshotSplitState((SnapshotSplit) split);
        if (state.finished()) {
            finishedAwaitingAck.put(split.splitId(), state);
        } else {
            states.put(split.splitId(), state);
        }
        return state;
    }

    @Override
    protected SpannerSplit toSplitType(String splitId, SplitState state) {
        return state.toSplit();
    }

    @Override
    public void notifyNoMoreSplits() {
        readAheads.close(); // nothing more will be assigned: what was read ahead stays unread
        fetchers.noMoreSplits();
        super.notifyNoMoreSplits();
    }

    @Override
    public void close() throws Exception {
        try {
            readAheads.close();
            super.close();
        } finally {
            queryThreads.shutdownNow();
            // Waits (bounded) for the query threads and the client's threads to end: none may
            // outlive the job, or a failed attempt, with the job's class loader.
            try {
                spanner.close();
            } finally {
                RecordMethodCaches.release(); // or the TaskManager may keep this job's loader
            }
        }
    }
}
