package io.spannercs.flink.source.reader;

import com.google.protobuf.ListValue;
import com.google.protobuf.Value;
import com.google.spanner.v1.Mutation;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.split.SpannerSplit;
import java.util.ArrayList;
import java.util.List;

/**
 * An emulator with one table {@code T (K INT64, V INT64)} and one change stream {@code cs}, and the
 * readers a test drives on it: closing the fixture closes them all, then the emulator.
 */
final class ReaderFixture implements AutoCloseable {
    final SpannerEmulator emulator;
    private final List<ReaderDriver> drivers = new ArrayList<>();

    /** {@code mode}: the stream's partition mode; {@code partitions}: its first partitions. */
    ReaderFixture(String mode, int partitions) {
        emulator =
                SpannerEmulator.builder()
                        .ddl(
                                "CREATE TABLE T (K INT64 NOT NULL, V INT64) PRIMARY KEY (K);\n"
                                        + "CREATE CHANGE STREAM cs FOR ALL OPTIONS (partition_mode"
                                        + " = '"
                                        + mode
                                        + "');\n")
                        .initialPartitions(partitions)
                        .seed(3)
                        .start();
    }

    /** A started reader of {@code splits}, emitting change events. */
    ReaderDriver driver(SpannerSourceConfig config, List<SpannerSplit> splits) {
        return driver(config, splits, ChangeEventDeserializer.changeEvents());
    }

    /** As above, with the user's {@code deserializer}. */
    ReaderDriver driver(
            SpannerSourceConfig config,
            List<SpannerSplit> splits,
            ChangeEventDeserializer<ChangeEvent> deserializer) {
        ReaderDriver d = new ReaderDriver(config, splits, deserializer);
        drivers.add(d);
        return d;
    }

    /** Commits the mutations in one transaction; returns its commit timestamp. */
    long commit(List<Mutation> mutations) {
        return emulator.database().commit(mutations, "").commitMicros();
    }

    /** Writes row {@code k} of T, with a value that differs at every call. */
    static Mutation upsert(long k) {
        return Mutation.newBuilder()
                .setInsertOrUpdate(
                        Mutation.Write.newBuilder()
                                .setTable("T")
                                .addColumns("K")
                                .addColumns("V")
                                .addValues(
                                        ListValue.newBuilder()
                                                .addValues(int64(k))
                                                .addValues(int64(System.nanoTime()))))
                .build();
    }

    static Value int64(long v) {
        return Value.newBuilder().setStringValue(Long.toString(v)).build();
    }

    @Override
    public void close() throws Exception {
        try {
            for (ReaderDriver d : drivers) {
                d.close();
            }
        } finally {
            emulator.close();
        }
    }
}
