package io.spannercs.flink.source.anywhere;

import io.spannercs.flink.source.split.SpannerSplit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;

/**
 * The enumerator's context as Flink's {@code SourceCoordinatorContext} behaves, driven by one
 * thread (the test's driver, which is the coordinator thread here):
 *
 * <ul>
 *   <li>{@code callAsync} and {@code runInCoordinatorThread} queue work that runs when the driver
 *       pumps it; periodic callables run when the driver pumps them (it does when the job is idle
 *       and now and then);
 *   <li>assignments and events go to readers through the driver's per-subtask queues (and the
 *       gateways a checkpoint closes), and may only go to registered readers, as Flink checks;
 *   <li>assignments are tracked like {@code SplitAssignmentTracker}: those since the last
 *       coordinator checkpoint, and those of each checkpoint until it completes, are what {@code
 *       addSplitsBack} gets when a subtask is reset to an earlier checkpoint.
 * </ul>
 */
final class SimEnumeratorContext implements SplitEnumeratorContext<SpannerSplit> {
    private final Job job;
    private final int parallelism;
    private final Map<Integer, ReaderInfo> registered = new TreeMap<>();
    private final SplitEnumeratorMetricGroup metrics =
            UnregisteredMetricsGroup.createSplitEnumeratorMetricGroup();
    private final Deque<Runnable> work = new ArrayDeque<>();
    private final List<Runnable> periodic = new ArrayList<>();

    // SplitAssignmentTracker: [checkpoint -> [subtask -> splits]] and the uncheckpointed ones.
    private final SortedMap<Long, Map<Integer, LinkedHashSet<SpannerSplit>>> byCheckpoint =
            new TreeMap<>();
    private Map<Integer, LinkedHashSet<SpannerSplit>> uncheckpointed = new LinkedHashMap<>();

    SimEnumeratorContext(Job job, int parallelism) {
        this.job = job;
        this.parallelism = parallelism;
    }

    @Override
    public SplitEnumeratorMetricGroup metricGroup() {
        return metrics;
    }

    @Override
    public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
        requireRegistered(subtaskId, "send " + event + " to");
        job.toReader(subtaskId, Job.ToReader.event(event));
    }

    @Override
    public int currentParallelism() {
        return parallelism;
    }

    @Override
    public Map<Integer, ReaderInfo> registeredReaders() {
        return Collections.unmodifiableMap(registered);
    }

    @Override
    public void assignSplits(SplitsAssignment<SpannerSplit> assignment) {
        for (Integer subtask : assignment.assignment().keySet()) {
            requireRegistered(
                    subtask, "assign splits " + assignment.assignment().get(subtask) + " to");
        }
        assignment
                .assignment()
                .forEach(
                        (subtask, splits) -> {
                            uncheckpointed
                                    .computeIfAbsent(subtask, s -> new LinkedHashSet<>())
                                    .addAll(splits);
                            job.toReader(subtask, job.splitsMessage(splits));
                        });
        job.noteAssignment(assignment.assignment());
    }

    @Override
    public void signalNoMoreSplits(int subtask) {
        requireRegistered(subtask, "signal no more splits to");
        job.toReader(subtask, Job.ToReader.noMoreSplits());
    }

    @Override
    public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {
        work.add(() -> call(callable, handler));
    }

    @Override
    public <T> void callAsync(
            Callable<T> callable,
            BiConsumer<T, Throwable> handler,
            long initialDelay,
            long period) {
        periodic.add(() -> call(callable, handler));
    }

    private static <T> void call(Callable<T> callable, BiConsumer<T, Throwable> handler) {
        T result = null;
        Throwable error = null;
        try {
            result = callable.call();
        } catch (Throwable t) {
            error = t;
        }
        handler.accept(result, error);
    }

    @Override
    public void runInCoordinatorThread(Runnable runnable) {
        work.add(runnable);
    }

    private void requireRegistered(int subtask, String what) {
        if (!registered.containsKey(subtask)) {
            throw new IllegalStateException(
                    "The enumerator tried to "
                            + what
                            + " subtask "
                            + subtask
                            + ", which is not registered (Flink fails the job)");
        }
    }

    // ---------------------------------------------------------------- driver side

    boolean hasWork() {
        return !work.isEmpty();
    }

    /** Runs one piece of queued work (an async result, a coordinator-thread runnable). */
    void runOne() {
        work.poll().run();
    }

    /** Runs every periodic callable once. */
    void runPeriodic() {
        new ArrayList<>(periodic).forEach(Runnable::run);
    }

    void register(int subtask) {
        ReaderInfo previous = registered.put(subtask, new ReaderInfo(subtask, "localhost"));
        if (previous != null) {
            throw new IllegalStateException("Subtask " + subtask + " registered twice");
        }
    }

    void unregister(int subtask) {
        registered.remove(subtask);
    }

    boolean isRegistered(int subtask) {
        return registered.containsKey(subtask);
    }

    /** The coordinator's checkpoint: the assignments so far belong to it. */
    void snapshotAssignments(long checkpointId) {
        byCheckpoint.put(checkpointId, uncheckpointed);
        uncheckpointed = new LinkedHashMap<>();
    }

    void checkpointComplete(long checkpointId) {
        byCheckpoint.entrySet().removeIf(e -> e.getKey() <= checkpointId);
    }

    /**
     * {@code getAndRemoveUncheckpointedAssignment}: what the subtask was assigned after {@code
     * restoredCheckpointId} (every checkpoint taken after it, and since the last one).
     */
    List<SpannerSplit> takeAssignedSince(int subtask, long restoredCheckpointId) {
        List<SpannerSplit> out = new ArrayList<>();
        for (Map.Entry<Long, Map<Integer, LinkedHashSet<SpannerSplit>>> e :
                byCheckpoint.entrySet()) {
            if (e.getKey() > restoredCheckpointId) {
                LinkedHashSet<SpannerSplit> s = e.getValue().remove(subtask);
                if (s != null) {
                    out.addAll(s);
                }
            }
        }
        LinkedHashSet<SpannerSplit> s = uncheckpointed.remove(subtask);
        if (s != null) {
            out.addAll(s);
        }
        return out;
    }
}
