package io.spannercs.flink.source.anywhere;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import io.spannercs.flink.source.enumerator.AnywhereEnumeratorProbe;
import io.spannercs.flink.source.enumerator.ChangeStreamEnumeratorState;
import io.spannercs.flink.source.event.ReaderReportsEvent;
import io.spannercs.flink.source.reader.AnywhereProbe;
import io.spannercs.flink.source.split.PartitionReport;
import io.spannercs.flink.source.split.PartitionSplit;
import io.spannercs.flink.source.split.SnapshotSplit;
import io.spannercs.flink.source.split.SpannerSplit;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.metrics.Counter;

/**
 * One run of the source, in this JVM and on the calling thread, as Flink's runtime would drive it:
 * an enumerator with its context, one reader per subtask, the operator events between them (in
 * order per subtask and direction, Java-serialized, delivered in a seeded interleaving), Flink's
 * checkpoint protocol and its three kinds of failover. See {@link CheckpointAnywhereITCase} for why
 * and {@link #step} for the interleaving.
 *
 * <p>Single-threaded: the calling thread is the coordinator thread and every task thread at once.
 * The readers' fetchers and the emulator run on their own threads; what they do reaches this thread
 * only through the readers (elements to poll, availability), which is what Flink sees too.
 */
final class Job implements AutoCloseable {
    /** A checkpoint with no id: a failover before any checkpoint completed. */
    static final long NO_CHECKPOINT = -1;

    /** How long a run may go without an element before it counts as stuck. */
    static final long STUCK_NANOS = TimeUnit.SECONDS.toNanos(30);

    /**
     * Partition queries a reader may start without emitting an element in between before the run
     * counts as stuck (a partition query restarting forever).
     */
    static final long STUCK_QUERIES = 60;

    private final Scenario scenario;
    private final SpannerChangeStreamSource<ChangeEvent> source;
    private final SimpleVersionedSerializer<SpannerSplit> splitSerializer;
    private final SimpleVersionedSerializer<ChangeStreamEnumeratorState> stateSerializer;
    private final int parallelism;
    private final Random random;
    private final String name;

    private SimEnumeratorContext context;
    private SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> enumerator;
    private final Slot[] slots;
    private final List<Attempt> attempts = new ArrayList<>();
    private final List<SimOutput.Emission> emissions = new ArrayList<>();
    private final List<Element> elements = new ArrayList<>();
    private final List<ElementListener> listeners = new ArrayList<>();
    private final List<Hold> holds = new ArrayList<>();
    private final List<FinishedReport> finishedReports = new ArrayList<>();
    private long seq;

    private long nextCheckpointId = 1;
    private Checkpoint inProgress;

    /** Whether the job takes checkpoints on its own (when idle, and every so many elements). */
    boolean backgroundCheckpoints;

    private final int checkpointEvery;
    private int elementsSinceCheckpoint;
    private boolean activitySinceCheckpoint = true;
    private boolean periodicDue = true;
    private int steps;
    private long lastProgressNanos = System.nanoTime();
    private boolean closed;
    private final List<String> log = new ArrayList<>();

    /** An element a reader emitted, with where in the job it came. */
    record Element(
            int index,
            int subtask,
            int attempt,
            int indexInAttempt,
            AnywhereProbe.Kind kind,
            AnywhereProbe.Element e) {

        @Override
        public String toString() {
            return "#"
                    + index
                    + " "
                    + kind
                    + " of "
                    + Scenario.shortToken(e.split())
                    + (e.micros() == 0 ? "" : " at " + e.micros())
                    + " (subtask "
                    + subtask
                    + ", attempt "
                    + attempt
                    + ")";
        }
    }

    /** A reader told the enumerator that a partition finished, at {@code endMicros}. */
    record FinishedReport(int subtask, int attempt, String token, long endMicros) {}

    /** Hears of elements after the poll that emitted them returned. */
    interface ElementListener {
        void emitted(Element element);
    }

    /** A message to a reader, serialized as Flink sends it. */
    record ToReader(Type type, List<byte[]> splits, byte[] event) {
        enum Type {
            SPLITS,
            EVENT,
            NO_MORE_SPLITS
        }

        static ToReader event(SourceEvent event) {
            return new ToReader(Type.EVENT, List.of(), javaSerialize(event));
        }

        static ToReader noMoreSplits() {
            return new ToReader(Type.NO_MORE_SPLITS, List.of(), null);
        }
    }

    /** A message to the enumerator: a reader's registration or one of its events. */
    record ToEnumerator(int attempt, boolean registration, byte[] event) {}

    /** A completed (or in-progress) checkpoint. */
    static final class Checkpoint {
        final long id;
        byte[] enumeratorState;
        final Set<Integer> pending = new TreeSet<>();
        final Map<Integer, List<byte[]>> readerState = new TreeMap<>();
        final Set<Integer> finished = new TreeSet<>();

        /** Per subtask: how many of its current attempt's emissions the checkpoint holds. */
        final Map<Integer, Integer> emissionCut = new TreeMap<>();

        boolean completed;

        /** Readers do not get to snapshot it: the job fails before it completes. */
        boolean frozen;

        Checkpoint(long id) {
            this.id = id;
        }
    }

    /** One reader of one subtask, from its start to its end or failure. */
    static final class Attempt {
        final int subtask;
        final int number;
        final SimOutput output;

        /** Splits handed to this attempt (restored or assigned), as they were then. */
        final List<SpannerSplit> handed = new ArrayList<>();

        Attempt(int subtask, int number, SimOutput output) {
            this.subtask = subtask;
            this.number = number;
            this.output = output;
        }

        @Override
        public String toString() {
            return "subtask " + subtask + " attempt " + number;
        }
    }

    /** One subtask: its current reader attempt and its two event channels. */
    final class Slot {
        final int subtask;
        int attempt = -1;
        Attempt current;
        SourceReader<ChangeEvent, SpannerSplit> reader;
        SimReaderContext readerContext;
        SimOutput output;
        boolean running;
        boolean finished;
        InputStatus last;
        final Deque<ToReader> inbox = new ArrayDeque<>();
        final List<ToReader> held = new ArrayList<>();
        long gateClosedFor = NO_CHECKPOINT;
        final Deque<ToEnumerator> outbox = new ArrayDeque<>();
        int elementsInAttempt;
        long queriesAtLastElement;
        final List<AnywhereProbe.Element> justEmitted = new ArrayList<>();

        /** Splits assigned while the reader read them ahead: their first element is a hand-off. */
        final Set<String> readAhead = new java.util.HashSet<>();

        Slot(int subtask) {
            this.subtask = subtask;
        }

        long partitionQueries() {
            Counter c = readerContext == null ? null : readerContext.counter("numPartitionQueries");
            return c == null ? 0 : c.getCount();
        }

        @Override
        public String toString() {
            return "subtask " + subtask + " attempt " + attempt;
        }
    }

    private Job(Scenario scenario, int parallelism, long seed, String name) {
        this.scenario = scenario;
        this.source = scenario.source();
        this.splitSerializer = source.getSplitSerializer();
        this.stateSerializer = source.getEnumeratorCheckpointSerializer();
        this.parallelism = parallelism;
        this.random = new Random(seed);
        this.name = name;
        this.slots = new Slot[parallelism];
        for (int i = 0; i < parallelism; i++) {
            slots[i] = new Slot(i);
        }
        this.checkpointEvery = 8 + random.nextInt(40);
    }

    /** A new job: a fresh enumerator and readers without state. */
    static Job fresh(Scenario scenario, int parallelism, long seed, String name) {
        Job job = new Job(scenario, parallelism, seed, name);
        job.context = new SimEnumeratorContext(job, parallelism);
        job.enumerator = job.guard(() -> scenario.source().createEnumerator(job.context));
        job.applyHolds(scenario.holdsFromStart());
        job.enumerator.start();
        for (Slot s : job.slots) {
            job.startAttempt(s, List.of());
        }
        return job;
    }

    /**
     * A global failover to {@code checkpoint}: a new enumerator restored from its state and new
     * readers with its splits, each subtask's own at the same parallelism; at another parallelism
     * the splits of all readers are concatenated and handed out as Flink's {@code
     * RoundRobinOperatorStateRepartitioner} does with a source reader's split list state
     * (contiguous runs, the first ones one longer).
     */
    Job restoreGlobally(Checkpoint checkpoint, int newParallelism, long seed) {
        close();
        Job job = new Job(scenario, newParallelism, seed, name + " restored at " + newParallelism);
        job.context = new SimEnumeratorContext(job, newParallelism);
        ChangeStreamEnumeratorState state =
                deserialize(stateSerializer, checkpoint.enumeratorState);
        job.enumerator = job.guard(() -> scenario.source().restoreEnumerator(job.context, state));
        job.applyHolds(scenario.holdsAfterFailover());
        job.enumerator.start();
        if (newParallelism == parallelism) {
            // Flink keeps each subtask's operator state where it was.
            for (int i = 0; i < newParallelism; i++) {
                List<SpannerSplit> splits = new ArrayList<>();
                for (byte[] b : checkpoint.readerState.getOrDefault(i, List.of())) {
                    splits.add(deserialize(splitSerializer, b));
                }
                job.startAttempt(job.slots[i], splits);
            }
            return job;
        }
        List<byte[]> all = new ArrayList<>();
        for (int i = 0; i < parallelism; i++) {
            all.addAll(checkpoint.readerState.getOrDefault(i, List.of()));
        }
        int base = all.size() / newParallelism;
        int remainder = all.size() % newParallelism;
        int next = 0;
        for (int i = 0; i < newParallelism; i++) {
            int n = base + (i < remainder ? 1 : 0);
            List<SpannerSplit> splits = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                splits.add(deserialize(splitSerializer, all.get(next++)));
            }
            job.startAttempt(job.slots[i], splits);
        }
        return job;
    }

    /**
     * A region failover of {@code subtasks} to {@code checkpoint} ({@link #NO_CHECKPOINT}: none
     * completed): their readers fail (events to and from them in flight are lost), Flink tells the
     * enumerator ({@code subtaskReset}: {@code addSplitsBack} with what they were assigned since),
     * and new readers start with the splits of that checkpoint. The enumerator goes on; so do the
     * other readers, with steps in between as the restart takes time.
     */
    void failover(Collection<Integer> subtasks, Checkpoint checkpoint) {
        long restoredId = checkpoint == null ? NO_CHECKPOINT : checkpoint.id;
        note("failover of subtasks " + subtasks + " to checkpoint " + restoredId);
        if (inProgress != null) {
            abortCheckpoint(subtasks);
        }
        for (int s : subtasks) {
            Slot slot = slots[s];
            closeReader(slot);
            slot.inbox.clear();
            slot.held.clear();
            slot.gateClosedFor = NO_CHECKPOINT;
            slot.outbox.clear();
            context.unregister(s);
        }
        applyHolds(scenario.holdsAfterFailover());
        runSteps(random.nextInt(4));
        for (int s : subtasks) {
            List<SpannerSplit> back = context.takeAssignedSince(s, restoredId);
            note("addSplitsBack(" + describe(back) + ", " + s + ")");
            guard(() -> enumerator.addSplitsBack(back, s));
        }
        runSteps(random.nextInt(4));
        for (int s : subtasks) {
            List<SpannerSplit> restored = new ArrayList<>();
            if (checkpoint != null && !checkpoint.finished.contains(s)) {
                for (byte[] b : checkpoint.readerState.getOrDefault(s, List.of())) {
                    restored.add(deserialize(splitSerializer, b));
                }
            }
            startAttempt(slots[s], restored);
        }
    }

    // ---------------------------------------------------------------- readers

    /**
     * A reader attempt as {@code SourceOperator.open()} starts it: restored splits added, the
     * reader registered with the coordinator (an event behind the ones {@code addSplits} sends),
     * then {@code start()}.
     */
    private void startAttempt(Slot slot, List<SpannerSplit> restored) {
        slot.attempt = slot.attempt + 1;
        slot.readerContext = new SimReaderContext(this, slot.subtask, slot.attempt, parallelism);
        slot.reader = guard(() -> source.createReader(slot.readerContext));
        AnywhereProbe.install(slot.reader, slot.justEmitted::add);
        slot.output = new SimOutput(this, slot.subtask, slot.attempt);
        slot.current = new Attempt(slot.subtask, slot.attempt, slot.output);
        slot.running = true;
        slot.finished = false;
        slot.last = null;
        slot.elementsInAttempt = 0;
        slot.queriesAtLastElement = 0;
        slot.readAhead.clear();
        attempts.add(slot.current);
        note(
                "subtask "
                        + slot.subtask
                        + " attempt "
                        + slot.attempt
                        + " starts with "
                        + describe(restored));
        if (!restored.isEmpty()) {
            restored.forEach(s -> slot.output.createOutputForSplit(s.splitId()));
            slot.current.handed.addAll(restored);
            slot.reader.addSplits(restored);
        }
        slot.outbox.add(new ToEnumerator(slot.attempt, true, null));
        slot.reader.start();
        activity();
    }

    private void closeReader(Slot slot) {
        if (slot.reader != null && slot.running) {
            try {
                slot.reader.close();
            } catch (Exception e) {
                note("closing " + slot + " failed: " + e);
            }
        }
        slot.running = false;
    }

    /**
     * Polls one reader once: {@code SourceReaderBase} emits at most one fetched element per call.
     * Then the output's periodic watermark emit, which may come between any two polls.
     */
    private void poll(Slot slot) {
        InputStatus status;
        try {
            status = slot.reader.pollNext(slot.output);
        } catch (Exception e) {
            throw new JobFailure(slot + " failed in pollNext", e);
        }
        slot.last = status;
        slot.output.periodicEmit();
        List<AnywhereProbe.Element> emitted = new ArrayList<>(slot.justEmitted);
        slot.justEmitted.clear();
        if (emitted.size() > 1) {
            throw new JobFailure(
                    slot + " emitted " + emitted.size() + " elements in one poll", null);
        }
        for (AnywhereProbe.Element e : emitted) {
            AnywhereProbe.Kind kind =
                    slot.readAhead.remove(e.split())
                            ? AnywhereProbe.Kind.READ_AHEAD_HANDOFF
                            : e.kind();
            Element element =
                    new Element(
                            elements.size() + 1,
                            slot.subtask,
                            slot.attempt,
                            ++slot.elementsInAttempt,
                            kind,
                            e);
            elements.add(element);
            note(element.toString());
            slot.queriesAtLastElement = slot.partitionQueries();
            progress();
            elementsSinceCheckpoint++;
            for (ElementListener l : new ArrayList<>(listeners)) {
                l.emitted(element);
            }
        }
        if (status == InputStatus.END_OF_INPUT) {
            note(slot + " reached the end of its input");
            if (inProgress != null && inProgress.pending.contains(slot.subtask)) {
                if (inProgress.frozen) {
                    inProgress.pending.remove(slot.subtask); // aborted by the failure anyway
                } else {
                    snapshotReader(slot.subtask); // a finished task still takes part in it
                }
            }
            slot.finished = true;
            slot.running = false;
            progress();
            try {
                slot.reader.close();
            } catch (Exception e) {
                throw new JobFailure(slot + " failed to close", e);
            }
        }
    }

    private boolean canPoll(Slot slot) {
        return slot.running
                && (slot.last == InputStatus.MORE_AVAILABLE || slot.reader.isAvailable().isDone());
    }

    // ---------------------------------------------------------------- events

    /** The enumerator sends to a reader: through the gateway, held while a checkpoint closed it. */
    void toReader(int subtask, ToReader message) {
        Slot slot = slots[subtask];
        if (slot.finished) {
            throw new JobFailure(
                    "The enumerator sent "
                            + (message.type() == ToReader.Type.SPLITS
                                    ? "splits " + describeSerialized(message.splits())
                                    : message.type().toString())
                            + " to subtask "
                            + subtask
                            + ", which had reached the end of its input after no more splits:"
                            + " Flink cannot deliver it (the task has finished), so the splits are"
                            + " never read and the job never finishes",
                    null);
        }
        if (slot.gateClosedFor != NO_CHECKPOINT) {
            slot.held.add(message);
        } else {
            slot.inbox.add(message);
        }
        activity();
    }

    /** A reader sends to the coordinator. */
    void toEnumerator(int subtask, int attempt, SourceEvent event) {
        slots[subtask].outbox.add(new ToEnumerator(attempt, false, javaSerialize(event)));
        activity();
    }

    void noteAssignment(Map<Integer, List<SpannerSplit>> assignment) {
        assignment.forEach((s, splits) -> note("assign " + describe(splits) + " to subtask " + s));
    }

    private void deliverToEnumerator(Slot slot) {
        ToEnumerator m = slot.outbox.poll();
        if (m.attempt() != slot.attempt) {
            return; // from an attempt that failed: Flink drops it
        }
        if (m.registration()) {
            context.register(slot.subtask);
            guard(() -> enumerator.addReader(slot.subtask));
        } else {
            SourceEvent event = (SourceEvent) javaDeserialize(m.event());
            if (event instanceof ReaderReportsEvent r && r.reports() != null) {
                for (PartitionReport report : r.reports()) {
                    if (report instanceof PartitionReport.Finished f) {
                        finishedReports.add(
                                new FinishedReport(
                                        slot.subtask, slot.attempt, f.token(), f.endMicros()));
                    }
                }
            }
            if (DEBUG_EVENTS
                    && !(event instanceof io.spannercs.flink.source.event.ReaderReportsEvent r
                            && r.resumed() == null
                            && r.reports().isEmpty())) {
                note("from " + slot + ": " + debug(event));
            }
            guard(() -> enumerator.handleSourceEvent(slot.subtask, event));
        }
    }

    /** With {@code -Dspannercs.anywhere.events=true} the log of a job holds its source events. */
    static final boolean DEBUG_EVENTS = Boolean.getBoolean("spannercs.anywhere.events");

    private static String debug(Object event) {
        if (event instanceof io.spannercs.flink.source.event.ReaderReportsEvent r) {
            return "reports "
                    + r.reports()
                    + " resumed "
                    + (r.resumed() == null ? null : r.resumed().splits())
                    + " progress "
                    + r.progressMicros();
        }
        if (event instanceof io.spannercs.flink.source.event.EnumeratorEventsEvent b) {
            return "batch " + b.events();
        }
        return String.valueOf(event);
    }

    private void deliverToReader(Slot slot) {
        ToReader m = slot.inbox.poll();
        switch (m.type()) {
            case SPLITS:
                List<SpannerSplit> splits = new ArrayList<>();
                for (byte[] b : m.splits()) {
                    splits.add(deserialize(splitSerializer, b));
                }
                splits.forEach(s -> slot.output.createOutputForSplit(s.splitId()));
                slot.current.handed.addAll(splits);
                Set<String> ahead = AnywhereProbe.readAheadTokens(slot.reader);
                splits.stream()
                        .map(SpannerSplit::splitId)
                        .filter(ahead::contains)
                        .forEach(slot.readAhead::add);
                slot.reader.addSplits(splits);
                break;
            case EVENT:
                SourceEvent ev = (SourceEvent) javaDeserialize(m.event());
                if (DEBUG_EVENTS) {
                    note("to " + slot + ": " + debug(ev));
                }
                slot.reader.handleSourceEvents(ev);
                break;
            case NO_MORE_SPLITS:
            default:
                slot.reader.notifyNoMoreSplits();
                break;
        }
    }

    // ---------------------------------------------------------------- checkpoints

    /**
     * Flink's checkpoint, coordinator first: the assignment tracker and the enumerator snapshot,
     * then every gateway closes (what the enumerator sends from now on waits until that reader has
     * taken its snapshot). Events sent before reach the readers before their snapshots.
     */
    Checkpoint triggerCheckpoint() {
        if (inProgress != null) {
            throw new IllegalStateException("checkpoint " + inProgress.id + " is in progress");
        }
        Checkpoint cp = new Checkpoint(nextCheckpointId++);
        context.snapshotAssignments(cp.id);
        cp.enumeratorState =
                serialize(stateSerializer, guard(() -> enumerator.snapshotState(cp.id)));
        for (Slot s : slots) {
            if (s.finished || !s.running) {
                cp.finished.add(s.subtask);
            } else {
                cp.pending.add(s.subtask);
                s.gateClosedFor = cp.id;
            }
        }
        inProgress = cp;
        elementsSinceCheckpoint = 0;
        activitySinceCheckpoint = false;
        note("checkpoint " + cp.id + ": coordinator");
        if (cp.pending.isEmpty()) {
            complete(cp);
        }
        return cp;
    }

    /** The reader of {@code subtask} takes its snapshot of the checkpoint in progress. */
    void snapshotReader(int subtask) {
        Checkpoint cp = inProgress;
        Slot slot = slots[subtask];
        while (!slot.inbox.isEmpty()) {
            deliverToReader(slot); // sent before the coordinator's snapshot: they come first
        }
        List<SpannerSplit> splits;
        try {
            splits = slot.reader.snapshotState(cp.id);
        } catch (RuntimeException e) {
            throw new JobFailure(slot + " failed to snapshot checkpoint " + cp.id, e);
        }
        cp.readerState.put(subtask, splits.stream().map(this::serializeSplit).toList());
        cp.emissionCut.put(subtask, slot.output.emissions().size());
        cp.pending.remove(subtask);
        slot.inbox.addAll(slot.held);
        slot.held.clear();
        slot.gateClosedFor = NO_CHECKPOINT;
        note("checkpoint " + cp.id + ": " + slot + " " + describe(splits));
        if (cp.pending.isEmpty()) {
            complete(cp);
        }
    }

    private void complete(Checkpoint cp) {
        cp.completed = true;
        inProgress = null;
        context.checkpointComplete(cp.id);
        guard(() -> enumerator.notifyCheckpointComplete(cp.id));
        for (Slot s : slots) {
            if (s.running) {
                try {
                    s.reader.notifyCheckpointComplete(cp.id);
                } catch (Exception e) {
                    throw new JobFailure(s + " failed on checkpoint completion", e);
                }
            }
        }
        note("checkpoint " + cp.id + " complete");
    }

    /** Finishes the checkpoint in progress: every reader that has not takes its snapshot now. */
    void completeCheckpointInProgress() {
        while (inProgress != null) {
            snapshotReader(inProgress.pending.iterator().next());
        }
    }

    /** A failure aborts the checkpoint in progress; live readers' gateways open again. */
    private void abortCheckpoint(Collection<Integer> failing) {
        Checkpoint cp = inProgress;
        inProgress = null;
        for (Slot s : slots) {
            if (!failing.contains(s.subtask) && s.gateClosedFor == cp.id) {
                s.inbox.addAll(s.held);
                s.held.clear();
                s.gateClosedFor = NO_CHECKPOINT;
            }
        }
        guard(() -> enumerator.notifyCheckpointAborted(cp.id));
        note("checkpoint " + cp.id + " aborted");
    }

    Checkpoint inProgress() {
        return inProgress;
    }

    // ---------------------------------------------------------------- driving

    /**
     * Does one thing, chosen by the seeded random among what can be done now: poll a reader that
     * has something, deliver the next event of one channel (each channel keeps its order; the
     * channels interleave freely), run the coordinator's queued work, or let a reader take its
     * snapshot of the checkpoint in progress.
     *
     * @return false if nothing could be done
     */
    boolean step() {
        steps++;
        evaluateHolds();
        List<Runnable> options = new ArrayList<>();
        for (Slot s : slots) {
            if (canPoll(s)) {
                for (int w = 0; w < 3; w++) {
                    options.add(() -> poll(s));
                }
            }
            if (!s.outbox.isEmpty()) {
                options.add(() -> deliverToEnumerator(s));
                options.add(() -> deliverToEnumerator(s));
            }
            if (s.running && !s.inbox.isEmpty()) {
                options.add(() -> deliverToReader(s));
                options.add(() -> deliverToReader(s));
            }
            if (inProgress != null
                    && !inProgress.frozen
                    && inProgress.pending.contains(s.subtask)) {
                options.add(() -> snapshotReader(s.subtask));
            }
        }
        if (context.hasWork()) {
            options.add(() -> guard(context::runOne));
        }
        if (options.isEmpty()) {
            return false;
        }
        options.get(random.nextInt(options.size())).run();
        if (steps % 200 == 0) {
            periodicDue = true;
        }
        return true;
    }

    /** Runs up to {@code n} steps (fewer if the job is idle). */
    void runSteps(int n) {
        for (int i = 0; i < n && step(); i++) {
            // nothing else
        }
    }

    /**
     * Runs until {@code done}; fails with a description of what is stuck if it cannot get there.
     */
    void runUntil(BooleanSupplier done) {
        runUntil(done, false);
    }

    /**
     * Runs until {@code done}, or, with {@code orIdle}, until the job has had nothing to do for a
     * few waits in a row (it may need a checkpoint to go on, and none is taken now).
     */
    void runUntil(BooleanSupplier done, boolean orIdle) {
        int idleWaits = 0;
        while (!done.getAsBoolean()) {
            if (backgroundCheckpoints
                    && inProgress == null
                    && elementsSinceCheckpoint >= checkpointEvery) {
                triggerCheckpoint(); // one with events and elements in flight
            }
            if (step()) {
                idleWaits = 0;
                if (steps % 1000 == 0) {
                    checkStuck(); // busy without an element is stuck too (a livelock)
                }
                continue;
            }
            if (allFinished()) {
                return; // nothing more will happen
            }
            if (periodicDue) {
                periodicDue = false;
                guard(context::runPeriodic);
                continue;
            }
            if (backgroundCheckpoints && inProgress == null && activitySinceCheckpoint) {
                triggerCheckpoint();
                continue;
            }
            if (orIdle && ++idleWaits > 3) {
                return;
            }
            awaitSomething();
        }
    }

    /** Runs until every reader has reached the end of its input. */
    void runToEnd() {
        runUntil(this::allFinished);
    }

    boolean allFinished() {
        for (Slot s : slots) {
            if (!s.finished) {
                return false;
            }
        }
        return true;
    }

    private void awaitSomething() {
        List<CompletableFuture<?>> futures = new ArrayList<>();
        for (Slot s : slots) {
            if (s.running) {
                futures.add(s.reader.isAvailable());
            }
        }
        try {
            CompletableFuture.anyOf(futures.toArray(new CompletableFuture<?>[0]))
                    .get(10, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            // checked again below
        } catch (Exception e) {
            throw new JobFailure("waiting for the readers failed", e);
        }
        periodicDue = true; // the enumerator's timer goes on while the job waits
        checkStuck();
    }

    private void checkStuck() {
        long idle = System.nanoTime() - lastProgressNanos;
        String why = null;
        if (idle > STUCK_NANOS) {
            why = "no element for " + TimeUnit.NANOSECONDS.toSeconds(idle) + " s";
        }
        for (Slot s : slots) {
            long queries = s.partitionQueries() - s.queriesAtLastElement;
            if (s.running && queries > STUCK_QUERIES) {
                why =
                        s
                                + " started "
                                + queries
                                + " partition queries since its last element (a query restarting"
                                + " forever?)";
            }
        }
        if (why != null) {
            throw new Stuck("The job cannot finish: " + why + "\n" + describe());
        }
    }

    private void progress() {
        lastProgressNanos = System.nanoTime();
        activity();
    }

    private void activity() {
        activitySinceCheckpoint = true;
    }

    // ---------------------------------------------------------------- holds

    /**
     * Puts these lags in place of the current ones; a lag that goes on (the same partition held
     * again) is never released in between, so not a row slips through.
     */
    private void applyHolds(List<Hold> toApply) {
        for (Hold h : toApply) {
            h.apply(scenario, this);
            note("hold " + h);
        }
        for (Hold old : holds) {
            boolean again = toApply.stream().anyMatch(h -> h.toString().equals(old.toString()));
            if (again) {
                old.forget();
            } else {
                old.release(scenario);
            }
        }
        holds.clear();
        holds.addAll(toApply);
    }

    private void evaluateHolds() {
        for (Hold h : holds) {
            if (h.active() && h.releasable(this)) {
                note("release " + h);
                h.release(scenario);
            }
        }
    }

    List<Hold> holds() {
        return holds;
    }

    // ---------------------------------------------------------------- views for holds and checks

    List<Element> elements() {
        return elements;
    }

    /** Every partition end a reader reported to the enumerator. */
    List<FinishedReport> finishedReports() {
        return finishedReports;
    }

    void addListener(ElementListener l) {
        listeners.add(l);
    }

    Slot[] slots() {
        return slots;
    }

    List<Attempt> attempts() {
        return attempts;
    }

    /** Every record every reader of this job emitted, in emission order. */
    List<SimOutput.Emission> emissions() {
        return emissions;
    }

    void emitted(SimOutput.Emission e) {
        emissions.add(e);
    }

    int parallelism() {
        return parallelism;
    }

    Random random() {
        return random;
    }

    /** The split states of every running reader. */
    Map<String, AnywhereProbe.SplitView> liveSplits() {
        Map<String, AnywhereProbe.SplitView> out = new LinkedHashMap<>();
        for (Slot s : slots) {
            if (s.running) {
                out.putAll(AnywhereProbe.splits(s.reader));
            }
        }
        return out;
    }

    /**
     * Whether the partition finished in what stays emitted: the enumerator knows it finished, and
     * every reader runs (or ran to its end) and has told the enumerator everything it sent (a
     * reader restarted from a checkpoint says where its partitions resume, which may undo an end
     * the enumerator learned before the failover).
     */
    boolean settledFinished(String token) {
        if (!allStarted()) {
            return false;
        }
        for (Slot s : slots) {
            if (!s.outbox.isEmpty()) {
                return false;
            }
        }
        return AnywhereEnumeratorProbe.finished(enumerator, token);
    }

    /** Whether no event is on its way anywhere and the coordinator has nothing queued. */
    boolean quiet() {
        if (context.hasWork() || inProgress != null) {
            return false;
        }
        for (Slot s : slots) {
            if (!s.inbox.isEmpty() || !s.held.isEmpty() || !s.outbox.isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** Whether every subtask has a running reader or has finished (no failover half done). */
    boolean allStarted() {
        for (Slot s : slots) {
            if (!s.running && !s.finished) {
                return false;
            }
        }
        return true;
    }

    long nextSeq() {
        return ++seq;
    }

    void note(String line) {
        log.add(line);
        if (log.size() > 400) {
            log.remove(0);
        }
    }

    /** What the job is doing now, for a failure message. */
    String describe() {
        return describe(25);
    }

    /** The same, with the last {@code steps} steps. */
    String describe(int steps) {
        StringBuilder out = new StringBuilder("  job ").append(name).append(":");
        for (Slot s : slots) {
            out.append("\n    ")
                    .append(s)
                    .append(s.finished ? " finished" : s.running ? " running" : " down")
                    .append(", last poll ")
                    .append(s.last)
                    .append(", ")
                    .append(s.elementsInAttempt)
                    .append(" elements, ")
                    .append(s.partitionQueries())
                    .append(" partition queries, watermark ")
                    .append(s.output == null ? "none" : s.output.downstream())
                    .append(", inbox ")
                    .append(s.inbox.size())
                    .append(", held ")
                    .append(s.held.size())
                    .append(", outbox ")
                    .append(s.outbox.size());
            if (s.running) {
                AnywhereProbe.splits(s.reader)
                        .values()
                        .forEach(v -> out.append("\n      split ").append(Scenario.describe(v)));
            }
        }
        out.append("\n    enumerator: ").append(AnywhereEnumeratorProbe.describe(enumerator));
        for (Hold h : holds) {
            out.append("\n    ").append(h.active() ? "active " : "released ").append(h);
        }
        out.append("\n    last elements:");
        elements.subList(Math.max(0, elements.size() - 12), elements.size())
                .forEach(e -> out.append("\n      ").append(e));
        out.append("\n    last steps:");
        log.subList(Math.max(0, log.size() - steps), log.size())
                .forEach(l -> out.append("\n      ").append(l));
        return out.toString();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Slot s : slots) {
            closeReader(s);
        }
        for (Hold h : holds) {
            h.release(scenario);
        }
        try {
            enumerator.close();
        } catch (Exception e) {
            note("closing the enumerator failed: " + e);
        }
    }

    // ---------------------------------------------------------------- failures

    /** The job failed as Flink would fail it (an exception in the enumerator or a reader). */
    static final class JobFailure extends RuntimeException {
        JobFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The job cannot finish. */
    static final class Stuck extends RuntimeException {
        Stuck(String message) {
            super(message);
        }
    }

    private interface ThrowingSupplier<T> {
        T get() throws Exception;
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    private <T> T guard(ThrowingSupplier<T> s) {
        try {
            return s.get();
        } catch (JobFailure | Stuck e) {
            throw e;
        } catch (Exception e) {
            throw new JobFailure("The enumerator failed (Flink fails the job)", e);
        }
    }

    private void guard(ThrowingRunnable r) {
        guard(
                () -> {
                    r.run();
                    return null;
                });
    }

    // ---------------------------------------------------------------- serialization

    static byte[] javaSerialize(Object o) {
        try (ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(o);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot serialize " + o, e);
        }
    }

    static Object javaDeserialize(byte[] b) {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(b))) {
            return in.readObject();
        } catch (IOException | ClassNotFoundException e) {
            throw new JobFailure("Cannot deserialize an operator event", e);
        }
    }

    private byte[] serializeSplit(SpannerSplit split) {
        return serialize(splitSerializer, split);
    }

    /**
     * Splits as Flink's {@code AddSplitEvent} carries them: each in the split serializer's form.
     */
    ToReader splitsMessage(List<SpannerSplit> splits) {
        return new ToReader(
                ToReader.Type.SPLITS, splits.stream().map(this::serializeSplit).toList(), null);
    }

    static <T> byte[] serialize(SimpleVersionedSerializer<T> serializer, T value) {
        try {
            return SimpleVersionedSerialization.writeVersionAndSerialize(serializer, value);
        } catch (IOException e) {
            throw new JobFailure("Cannot serialize " + value, e);
        }
    }

    static <T> T deserialize(SimpleVersionedSerializer<T> serializer, byte[] bytes) {
        try {
            return SimpleVersionedSerialization.readVersionAndDeSerialize(serializer, bytes);
        } catch (IOException e) {
            throw new JobFailure("Cannot deserialize", e);
        }
    }

    private String describeSerialized(List<byte[]> splits) {
        List<SpannerSplit> out = new ArrayList<>();
        splits.forEach(b -> out.add(deserialize(splitSerializer, b)));
        return describe(out);
    }

    static String describe(List<? extends SpannerSplit> splits) {
        List<String> out = new ArrayList<>();
        for (SpannerSplit s : splits) {
            if (s instanceof PartitionSplit p) {
                out.add(
                        Scenario.shortToken(p.token())
                                + "@"
                                + p.position()
                                + (p.barrierMicros() == PartitionSplit.NO_BARRIER
                                        ? ""
                                        : " barrier " + p.barrierMicros())
                                + (p.finished() ? " finished" : "")
                                + (p.pendingReports().isEmpty()
                                        ? ""
                                        : " " + p.pendingReports().size() + " reports"));
            } else {
                SnapshotSplit sn = (SnapshotSplit) s;
                out.add("snapshot " + sn.splitId() + (sn.finished() ? " finished" : ""));
            }
        }
        return out.toString();
    }
}
