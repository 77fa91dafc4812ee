package io.spannercs.flink.source;

import io.spannercs.flink.source.enumerator.ChangeStreamEnumeratorState;
import io.spannercs.flink.source.event.ReaderReportsEvent;
import io.spannercs.flink.source.split.SpannerSplit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.core.io.InputStatus;

/**
 * A reader that fails inside a checkpoint's window: after the enumerator's part of checkpoint N and
 * before its own. The enumerator takes the reports it held since the checkpoint before just after
 * its part of N, so it answers them inside that window (acknowledgements at least). Flink holds
 * everything the enumerator sends a subtask from the enumerator's part of a checkpoint until the
 * subtask's part; a subtask that fails in between never takes its part. Under load this order
 * happens by chance (a task downstream fails while the source's checkpoint is on its way); here it
 * happens every time. For MiniCluster tests, one job at a time: the wrappers share static fields.
 */
final class ReaderFailsInsideCheckpoint
        implements WrappedEnumeratorSource.Wrapper, WrappedEnumeratorSource.ReaderWrapper {
    /** The checkpoint from which the reader fails (once), or none. */
    private static final AtomicLong failFrom = new AtomicLong(Long.MAX_VALUE);

    /** The checkpoint the reader failed in, or 0. */
    static final AtomicLong failedIn = new AtomicLong();

    /**
     * A checkpoint the reader took although it was to fail before it (the order was lost), or 0.
     */
    static final AtomicLong snapshotBeforeFailure = new AtomicLong();

    /** What the enumerator sent the reader inside the window: events, assignments, the end. */
    static final AtomicInteger sentInWindow = new AtomicInteger();

    /** Reports the enumerator took inside the window. */
    static final AtomicInteger reportsTakenInWindow = new AtomicInteger();

    /** Completed when the reader is to fail: wakes a reader that waits for records. */
    private static volatile CompletableFuture<Void> armed = new CompletableFuture<>();

    static void reset() {
        armed = new CompletableFuture<>();
        failFrom.set(Long.MAX_VALUE);
        failedIn.set(0);
        reportsTakenInWindow.set(0);
        sentInWindow.set(0);
        snapshotBeforeFailure.set(0);
    }

    static <T> WrappedEnumeratorSource<T> around(SpannerChangeStreamSource<T> source) {
        ReaderFailsInsideCheckpoint wrapper = new ReaderFailsInsideCheckpoint();
        return new WrappedEnumeratorSource<>(source, wrapper, wrapper);
    }

    @Override
    public SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> wrap(
            SplitEnumeratorContext<SpannerSplit> context, WrappedEnumeratorSource.Enumerators real)
            throws Exception {
        WindowWatchingContext watching = new WindowWatchingContext(context);
        return new HoldingEnumerator(real.create(watching), context, watching);
    }

    @Override
    public <T> SourceReader<T, SpannerSplit> wrap(SourceReader<T, SpannerSplit> real) {
        return new WrappedEnumeratorSource.ForwardingReader<>(real) {
            @Override
            public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
                long checkpoint = failFrom.get();
                if (armed.isDone() && failedIn.compareAndSet(0, checkpoint)) {
                    throw new IllegalStateException(
                            "Injected by the test: the reader fails inside checkpoint "
                                    + checkpoint);
                }
                return super.pollNext(output);
            }

            @Override
            public CompletableFuture<Void> isAvailable() {
                if (failedIn.get() != 0) {
                    return super.isAvailable();
                }
                return CompletableFuture.anyOf(super.isAvailable(), armed).thenApply(x -> null);
            }

            @Override
            public List<SpannerSplit> snapshotState(long checkpointId) {
                if (checkpointId >= failFrom.get() && failedIn.get() == 0) {
                    snapshotBeforeFailure.set(checkpointId);
                }
                return super.snapshotState(checkpointId);
            }
        };
    }

    /** Holds the readers' reports from its first checkpoint until one after that holds some. */
    private static final class HoldingEnumerator
            extends WrappedEnumeratorSource.ForwardingEnumerator {
        private final SplitEnumeratorContext<SpannerSplit> context;
        private final WindowWatchingContext watching;
        private final List<Held> held = new ArrayList<>();
        private int heldReports;
        private boolean holding;

        private record Held(int subtask, SourceEvent event) {}

        HoldingEnumerator(
                SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> enumerator,
                SplitEnumeratorContext<SpannerSplit> context,
                WindowWatchingContext watching) {
            super(enumerator);
            this.context = context;
            this.watching = watching;
        }

        @Override
        public void notifyCheckpointAborted(long checkpointId) throws Exception {
            endWindow(checkpointId); // Flink lets what it held go on an abort
            super.notifyCheckpointAborted(checkpointId);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            endWindow(checkpointId);
            super.notifyCheckpointComplete(checkpointId);
        }

        private void endWindow(long checkpointId) {
            if (checkpointId >= failFrom.get()) {
                watching.inWindow = false;
            }
        }

        @Override
        public void addReader(int subtaskId) {
            watching.inWindow = false; // the restarted reader: the window has gone with its task
            super.addReader(subtaskId);
        }

        @Override
        public void handleSourceEvent(int subtaskId, SourceEvent event) {
            if (holding && event instanceof ReaderReportsEvent reports) {
                held.add(new Held(subtaskId, event));
                heldReports += reports.reports().size();
                return;
            }
            enumerator.handleSourceEvent(subtaskId, event);
        }

        @Override
        public ChangeStreamEnumeratorState snapshotState(long checkpointId) throws Exception {
            ChangeStreamEnumeratorState state = enumerator.snapshotState(checkpointId);
            if (failFrom.get() != Long.MAX_VALUE) {
                return state; // fired already
            }
            if (!holding) {
                holding = true;
            } else if (heldReports > 0) {
                holding = false;
                failFrom.set(checkpointId);
                armed.complete(null);
                List<Held> events = new ArrayList<>(held);
                int reports = heldReports;
                held.clear();
                // After this checkpoint's coordinator part completes, as the next task of this
                // thread: Flink holds what the enumerator sends from then on.
                watching.inWindow = true;
                context.runInCoordinatorThread(
                        () -> {
                            reportsTakenInWindow.addAndGet(reports);
                            events.forEach(h -> enumerator.handleSourceEvent(h.subtask, h.event));
                        });
            }
            return state;
        }
    }

    /** Counts what the enumerator sends while the window is open (coordinator thread only). */
    private static final class WindowWatchingContext
            extends WrappedEnumeratorSource.ForwardingContext {
        boolean inWindow;

        WindowWatchingContext(SplitEnumeratorContext<SpannerSplit> context) {
            super(context);
        }

        @Override
        public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
            count();
            super.sendEventToSourceReader(subtaskId, event);
        }

        @Override
        public void assignSplits(SplitsAssignment<SpannerSplit> assignment) {
            count();
            super.assignSplits(assignment);
        }

        @Override
        public void signalNoMoreSplits(int subtask) {
            count();
            super.signalNoMoreSplits(subtask);
        }

        private void count() {
            if (inWindow) {
                sentInWindow.incrementAndGet();
            }
        }
    }
}
