package io.spannercs.flink.source;

import io.spannercs.flink.source.enumerator.ChangeStreamEnumeratorState;
import io.spannercs.flink.source.event.ReaderReportsEvent;
import io.spannercs.flink.source.split.PartitionReport;
import io.spannercs.flink.source.split.SpannerSplit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;

/**
 * An enumerator whose assignment of one partition reaches the reader only once another partition
 * has been read to its end: that reader has run far past the held partition's start, as a reader
 * does that gets a partition discovered late. The enumerator itself sees the assignment when it
 * makes it.
 */
final class PartitionAssignedLate implements WrappedEnumeratorSource.Wrapper {
    /** Whether the held partition has been assigned. */
    static final AtomicBoolean released = new AtomicBoolean();

    private final String token;

    private PartitionAssignedLate(String token) {
        this.token = token;
    }

    static <T> WrappedEnumeratorSource<T> around(
            SpannerChangeStreamSource<T> source, String token) {
        return new WrappedEnumeratorSource<>(source, new PartitionAssignedLate(token));
    }

    @Override
    public SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> wrap(
            SplitEnumeratorContext<SpannerSplit> context, WrappedEnumeratorSource.Enumerators real)
            throws Exception {
        HoldingContext holding = new HoldingContext(context, token);
        return new WrappedEnumeratorSource.ForwardingEnumerator(real.create(holding)) {
            @Override
            public void handleSourceEvent(int subtaskId, SourceEvent event) {
                enumerator.handleSourceEvent(subtaskId, event);
                if (event instanceof ReaderReportsEvent r
                        && r.reports() != null
                        && r.reports().stream()
                                .anyMatch(
                                        p ->
                                                p instanceof PartitionReport.Finished f
                                                        && !f.token().equals(token))) {
                    holding.release();
                }
            }
        };
    }

    /** Keeps the held partition's assignment, and the end of assignments, until released. */
    private static final class HoldingContext implements SplitEnumeratorContext<SpannerSplit> {
        private final SplitEnumeratorContext<SpannerSplit> context;
        private final String token;
        private final List<Integer> noMoreSplitsHeld = new ArrayList<>();
        private SplitsAssignment<SpannerSplit> held;
        private boolean done;

        HoldingContext(SplitEnumeratorContext<SpannerSplit> context, String token) {
            this.context = context;
            this.token = token;
        }

        void release() {
            if (done) {
                return;
            }
            done = true;
            if (held != null) {
                context.assignSplits(held);
                released.set(true);
            }
            noMoreSplitsHeld.forEach(context::signalNoMoreSplits);
        }

        @Override
        public void assignSplits(SplitsAssignment<SpannerSplit> assignment) {
            Map<Integer, List<SpannerSplit>> now = new HashMap<>();
            assignment
                    .assignment()
                    .forEach(
                            (reader, splits) -> {
                                for (SpannerSplit s : splits) {
                                    if (!done && s.splitId().equals(token)) {
                                        held = new SplitsAssignment<>(s, reader);
                                    } else {
                                        now.computeIfAbsent(reader, r -> new ArrayList<>()).add(s);
                                    }
                                }
                            });
            if (!now.isEmpty()) {
                context.assignSplits(new SplitsAssignment<>(now));
            }
        }

        @Override
        public void signalNoMoreSplits(int subtask) {
            if (done) {
                context.signalNoMoreSplits(subtask);
            } else {
                noMoreSplitsHeld.add(subtask);
            }
        }

        @Override
        public SplitEnumeratorMetricGroup metricGroup() {
            return context.metricGroup();
        }

        @Override
        public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
            context.sendEventToSourceReader(subtaskId, event);
        }

        @Override
        public void sendEventToSourceReader(int subtaskId, int attemptNumber, SourceEvent event) {
            context.sendEventToSourceReader(subtaskId, attemptNumber, event);
        }

        @Override
        public int currentParallelism() {
            return context.currentParallelism();
        }

        @Override
        public Map<Integer, ReaderInfo> registeredReaders() {
            return context.registeredReaders();
        }

        @Override
        public Map<Integer, Map<Integer, ReaderInfo>> registeredReadersOfAttempts() {
            return context.registeredReadersOfAttempts();
        }

        @Override
        public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {
            context.callAsync(callable, handler);
        }

        @Override
        public <T> void callAsync(
                Callable<T> callable,
                BiConsumer<T, Throwable> handler,
                long initialDelayMillis,
                long periodMillis) {
            context.callAsync(callable, handler, initialDelayMillis, periodMillis);
        }

        @Override
        public void runInCoordinatorThread(Runnable runnable) {
            context.runInCoordinatorThread(runnable);
        }

        @Override
        public void setIsProcessingBacklog(boolean isProcessingBacklog) {
            context.setIsProcessingBacklog(isProcessingBacklog);
        }
    }
}
