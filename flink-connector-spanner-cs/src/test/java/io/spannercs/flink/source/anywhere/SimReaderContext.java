package io.spannercs.flink.source.anywhere;

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.OperatorIOMetricGroup;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;

/**
 * A reader's context: events to the coordinator go, Java-serialized, into the driver's queue for
 * the enumerator (behind the reader's registration when it was sent first, as Flink's RPC keeps one
 * task's events in order); its metric group keeps the counters the reader registers.
 */
final class SimReaderContext implements SourceReaderContext {
    private final Job job;
    private final int subtask;
    private final int attempt;
    private final int parallelism;
    private final Metrics metrics = new Metrics();

    SimReaderContext(Job job, int subtask, int attempt, int parallelism) {
        this.job = job;
        this.subtask = subtask;
        this.attempt = attempt;
        this.parallelism = parallelism;
    }

    @Override
    public SourceReaderMetricGroup metricGroup() {
        return metrics;
    }

    /** A counter the reader registered, or null. */
    Counter counter(String name) {
        return metrics.counters.get(name);
    }

    @Override
    public Configuration getConfiguration() {
        return new Configuration();
    }

    @Override
    public String getLocalHostName() {
        return "localhost";
    }

    @Override
    public int getIndexOfSubtask() {
        return subtask;
    }

    @Override
    public void sendSplitRequest() {}

    @Override
    public void sendSourceEventToCoordinator(SourceEvent sourceEvent) {
        job.toEnumerator(subtask, attempt, sourceEvent);
    }

    @Override
    public UserCodeClassLoader getUserCodeClassLoader() {
        return SimpleUserCodeClassLoader.create(getClass().getClassLoader());
    }

    @Override
    public int currentParallelism() {
        return parallelism;
    }

    /** Keeps what the reader registers. */
    private static final class Metrics extends UnregisteredMetricsGroup
            implements SourceReaderMetricGroup {
        final Map<String, Counter> counters = new HashMap<>();
        final OperatorIOMetricGroup io = UnregisteredMetricsGroup.createOperatorIOMetricGroup();

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
            return gauge;
        }

        @Override
        public OperatorIOMetricGroup getIOMetricGroup() {
            return io;
        }

        @Override
        public Counter getNumRecordsInErrorsCounter() {
            return new SimpleCounter();
        }

        @Override
        public void setPendingBytesGauge(Gauge<Long> pendingBytesGauge) {}

        @Override
        public void setPendingRecordsGauge(Gauge<Long> pendingRecordsGauge) {}
    }
}
