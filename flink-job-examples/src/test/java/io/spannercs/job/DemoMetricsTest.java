package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The demo's reporter: totals over the source's subtasks, while they run and after they end. */
class DemoMetricsTest {
    private final DemoMetrics reporter = new DemoMetrics();

    @AfterEach
    void forget() {
        DemoMetrics.reset();
    }

    /**
     * One source subtask reaches the end timestamp before the other: the total it read stays in the
     * count (a loaded machine printed 4,819 changes after 7,859).
     */
    @Test
    void aSubtaskThatEndedKeepsItsCountInTheTotal() {
        SimpleCounter first = counter(4_000);
        SimpleCounter second = counter(3_859);
        reporter.notifyOfAddedMetric(first, "numRecordsIn", source(0));
        reporter.notifyOfAddedMetric(second, "numRecordsIn", source(1));
        assertThat(DemoMetrics.value("numRecordsIn")).isEqualTo(7_859);

        reporter.notifyOfRemovedMetric(first, "numRecordsIn", source(0));
        second.inc(100);

        assertThat(DemoMetrics.value("numRecordsIn")).isEqualTo(7_959);
        assertThat(DemoMetrics.sourceRunning()).isTrue();

        reporter.notifyOfRemovedMetric(second, "numRecordsIn", source(1));
        assertThat(DemoMetrics.value("numRecordsIn")).isEqualTo(7_959);
        assertThat(DemoMetrics.sourceRunning()).as("every source subtask ended").isFalse();
    }

    /** Only the source's count of records in is the number of changes read. */
    @Test
    void otherOperatorsRecordsInAreLeftOut() {
        reporter.notifyOfAddedMetric(counter(50), "numRecordsIn", operator("Sink: Writer", 0));
        assertThat(DemoMetrics.value("numRecordsIn")).isZero();
        assertThat(DemoMetrics.sourceRunning()).isFalse();
    }

    private static SimpleCounter counter(long count) {
        SimpleCounter c = new SimpleCounter();
        c.inc(count);
        return c;
    }

    private static UnregisteredMetricsGroup source(int subtask) {
        return operator("Source: spanner", subtask);
    }

    /** A metric group named as Flink names an operator's, per subtask. */
    private static UnregisteredMetricsGroup operator(String name, int subtask) {
        return new UnregisteredMetricsGroup() {
            @Override
            public Map<String, String> getAllVariables() {
                return Map.of("<operator_name>", name, "<subtask_index>", "" + subtask);
            }

            @Override
            public String getMetricIdentifier(String metricName) {
                return "tm." + name + "." + subtask + "." + metricName;
            }
        };
    }
}
