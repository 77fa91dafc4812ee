package io.spannercs.flink.source.testsuite;

import io.spannercs.flink.source.SpannerChangeStreamSource;
import io.spannercs.flink.source.enumerator.ChangeStreamEnumeratorState;
import io.spannercs.flink.source.split.SpannerSplit;
import java.time.Instant;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A bounded {@link SpannerChangeStreamSource} whose end timestamp is the commit timestamp of the
 * last record written by the external context, fixed when the job first uses the source.
 *
 * <p>The suite's bounded cases create the source <em>before</em> they write the test data
 * (SourceTestSuiteBase 2.3.0: {@code tryCreateSource} in step 1, {@code generateAndWriteTestData}
 * in step 2, job submission in step 3), while the builder needs a fixed end {@link Instant}. This
 * wrapper builds the real source only when the running job asks for its enumerator, readers or
 * serializers, which is after the data is written; every copy of the wrapper (the job ships
 * serialized copies to the JobManager and the TaskManager) resolves the same end timestamp through
 * the external context's registry, which lives in this JVM (MiniCluster only).
 */
final class EndAtLastWriteSource
        implements Source<String, SpannerSplit, ChangeStreamEnumeratorState>,
                ResultTypeQueryable<String> {
    private static final long serialVersionUID = 1L;

    private final SourceParams params;
    private transient SpannerChangeStreamSource<String> delegate;

    EndAtLastWriteSource(SourceParams params) {
        this.params = params;
    }

    private synchronized SpannerChangeStreamSource<String> delegate() {
        if (delegate == null) {
            delegate = params.build(SpannerSourceExternalContext.boundedEnd(params.contextId()));
        }
        return delegate;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SourceReader<String, SpannerSplit> createReader(SourceReaderContext context)
            throws Exception {
        return delegate().createReader(context);
    }

    @Override
    public SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> createEnumerator(
            SplitEnumeratorContext<SpannerSplit> context) throws Exception {
        return delegate().createEnumerator(context);
    }

    @Override
    public SplitEnumerator<SpannerSplit, ChangeStreamEnumeratorState> restoreEnumerator(
            SplitEnumeratorContext<SpannerSplit> context, ChangeStreamEnumeratorState state)
            throws Exception {
        return delegate().restoreEnumerator(context, state);
    }

    @Override
    public SimpleVersionedSerializer<SpannerSplit> getSplitSerializer() {
        return delegate().getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<ChangeStreamEnumeratorState>
            getEnumeratorCheckpointSerializer() {
        return delegate().getEnumeratorCheckpointSerializer();
    }

    @Override
    public TypeInformation<String> getProducedType() {
        return new PayloadDeserializer().getProducedType();
    }
}
