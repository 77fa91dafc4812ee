package io.spannercs.benchmarks;

import io.spannercs.flink.format.ChangeEvent;
import java.time.Clock;
import java.time.Instant;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * A discarding sink chained to the source that notes, for every change, the wall clock when it is
 * emitted against its commit timestamp, into the {@link LatencyRecorder}. The emulator takes commit
 * timestamps from the same clock, so no skew enters the figure.
 */
final class LatencyProbeSink implements Sink<ChangeEvent> {
    private static final long serialVersionUID = 1L;

    @Override
    public SinkWriter<ChangeEvent> createWriter(WriterInitContext context) {
        return new SinkWriter<>() {
            private final Clock clock = Clock.systemUTC();

            @Override
            public void write(ChangeEvent e, Context context) {
                Instant now = clock.instant();
                LatencyRecorder.INSTANCE.record(
                        e.getPartitionToken(), micros(e.getCommitTimestamp()), micros(now));
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public void close() {}
        };
    }

    static long micros(Instant i) {
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1000;
    }
}
