package io.spannercs.flink.source.reader;

import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.enumerator.PartitionNames;
import io.spannercs.flink.source.record.ChangeRecord;
import io.spannercs.flink.source.record.ChildPartitionsRecord;
import io.spannercs.flink.source.record.DataChangeRecord;
import io.spannercs.flink.source.record.PartitionEndRecord;
import io.spannercs.flink.source.record.PartitionEventRecord;
import io.spannercs.flink.source.record.PartitionStartRecord;
import io.spannercs.flink.source.record.RecordSequences;
import io.spannercs.flink.source.spanner.ChangeStreamQuery;
import io.spannercs.flink.source.spanner.QueryWindows;
import io.spannercs.flink.source.spanner.SpannerReadException;
import io.spannercs.flink.source.spanner.SpannerReads;
import io.spannercs.flink.source.split.PartitionPosition;
import io.spannercs.flink.source.split.PartitionReport;
import io.spannercs.flink.source.split.PartitionSplit;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one partition: its query runs as a {@link QueryStream} (a query thread, a bounded buffer,
 * retries), one window at a time ({@link SpannerReads#partitionWindow}). Data change records become
 * change events here, on the query thread (the only place a change record is converted). Query
 * windows are chained from the last record fetched (never from a window's end: a partition may end
 * inside a window without its end record, and Spanner rejects a query starting after the end),
 * transient errors are retried with backoff from there, and records already fetched are skipped by
 * their identity (see {@link PartitionPosition}), so each record reaches the buffer once.
 *
 * <p>A partition is read until its query ends, not just to its first end record: a legacy split may
 * list its children in several records. When it ends after an end record, the partition is done.
 *
 * <p>With per-key ordering, the partition records of a MUTABLE_KEY_RANGE timestamp are held until
 * the timestamp is complete (a later record arrives, or the query ends after the partition's end
 * record; a query that ends with its window may have left records of that timestamp out, so its
 * held records are read again by the next query) and then handed over in {@code record_sequence}
 * order, as the proto asks: they may arrive in any order, and a move-out must not be reported
 * before the data records that precede it. Data records and heartbeats are never held. They are
 * handed over as one element together with the barrier their move-ins set: records at the move-in's
 * timestamp are processed (the swap of two ranges reports its move-outs there), later ones wait
 * until the barrier is released. A partition's end records (PartitionEndRecord, legacy
 * ChildPartitionsRecords) are always held until its query ends, and handed over as one element with
 * the partition's end. A checkpoint falls between elements, so it never holds a move-in without its
 * barrier, or an end emitted without the partition being finished (DESIGN.md section 3, "Restore
 * anywhere").
 *
 * <p>The fetcher thread drains the buffer; draining stops at a move-in until its barrier is
 * released.
 */
final class PartitionStream extends QueryStream<List<ChangeRecord>> {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionStream.class);
    private static final Comparator<ChangeRecord> SEQUENCE_ORDER =
            Comparator.comparing(ChangeRecord::recordSequence, RecordSequences.ORDER);

    private final PartitionSplit split;
    private final ChangeStreamQuery query;
    private final SpannerReads reads;
    private final ReaderSharedState shared;
    private final ChangeEvents events;
    private final boolean holdPartitionRecords;

    // What has been put into the buffer; queries restart from here.
    private final PartitionPosition fetched;
    // Partition records of one timestamp, held for sequence order (see the class comment).
    private final List<ChangeRecord> held = new ArrayList<>();
    private final Set<String> heldIdentities = new HashSet<>();
    private long heldMicros;
    // An end record (or child partitions) was handed over before the query ended: only when a
    // later timestamp followed it, which a partition's end should not.
    private boolean endSeen;
    private boolean sourceEndConfirmed; // a second query reached the source's end too
    private long endMicros = Long.MIN_VALUE;

    // Where the split was restored, and the partition records of that timestamp it had handled,
    // read again while it waits at no barrier (see noteReRead).
    private final long restoredMicros;
    private final boolean restoredBlocked;
    private final List<ChangeRecord> reReadAtRestore = new ArrayList<>();
    private final Set<String> reReadIdentities = new HashSet<>();

    private long windowEndMicros = QueryWindows.NO_PREVIOUS;
    private boolean endDelivered;
    private boolean waitLogged;
    private long queryStartNanos;
    private boolean rowSeen; // by the running query
    private long lastRowNanos;
    private boolean stallWarned;
    // Draining stops at a barrier until it is released.
    private long blockedAtMicros;
    // Records the buffer may hold: fewer for a read ahead until it is taken over.
    private int bufferLimit;

    PartitionStream(
            PartitionSplit split,
            SpannerSourceConfig config,
            ChangeStreamQuery query,
            SpannerReads reads,
            Executor queryThreads,
            ReaderSharedState shared,
            ChangeEvents events,
            Runnable onData) {
        super(config, queryThreads, onData);
        this.split = split;
        this.events = events;
        this.query = query;
        this.reads = reads;
        this.shared = shared;
        this.holdPartitionRecords =
                config.perKeyOrdering()
                        && query.partitionMode()
                                == SpannerSourceConfig.PartitionMode.MUTABLE_KEY_RANGE;
        this.fetched = split.position();
        this.restoredMicros = fetched.micros();
        this.restoredBlocked = split.barrierMicros() != PartitionSplit.NO_BARRIER;
        this.blockedAtMicros = split.barrierMicros();
        this.ended = split.finished();
        this.bufferLimit = config.bufferedRecordsPerPartition();
    }

    @Override
    public synchronized void holdBack(int records) {
        bufferLimit = Math.min(bufferLimit, Math.max(1, records));
    }

    @Override
    public synchronized void takeOver() {
        bufferLimit = config.bufferedRecordsPerPartition();
        lastRowNanos = System.nanoTime(); // the wait for the assignment was no stall
        notifyAll();
    }

    @Override
    public String token() {
        return split.token();
    }

    @Override
    public synchronized boolean blocked() {
        return blockedAtMicros != PartitionSplit.NO_BARRIER;
    }

    /** Starts (or restarts) the query from the fetched position. */
    @Override
    public synchronized void start() {
        started = true;
        if (ended || failure != null) {
            return;
        }
        long startMicros = fetched.restartMicros();
        if (startMicros > config.endMicros()) {
            ended = true; // nothing of the partition lies within the source's range
            onData.run();
            return;
        }
        long nowMicros = nowMicros();
        long earliest = QueryWindows.earliestQueryMicros(startMicros);
        if (nowMicros < earliest) {
            // Spanner rejects windows ending too far in the future: wait on this side.
            if (!waitLogged) {
                LOG.info(
                        "{} starts at {}, in the future; its query waits until {}",
                        describe(),
                        Instant.ofEpochSecond(0, startMicros * 1000),
                        Instant.ofEpochSecond(0, earliest * 1000));
                waitLogged = true;
            }
            retries.waitFor((earliest - nowMicros) * 1000);
            return;
        }
        windowEndMicros =
                QueryWindows.end(
                        startMicros,
                        windowEndMicros,
                        config.queryWindow(),
                        config.endMicros(),
                        nowMicros);
        long endMicros = windowEndMicros;
        LOG.debug("Querying partition {} from {} to {}", split.token(), startMicros, endMicros);
        shared.partitionQueries().inc();
        queryStartNanos = System.nanoTime();
        lastRowNanos = queryStartNanos;
        rowSeen = false;
        stallWarned = false;
        launch(() -> reads.partitionWindow(query, split.token(), startMicros, endMicros));
    }

    private static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
    }

    /** Takes the records of one row of the query (on the query thread). */
    @Override
    protected boolean onRow(long run, List<ChangeRecord> records) {
        // Data records become events here, on this query thread, outside the lock.
        Map<ChangeRecord, ChangeEvents.Converted> converted = convert(records);
        boolean wasEmpty;
        synchronized (this) {
            if (run != generation) {
                return false; // superseded or closed
            }
            lastRowNanos = System.nanoTime();
            if (!rowSeen) {
                rowSeen = true;
                LOG.debug(
                        "First row of partition {} {} µs after its query started",
                        split.token(),
                        (lastRowNanos - queryStartNanos) / 1000);
            }
            wasEmpty = buffer.isEmpty();
            for (ChangeRecord r : records) {
                accept(r, converted.get(r));
            }
            retries.progressed();
        }
        // Only the first record needs to wake the fetcher: it drains until the buffer is empty.
        // Never under this stream's lock: the fetcher takes locks the other way.
        if (wasEmpty) {
            onData.run();
        }
        return true;
    }

    @Override
    protected int bufferLimit() {
        return bufferLimit;
    }

    @Override
    protected String rowFailure() {
        return "cannot decode a change record";
    }

    @Override
    protected Logger log() {
        return LOG;
    }

    /** The events of the row's data change records. */
    private Map<ChangeRecord, ChangeEvents.Converted> convert(List<ChangeRecord> records) {
        Map<ChangeRecord, ChangeEvents.Converted> out = new java.util.IdentityHashMap<>();
        for (ChangeRecord r : records) {
            if (r instanceof DataChangeRecord d) {
                out.put(r, events.convert(d, split.token()));
            }
        }
        return out;
    }

    private void accept(ChangeRecord r, ChangeEvents.Converted converted) {
        if (fetched.covers(r)) {
            noteReRead(r);
            return;
        }
        if (r.timestampMicros() == heldMicros && heldIdentities.contains(r.identity())) {
            return;
        }
        LOG.trace("Partition {} fetched {}", split.token(), r);
        announce(r);
        if (!held.isEmpty() && r.timestampMicros() > heldMicros) {
            releaseHeld(); // their timestamp is complete
        }
        if (!reReadAtRestore.isEmpty() && r.timestampMicros() > restoredMicros) {
            handOverReReadAtRestore();
        }
        if (isEndRecord(r) || (holdPartitionRecords && isPartitionRecord(r))) {
            held.add(r);
            heldIdentities.add(r.identity());
            heldMicros = r.timestampMicros();
            return;
        }
        deliver(r, converted);
    }

    private static boolean isPartitionRecord(ChangeRecord r) {
        return r instanceof PartitionEventRecord
                || r instanceof PartitionStartRecord
                || r instanceof PartitionEndRecord;
    }

    private static boolean isEndRecord(ChangeRecord r) {
        return r instanceof PartitionEndRecord || r instanceof ChildPartitionsRecord;
    }

    /**
     * A record read again that the split had handled before its restore.
     *
     * <p>An end record: state written before a partition's end records and its end travelled as one
     * element may hold an end emitted by an unfinished split. It still ends the partition when the
     * query ends (else the query would start again from the end, for ever).
     *
     * <p>Partition records of the restored timestamp, when the split waits at no barrier: they are
     * handed over again, as one element, before anything later (re-handling them changes no
     * position, and their reports are idempotent). That re-establishes what only they say and what
     * the enumerator forgets when it goes back to a restored position: the partition's move-outs at
     * that timestamp, which a partner that swapped ranges with it waits for; and it sets the
     * barrier of their move-ins again. Such a barrier was either released before the checkpoint
     * (the enumerator, or this reader, releases it again at once) or never set: state written
     * before move-ins travelled with their barrier.
     */
    private void noteReRead(ChangeRecord r) {
        if (isEndRecord(r)) {
            endSeen = true;
            endMicros = Math.max(endMicros, r.timestampMicros());
        } else if (holdPartitionRecords
                && isPartitionRecord(r)
                && !restoredBlocked
                && r.timestampMicros() == restoredMicros
                && fetched.micros() == restoredMicros
                && reReadIdentities.add(r.identity())) {
            reReadAtRestore.add(r);
        }
    }

    private void handOverReReadAtRestore() {
        List<ChangeRecord> records = new ArrayList<>(reReadAtRestore);
        records.sort(SEQUENCE_ORDER);
        List<String> sources = moveInSources(records);
        if (!sources.isEmpty()) {
            LOG.info(
                    "{} was restored after its move-in at {} with no barrier in its state: it"
                            + " waits for its sources {} again",
                    describe(),
                    restoredMicros,
                    sources);
        }
        buffer.add(FetchedRecord.partitionRecords(restoredMicros, records, sources));
        reReadAtRestore.clear();
    }

    private static List<String> moveInSources(List<ChangeRecord> records) {
        Set<String> sources = new LinkedHashSet<>();
        for (ChangeRecord r : records) {
            if (r instanceof PartitionEventRecord e) {
                sources.addAll(e.moveInSources());
            }
        }
        return List.copyOf(sources);
    }

    /** Partitions a record announces may be read ahead before they are assigned. */
    private void announce(ChangeRecord r) {
        if (r instanceof ChildPartitionsRecord c) {
            for (ChildPartitionsRecord.ChildPartition child : c.children()) {
                shared.announced(
                        new PartitionReport.NewPartition(
                                child.token(), c.timestampMicros(), child.parentTokens()));
            }
        } else if (r instanceof PartitionStartRecord s) {
            for (String token : s.partitionTokens()) {
                shared.announced(
                        new PartitionReport.NewPartition(token, s.timestampMicros(), List.of()));
            }
        }
    }

    /**
     * Hands the held partition records over in sequence order, as one element with the barrier of
     * their move-ins. Only a later timestamp completes a timestamp holding an end record, which a
     * partition's end should not be followed by; it then still ends the partition with the query.
     */
    private void releaseHeld() {
        if (held.isEmpty()) {
            return;
        }
        List<ChangeRecord> records = takeHeld();
        if (heldMicros == restoredMicros && !reReadAtRestore.isEmpty()) {
            // The same timestamp as records read again after the restore: one element.
            records.addAll(reReadAtRestore);
            records.sort(SEQUENCE_ORDER);
            reReadAtRestore.clear();
        }
        List<String> moveInSources = moveInSources(records);
        for (ChangeRecord r : records) {
            if (isEndRecord(r)) {
                endSeen = true;
                endMicros = Math.max(endMicros, r.timestampMicros());
            }
        }
        buffer.add(FetchedRecord.partitionRecords(heldMicros, records, List.copyOf(moveInSources)));
    }

    /** The held records in sequence order, advancing the fetched position past them. */
    private List<ChangeRecord> takeHeld() {
        List<ChangeRecord> records = new ArrayList<>(held);
        records.sort(SEQUENCE_ORDER);
        records.forEach(fetched::advance);
        discardHeld();
        return records;
    }

    private void discardHeld() {
        held.clear();
        heldIdentities.clear();
    }

    private void deliver(ChangeRecord r, ChangeEvents.Converted converted) {
        buffer.add(FetchedRecord.of(r, converted));
        fetched.advance(r);
        if (r instanceof DataChangeRecord) {
            shared.recordFetchLag(
                    Math.max(0, System.currentTimeMillis() - r.timestampMicros() / 1000));
        }
    }

    /** Whether a held record ends the partition. */
    private boolean endHeld() {
        for (ChangeRecord r : held) {
            if (isEndRecord(r)) {
                return true;
            }
        }
        return false;
    }

    /** The window's query returned every row: the partition ended, or the next window starts. */
    @Override
    protected void onRunDone(long run) {
        boolean endHeld = endHeld();
        LOG.debug(
                "Query of partition {} completed (end seen: {})",
                split.token(),
                endSeen || endHeld);
        if (endSeen || endHeld) {
            // The partition returned its end: every record of the held timestamp came. The
            // end records and the partition's end travel as one element.
            if (endHeld) {
                endMicros = Math.max(endMicros, heldMicros);
            }
            buffer.add(FetchedRecord.partitionEnd(endMicros, takeHeld()));
            ended = true;
        } else if (config.bounded()
                && windowEndMicros >= config.endMicros()
                && sourceEndConfirmed) {
            releaseHeld();
            ended = true; // the source's end: the reader reports it when the split ends
        } else {
            // The window ran out, possibly past the partition's end without its end record,
            // and then maybe before the rest of the held timestamp's records: those are read
            // again by the next query, which starts at the last record handed over. At the
            // source's end, one more query tells whether the partition ended inside the
            // window (its children then hold changes before the source's end).
            discardHeld();
            if (config.bounded() && windowEndMicros >= config.endMicros()) {
                sourceEndConfirmed = true;
            }
            start();
        }
    }

    @Override
    protected void onRunFailed(SpannerReadException e) {
        discardHeld(); // not handed over: the retry reads them again
        if (e.isTransient()) {
            shared.countQueryRestart();
        }
    }

    @Override
    protected String describe() {
        return "Change stream "
                + config.changeStream()
                + " of "
                + config.databaseName()
                + ", partition "
                + PartitionNames.of(split.token());
    }

    /**
     * Restarts a query whose retry time has come, and warns once about a query that has returned
     * nothing for much longer than the heartbeat interval; called by the fetcher thread.
     */
    @Override
    public synchronized void retryIfDue() {
        long now = System.nanoTime();
        if (retryDue(now)) {
            start();
        } else if (running && !stallWarned && now - lastRowNanos > stallNanos()) {
            stallWarned = true;
            LOG.warn(
                    "{}: its query has returned nothing for {} s although Spanner sends a heartbeat"
                            + " every {} ms; it may be waiting for a free gRPC stream (each channel"
                            + " carries about 100). Lower maxConcurrentPartitionsPerReader or raise"
                            + " the parallelism if this persists.",
                    describe(),
                    (now - lastRowNanos) / 1_000_000_000L,
                    config.heartbeatInterval().toMillis());
        }
    }

    private long stallNanos() {
        return 3 * config.heartbeatInterval().toNanos() + 30_000_000_000L;
    }

    /** Draining stops at a barrier that is not released yet. */
    @Override
    protected boolean mayDrain() {
        if (blockedAtMicros != PartitionSplit.NO_BARRIER) {
            if (!shared.isReleased(split.token(), blockedAtMicros)) {
                return false;
            }
            blockedAtMicros = PartitionSplit.NO_BARRIER;
        }
        return true;
    }

    /** The barrier marker itself is handed over, so the emitter can report it. */
    @Override
    protected boolean stopsDrainAfter(FetchedRecord r) {
        if (r.setsBarrier() && !shared.isReleased(split.token(), r.micros())) {
            blockedAtMicros = r.micros();
            return true;
        }
        return false;
    }

    @Override
    public synchronized boolean hasBufferedRecords() {
        return !buffer.isEmpty() && blockedAtMicros == PartitionSplit.NO_BARRIER;
    }

    synchronized void markEndDelivered() {
        endDelivered = true;
    }

    synchronized boolean endDelivered() {
        return endDelivered;
    }
}
