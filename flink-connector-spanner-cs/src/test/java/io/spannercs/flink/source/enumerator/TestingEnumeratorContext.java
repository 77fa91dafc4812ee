package io.spannercs.flink.source.enumerator;

import io.spannercs.flink.source.split.SpannerSplit;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;

/** Flink's mock context with a metric group that tests can read. */
final class TestingEnumeratorContext extends MockSplitEnumeratorContext<SpannerSplit> {
    final RecordingMetricGroup metrics = new RecordingMetricGroup();

    TestingEnumeratorContext(int parallelism) {
        super(parallelism);
    }

    @Override
    public SplitEnumeratorMetricGroup metricGroup() {
        return metrics;
    }
}
