package io.spannercs.flink.source;

import io.spannercs.flink.source.enumerator.ChangeStreamEnumeratorState;
import io.spannercs.flink.source.event.ReaderFailingEvent;
import io.spannercs.flink.source.split.SpannerSplit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

/**
 * An enumerator that takes a failing reader's {@link ReaderFailingEvent} only after its next
 * checkpoint: Flink then holds the enumerator's answer until the reader's own part of that
 * checkpoint is done. Under load this order happens by chance; here it happens every time.
 */
final class FailingReaderAnsweredAfterCheckpoint implements WrappedEnumeratorSource.Wrapper {
    /** The checkpoint the last held event waited for, or 0. */
    static final AtomicLong answeredAfterCheckpoint = new AtomicLong();

    static <T> WrappedEnumeratorSource<T> around(SpannerChangeStreamSource<T> source) {
        return new WrappedEnumeratorSource<>(source, new FailingReaderAnsweredAfterCheckpoint());
    }

    @Override
    public SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> wrap(
            SplitEnumeratorContext<SpannerSplit> context, WrappedEnumeratorSource.Enumerators real)
            throws Exception {
        return new HoldingEnumerator(real.create(context), context);
    }

    private static final class HoldingEnumerator
            extends WrappedEnumeratorSource.ForwardingEnumerator {
        private final SplitEnumeratorContext<SpannerSplit> context;
        private int heldFrom = -1;
        private SourceEvent held;

        HoldingEnumerator(
                SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> enumerator,
                SplitEnumeratorContext<SpannerSplit> context) {
            super(enumerator);
            this.context = context;
        }

        @Override
        public void handleSourceEvent(int subtaskId, SourceEvent event) {
            if (event instanceof ReaderFailingEvent && held == null) {
                heldFrom = subtaskId;
                held = event;
                return;
            }
            enumerator.handleSourceEvent(subtaskId, event);
        }

        @Override
        public ChangeStreamEnumeratorState snapshotState(long checkpointId) throws Exception {
            ChangeStreamEnumeratorState state = enumerator.snapshotState(checkpointId);
            if (held != null) {
                SourceEvent event = held;
                int subtask = heldFrom;
                // After this checkpoint's coordinator part completes, as the next task of this
                // thread: Flink holds what the enumerator sends from then on.
                context.runInCoordinatorThread(
                        () -> {
                            answeredAfterCheckpoint.set(checkpointId);
                            enumerator.handleSourceEvent(subtask, event);
                        });
                held = null;
            }
            return state;
        }
    }
}
