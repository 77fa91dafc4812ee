package io.spannercs.flink.source;

import io.spannercs.flink.source.enumerator.ChangeStreamEnumeratorState;
import io.spannercs.flink.source.split.SpannerSplit;
import java.io.IOException;
import java.io.Serializable;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;

/**
 * The source with its enumerator (and maybe its readers) wrapped by a test, to put the enumerator's
 * messages in an order that otherwise happens only by chance (under load, or in a race). For
 * MiniCluster tests: the coordinators run in the test's JVM, so wrappers can report through static
 * fields.
 */
final class WrappedEnumeratorSource<T>
        implements Source<T, SpannerSplit, ChangeStreamEnumeratorState>, ResultTypeQueryable<T> {

    /** Creates the enumerator of a job, given the job's context and how to create the real one. */
    interface Wrapper extends Serializable {
        SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> wrap(
                SplitEnumeratorContext<SpannerSplit> context, Enumerators real) throws Exception;
    }

    /** Creates the real enumerator, new or restored, on a context of the wrapper's choice. */
    interface Enumerators {
        SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> create(
                SplitEnumeratorContext<SpannerSplit> context) throws Exception;
    }

    /** Creates the reader of a subtask around the real one. */
    interface ReaderWrapper extends Serializable {
        <T> SourceReader<T, SpannerSplit> wrap(SourceReader<T, SpannerSplit> real);
    }

    private final SpannerChangeStreamSource<T> source;
    private final Wrapper wrapper;
    private final ReaderWrapper readerWrapper;

    WrappedEnumeratorSource(SpannerChangeStreamSource<T> source, Wrapper wrapper) {
        this(source, wrapper, null);
    }

    /** With the readers wrapped too ({@code readerWrapper} null: the real ones). */
    WrappedEnumeratorSource(
            SpannerChangeStreamSource<T> source, Wrapper wrapper, ReaderWrapper readerWrapper) {
        this.source = source;
        this.wrapper = wrapper;
        this.readerWrapper = readerWrapper;
    }

    @Override
    public Boundedness getBoundedness() {
        return source.getBoundedness();
    }

    @Override
    public SourceReader<T, SpannerSplit> createReader(SourceReaderContext context)
            throws Exception {
        SourceReader<T, SpannerSplit> reader = source.createReader(context);
        return readerWrapper == null ? reader : readerWrapper.wrap(reader);
    }

    @Override
    public SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> createEnumerator(
            SplitEnumeratorContext<SpannerSplit> context) throws Exception {
        return wrapper.wrap(context, source::createEnumerator);
    }

    @Override
    public SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> restoreEnumerator(
            SplitEnumeratorContext<SpannerSplit> context, ChangeStreamEnumeratorState state)
            throws Exception {
        return wrapper.wrap(context, c -> source.restoreEnumerator(c, state));
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

    /** Passes every call on to the real enumerator; wrappers override what they change. */
    static class ForwardingEnumerator
            implements SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> {
        final SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> enumerator;

        ForwardingEnumerator(
                SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> enumerator) {
            this.enumerator = enumerator;
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
        public void handleSourceEvent(int subtaskId, SourceEvent event) {
            enumerator.handleSourceEvent(subtaskId, event);
        }

        @Override
        public ChangeStreamEnumeratorState snapshotState(long checkpointId) throws Exception {
            return enumerator.snapshotState(checkpointId);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            enumerator.notifyCheckpointComplete(checkpointId);
        }

        @Override
        public void notifyCheckpointAborted(long checkpointId) throws Exception {
            enumerator.notifyCheckpointAborted(checkpointId);
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

    /** Passes every call on to Flink's context; wrappers override what they change. */
    static class ForwardingContext implements SplitEnumeratorContext<SpannerSplit> {
        final SplitEnumeratorContext<SpannerSplit> context;

        ForwardingContext(SplitEnumeratorContext<SpannerSplit> context) {
            this.context = context;
        }

        @Override
        public void assignSplits(SplitsAssignment<SpannerSplit> assignment) {
            context.assignSplits(assignment);
        }

        @Override
        public void signalNoMoreSplits(int subtask) {
            context.signalNoMoreSplits(subtask);
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

    /** Passes every call on to the real reader; wrappers override what they change. */
    static class ForwardingReader<T> implements SourceReader<T, SpannerSplit> {
        final SourceReader<T, SpannerSplit> reader;

        ForwardingReader(SourceReader<T, SpannerSplit> reader) {
            this.reader = reader;
        }

        @Override
        public void start() {
            reader.start();
        }

        @Override
        public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
            return reader.pollNext(output);
        }

        @Override
        public List<SpannerSplit> snapshotState(long checkpointId) {
            return reader.snapshotState(checkpointId);
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            return reader.isAvailable();
        }

        @Override
        public void addSplits(List<SpannerSplit> splits) {
            reader.addSplits(splits);
        }

        @Override
        public void notifyNoMoreSplits() {
            reader.notifyNoMoreSplits();
        }

        @Override
        public void handleSourceEvents(SourceEvent sourceEvent) {
            reader.handleSourceEvents(sourceEvent);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            reader.notifyCheckpointComplete(checkpointId);
        }

        @Override
        public void notifyCheckpointAborted(long checkpointId) throws Exception {
            reader.notifyCheckpointAborted(checkpointId);
        }

        @Override
        public void pauseOrResumeSplits(
                Collection<String> splitsToPause, Collection<String> splitsToResume) {
            reader.pauseOrResumeSplits(splitsToPause, splitsToResume);
        }

        @Override
        public void close() throws Exception {
            reader.close();
        }
    }
}
