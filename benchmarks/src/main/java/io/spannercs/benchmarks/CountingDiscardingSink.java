package io.spannercs.benchmarks;

import io.spannercs.flink.format.ChangeEvent;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Flink's DiscardingSink plus a count: each writer counts the changes it drops, with their {@link
 * Checksum} and arrival times, into a {@link Tally}. Chained to the source, it adds no shuffle.
 */
final class CountingDiscardingSink implements Sink<ChangeEvent> {
    private static final long serialVersionUID = 1L;
    private static final int PUBLISH_EVERY = 4096;

    private final String tally;

    CountingDiscardingSink(String tally) {
        this.tally = tally;
    }

    @Override
    public SinkWriter<ChangeEvent> createWriter(WriterInitContext context) {
        return new Writer(Tally.named(tally));
    }

    private static final class Writer implements SinkWriter<ChangeEvent> {
        private final Tally tally;
        private long rows;
        private long sum;
        private long lastNanos;

        Writer(Tally tally) {
            this.tally = tally;
        }

        @Override
        public void write(ChangeEvent e, Context context) {
            lastNanos = System.nanoTime();
            if (rows == 0) {
                tally.first(lastNanos); // the tally keeps the earliest over all writers
            }
            rows++;
            sum += Tally.checksumOf(e);
            if (rows >= PUBLISH_EVERY) {
                publish();
            }
        }

        private void publish() {
            tally.add(rows, sum, lastNanos);
            rows = 0;
            sum = 0;
        }

        @Override
        public void flush(boolean endOfInput) {
            if (rows > 0) {
                publish();
            }
        }

        @Override
        public void close() {
            flush(true);
        }
    }
}
