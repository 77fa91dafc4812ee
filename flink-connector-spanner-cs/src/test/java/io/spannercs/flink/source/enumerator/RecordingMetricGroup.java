package io.spannercs.flink.source.enumerator;

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;

/** A metric group that keeps what is registered, so tests can read it. */
final class RecordingMetricGroup extends UnregisteredMetricsGroup
        implements SplitEnumeratorMetricGroup {
    final Map<String, Counter> counters = new HashMap<>();
    final Map<String, Gauge<?>> gauges = new HashMap<>();

    @Override
    public Counter counter(String name) {
        return counter(name, new SimpleCounter());
    }

    @Override
    public <C extends Counter> C counter(String name, C counter) {
        counters.put(name, counter);
        return counter;
    }

    @Override
    public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
        gauges.put(name, gauge);
        return gauge;
    }

    @Override
    public <G extends Gauge<Long>> G setUnassignedSplitsGauge(G gauge) {
        return gauge("unassignedSplits", gauge);
    }

    long gauge(String name) {
        return (Long) gauges.get(name).getValue();
    }

    long count(String name) {
        return counters.get(name).getCount();
    }
}
