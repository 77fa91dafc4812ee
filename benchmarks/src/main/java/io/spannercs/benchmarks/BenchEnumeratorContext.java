package io.spannercs.benchmarks;

import io.spannercs.flink.source.event.ReleaseBarrierEvent;
import io.spannercs.flink.source.split.SpannerSplit;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;

/**
 * A split enumerator context for driving the enumerator without a job: every reader is registered,
 * one-off async calls run at once on the calling thread (the benchmark is the coordinator thread),
 * periodic ones never run, and what the enumerator sends is counted rather than kept, except who
 * owns which partition.
 */
final class BenchEnumeratorContext implements SplitEnumeratorContext<SpannerSplit> {
    private final SplitEnumeratorMetricGroup metrics =
            UnregisteredMetricsGroup.createSplitEnumeratorMetricGroup();
    private final Map<Integer, ReaderInfo> readers = new LinkedHashMap<>();
    private final Map<String, Integer> owners = new HashMap<>();
    private final Map<Class<?>, Long> eventsSent = new HashMap<>();
    private long splitsAssigned;
    private long releases;

    BenchEnumeratorContext(int parallelism) {
        for (int i = 0; i < parallelism; i++) {
            readers.put(i, new ReaderInfo(i, "localhost"));
        }
    }

    /** The subtask a partition was last assigned to, or null. */
    Integer ownerOf(String token) {
        return owners.get(token);
    }

    long splitsAssigned() {
        return splitsAssigned;
    }

    long releases() {
        return releases;
    }

    long eventsSent(Class<?> type) {
        return eventsSent.getOrDefault(type, 0L);
    }

    @Override
    public SplitEnumeratorMetricGroup metricGroup() {
        return metrics;
    }

    @Override
    public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
        eventsSent.merge(event.getClass(), 1L, Long::sum);
        if (event instanceof ReleaseBarrierEvent) {
            releases++;
        }
    }

    @Override
    public int currentParallelism() {
        return readers.size();
    }

    @Override
    public Map<Integer, ReaderInfo> registeredReaders() {
        return readers;
    }

    @Override
    public void assignSplits(SplitsAssignment<SpannerSplit> assignment) {
        assignment
                .assignment()
                .forEach(
                        (reader, splits) -> {
                            for (SpannerSplit s : splits) {
                                owners.put(s.splitId(), reader);
                                splitsAssigned++;
                            }
                        });
    }

    @Override
    public void signalNoMoreSplits(int subtask) {}

    @Override
    public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {
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
    public <T> void callAsync(
            Callable<T> callable,
            BiConsumer<T, Throwable> handler,
            long initialDelayMillis,
            long periodMillis) {
        // The barrier timeout check: not part of what is measured.
    }

    @Override
    public void runInCoordinatorThread(Runnable runnable) {
        runnable.run();
    }
}
