package io.spannercs.flink.source;

import io.spannercs.flink.source.enumerator.ChangeStreamEnumeratorState;
import io.spannercs.flink.source.split.SpannerSplit;
import java.io.IOException;
import java.io.Serializable;
import java.util.List;
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
 * The source with its enumerator wrapped by a test, to put the enumerator's messages in an order
 * that otherwise happens only by chance (under load, or in a race). For MiniCluster tests: the
 * coordinators run in the test's JVM, so wrappers can report through static fields.
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

    private final SpannerChangeStreamSource<T> source;
    private final Wrapper wrapper;

    WrappedEnumeratorSource(SpannerChangeStreamSource<T> source, Wrapper wrapper) {
        this.source = source;
        this.wrapper = wrapper;
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
