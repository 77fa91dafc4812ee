package io.spannercs.flink.source.reader;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.source.ChangeFilter;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.event.EnumeratorEventsEvent;
import io.spannercs.flink.source.event.ReaderReportsEvent;
import io.spannercs.flink.source.split.PartitionReport;
import io.spannercs.flink.source.split.PartitionSplit;
import io.spannercs.flink.source.split.SpannerSplit;
import io.spannercs.flink.source.split.SpannerSplitSerializer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;
import org.apache.flink.connector.testutils.source.reader.TestingReaderOutput;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.testutils.MetricListener;
import org.apache.flink.runtime.metrics.groups.InternalSourceReaderMetricGroup;

/**
 * One {@link ChangeStreamSourceReader} driven element by element, without an enumerator: its
 * checkpoints go through the split serializer, as a restore would read them.
 */
final class ReaderDriver implements AutoCloseable {
    private final MetricListener metrics = new MetricListener();
    final TestingReaderContext context =
            new TestingReaderContext(
                    new Configuration(),
                    InternalSourceReaderMetricGroup.mock(metrics.getMetricGroup()));
    final TestingReaderOutput<ChangeEvent> output = new TestingReaderOutput<>();
    final ChangeStreamSourceReader<ChangeEvent> reader;
    private long checkpoints;

    /** A started reader with {@code splits} (new or restored). */
    ReaderDriver(SpannerSourceConfig config, List<SpannerSplit> splits) {
        this(config, splits, ChangeEventDeserializer.changeEvents());
    }

    /** As above, with the user's {@code deserializer}. */
    ReaderDriver(
            SpannerSourceConfig config,
            List<SpannerSplit> splits,
            ChangeEventDeserializer<ChangeEvent> deserializer) {
        reader = ChangeStreamSourceReader.create(config, deserializer, ChangeFilter.ALL, context);
        reader.addSplits(splits);
        reader.start();
    }

    /** Emits at most one element; waits briefly for one when none is ready. */
    InputStatus poll() throws Exception {
        InputStatus status = reader.pollNext(output);
        if (status == InputStatus.NOTHING_AVAILABLE) {
            try {
                reader.isAvailable().get(50, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                // nothing yet
            }
        }
        return status;
    }

    /** Polls until {@code done}, failing after {@code limit} with {@code what}. */
    void pollUntil(BooleanSupplier done, Duration limit, String what) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Not within " + limit + ": " + what);
            }
            poll();
        }
    }

    /** The reader's checkpoint, written and read back by the split serializer. */
    List<SpannerSplit> checkpoint() throws Exception {
        SpannerSplitSerializer serializer = new SpannerSplitSerializer();
        List<SpannerSplit> out = new ArrayList<>();
        for (SpannerSplit s : reader.snapshotState(++checkpoints)) {
            out.add(serializer.deserialize(serializer.getVersion(), serializer.serialize(s)));
        }
        return out;
    }

    /** The state of one partition in a new checkpoint, or null. */
    PartitionSplit partition(String token) throws Exception {
        for (SpannerSplit s : checkpoint()) {
            if (s instanceof PartitionSplit p && p.token().equals(token)) {
                return p;
            }
        }
        return null;
    }

    /** Every report the reader sent to the enumerator. */
    List<PartitionReport> reportsSent() {
        List<PartitionReport> out = new ArrayList<>();
        for (SourceEvent e : context.getSentEvents()) {
            collect(e, out);
        }
        return out;
    }

    private static void collect(SourceEvent e, List<PartitionReport> out) {
        if (e instanceof ReaderReportsEvent r && r.reports() != null) {
            out.addAll(r.reports());
        } else if (e instanceof EnumeratorEventsEvent batch) {
            batch.events().forEach(x -> collect(x, out));
        }
    }

    /** Partition queries the reader started (windows and retries). */
    long partitionQueries() {
        return metrics.getCounter("numPartitionQueries").map(Counter::getCount).orElse(0L);
    }

    @Override
    public void close() throws Exception {
        reader.close();
    }
}
