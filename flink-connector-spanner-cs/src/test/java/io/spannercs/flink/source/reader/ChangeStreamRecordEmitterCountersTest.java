package io.spannercs.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.source.spanner.SnapshotRow;
import io.spannercs.flink.source.split.SnapshotKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

/**
 * The reader's counters as a metric reporter reads them while a record is on its way downstream: a
 * snapshot row must never count as a change ({@code numRecordsIn - numSnapshotRows}), even while
 * the chained operators after the source (a sink opening its first file) hold the row.
 */
class ChangeStreamRecordEmitterCountersTest {

    @Test
    void aSnapshotRowOnItsWayDownstreamIsNotCountedAsAChange() throws Exception {
        Counter numRecordsIn = new SimpleCounter();
        Counter numSnapshotRows = new SimpleCounter();
        List<Long> changesSeenDownstream = new ArrayList<>();
        ChangeEventDeserializer<ChangeEvent> recordingCounters =
                new ChangeEventDeserializer<>() {
                    @Override
                    public void deserialize(ChangeEvent event, Collector<ChangeEvent> out) {
                        changesSeenDownstream.add(
                                numRecordsIn.getCount() - numSnapshotRows.getCount());
                        out.collect(event);
                    }

                    @Override
                    public TypeInformation<ChangeEvent> getProducedType() {
                        return TypeInformation.of(ChangeEvent.class);
                    }
                };
        ReaderSharedState shared = new ReaderSharedState();
        Map<String, SplitState> states = new HashMap<>();
        ChangeStreamRecordEmitter<ChangeEvent> emitter =
                new ChangeStreamRecordEmitter<>(
                        recordingCounters,
                        SnapshotStreamTest.config(),
                        shared,
                        new ReportOutbox(),
                        new LocalBarriers(states, shared),
                        numRecordsIn,
                        new SimpleCounter(),
                        numSnapshotRows);
        SnapshotSplitState split = new SnapshotSplitState(SnapshotStreamTest.split());
        List<ChangeEvent> emitted = new ArrayList<>();

        for (long k = 1; k <= 3; k++) {
            SnapshotRow row =
                    new SnapshotRow(
                            new SnapshotKey(List.of("INT64"), List.of(Long.toString(k))),
                            Map.of("K", k),
                            Map.of("V", "v" + k),
                            Map.of("K", "INT64", "V", "STRING"));
            numRecordsIn.inc(); // SourceReaderBase counts every fetched element before the emitter
            emitter.emitRecord(FetchedRecord.snapshotRow(row), new ListOutput(emitted), split);
        }

        assertThat(emitted).hasSize(3).allMatch(ChangeEvent::isSnapshot);
        assertThat(changesSeenDownstream)
                .as("changes while each row is downstream")
                .containsOnly(0L);
        assertThat(numRecordsIn.getCount() - numSnapshotRows.getCount()).isZero();
    }

    /** The split's output: collects the records. */
    private record ListOutput(List<ChangeEvent> records) implements SourceOutput<ChangeEvent> {
        @Override
        public void collect(ChangeEvent record) {
            records.add(record);
        }

        @Override
        public void collect(ChangeEvent record, long timestamp) {
            records.add(record);
        }

        @Override
        public void emitWatermark(Watermark watermark) {}

        @Override
        public void markIdle() {}

        @Override
        public void markActive() {}
    }
}
