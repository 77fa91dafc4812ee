package io.spannercs.flink.source;

import io.spannercs.flink.source.enumerator.ChangeStreamEnumeratorState;
import io.spannercs.flink.source.event.ReaderFailingEvent;
import io.spannercs.flink.source.split.SpannerSplit;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The source, with an enumerator that takes a failing reader's {@link ReaderFailingEvent} only
 * after its next checkpoint: Flink then holds the enumerator's answer until the reader's own part
 * of that checkpoint is done. Under load this order happens by chance; here it happens every time.
 * For MiniCluster tests, whose coordinators run in the test's JVM ({@link
 * #answeredAfterCheckpoint}).
 */
final class FailingReaderAnsweredAfterCheckpoint<T>
        implements Source<T, SpannerSplit, ChangeStreamEnumeratorState>, ResultTypeQueryable<T> {
    /** The checkpoint the last held event waited for, or 0. */
    static final AtomicLong answeredAfterCheckpoint = new AtomicLong();

    private final SpannerChangeStreamSource<T> source;

    FailingReaderAnsweredAfterCheckpoint(SpannerChangeStreamSource<T> source) {
        this.source = source;
    }

    @Override
    public Boundedness getBoundedness() {
        return source.getBoundedness();
    }

    @Override
    public SourceReader<T, SpannerSplit> createReader(SourceReaderContext context)
            throws Exception {
        return source.createReader(context);
    }

    @Override
    public SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> createEnumerator(
            SplitEnumeratorContext<SpannerSplit> context) throws Exception {
        return new HoldingEnumerator(source.createEnumerator(context), context);
    }

    @Override
    public SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> restoreEnumerator(
            SplitEnumeratorContext<SpannerSplit> context, ChangeStreamEnumeratorState state)
            throws Exception {
        return new HoldingEnumerator(source.restoreEnumerator(context, state), context);
    }

    @Override
    public SimpleVersionedSerializer<SpannerSplit> getSplitSerializer() {
        return source.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<ChangeStreamEnumeratorState>
            getEnumeratorCheckpointSerializer() {
        return source.getEnumeratorCheckpointSerializer();
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return source.getProducedType();
    }

    private static final class HoldingEnumerator
            implements SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> {
        private final SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> enumerator;
        private final SplitEnumeratorContext<SpannerSplit> context;
        private int heldFrom = -1;
        private SourceEvent held;

        HoldingEnumerator(
                SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> enumerator,
                SplitEnumeratorContext<SpannerSplit> context) {
            this.enumerator = enumerator;
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

        @Override
        public void start() {
            enumerator.start();
        }

        @Override
        public void handleSplitRequest(int subtaskId, String requesterHostname) {
            enumerator.handleSplitRequest(subtaskId, requesterHostname);
        }

        @Override
        public void addSplitsBack(List<SpannerSplit> splits, int subtaskId) {
            enumerator.addSplitsBack(splits, subtaskId);
        }

        @Override
        public void addReader(int subtaskId) {
            enumerator.addReader(subtaskId);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            enumerator.notifyCheckpointComplete(checkpointId);
        }

        @Override
        public void close() throws IOException {
            try {
                enumerator.close();
            } catch (IOException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException(e);
            }
        }
    }
}
