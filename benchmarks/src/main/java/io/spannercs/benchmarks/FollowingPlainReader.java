package io.spannercs.benchmarks;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import com.google.protobuf.Value;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeType;
import io.spannercs.flink.format.SpannerValues;
import io.spannercs.flink.source.record.ChangeRecord;
import io.spannercs.flink.source.record.ChangeRecordDecoder;
import io.spannercs.flink.source.record.ChildPartitionsRecord;
import io.spannercs.flink.source.record.ColumnInfo;
import io.spannercs.flink.source.record.DataChangeRecord;
import io.spannercs.flink.source.record.LegacyRecordDecoder;
import io.spannercs.flink.source.record.ModRecord;
import io.spannercs.flink.source.record.MutableRecordDecoder;
import io.spannercs.flink.source.record.PartitionStartRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The official client reading a change stream's history across partition churn, as a careful user
 * would write it without Flink: one thread per partition with the blocking {@link ResultSet}, a
 * child partition started as soon as a record names it (a ChildPartitionsRecord in legacy mode, a
 * PartitionStartRecord in mutable mode; a merged child once), every data change record turned into
 * typed {@link ChangeEvent}s (the source's per-change work). It keeps no order across partitions
 * and no checkpoint: the fastest a reader of this history can be.
 */
final class FollowingPlainReader {
    private final DatabaseClient client;
    private final String stream;
    private final ChangeRecordDecoder decoder;

    FollowingPlainReader(DatabaseClient client, String stream, boolean legacy) {
        this.client = client;
        this.stream = stream;
        this.decoder = legacy ? LegacyRecordDecoder.INSTANCE : MutableRecordDecoder.INSTANCE;
    }

    /** What a read found besides the changes: how many partitions it read. */
    record Result(ReadResult read, int partitions) {}

    /** Reads every partition over [start, end] to its end. */
    Result read(long startMicros, long endMicros, Duration timeout) throws Exception {
        ExecutorService threads =
                Executors.newCachedThreadPool(
                        r -> {
                            Thread t = new Thread(r, "plain-partition-reader");
                            t.setDaemon(true);
                            return t;
                        });
        try {
            long t0 = System.nanoTime();
            Run run = new Run(threads, endMicros);
            run.start(null, startMicros);
            run.done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            ReadResult read =
                    new ReadResult(
                                    run.rowChanges.sum(),
                                    run.checksum.sum(),
                                    run.firstNanos.get(),
                                    run.lastNanos.get(),
                                    System.nanoTime() - t0)
                            .from(t0);
            return new Result(read, run.started.size() - 1);
        } finally {
            threads.shutdownNow();
        }
    }

    private Statement query(String token, long startMicros, long endMicros) {
        return Statement.newBuilder(
                        "SELECT ChangeRecord FROM READ_"
                                + stream
                                + "(start_timestamp => @start, end_timestamp => @end,"
                                + " partition_token => @token, heartbeat_milliseconds => 1000)")
                .bind("start")
                .to(Timestamp.ofTimeMicroseconds(startMicros))
                .bind("end")
                .to(Timestamp.ofTimeMicroseconds(endMicros))
                .bind("token")
                .to(token)
                .build();
    }

    /** One read of all partitions. */
    private final class Run {
        final ExecutorService threads;
        final long endMicros;
        final Set<String> started = ConcurrentHashMap.newKeySet();
        final AtomicInteger running = new AtomicInteger();
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final LongAdder rowChanges = new LongAdder();
        final LongAdder checksum = new LongAdder();
        final AtomicLong firstNanos = new AtomicLong();
        final AtomicLong lastNanos = new AtomicLong();

        Run(ExecutorService threads, long endMicros) {
            this.threads = threads;
            this.endMicros = endMicros;
        }

        /** Starts a partition once (null: the root query). */
        void start(String token, long fromMicros) {
            if (!started.add(token == null ? "" : token)) {
                return;
            }
            running.incrementAndGet();
            threads.execute(() -> read(token, fromMicros));
        }

        private void read(String token, long fromMicros) {
            long rows = 0;
            long sum = 0;
            try (ResultSet rs =
                    client.singleUse().executeQuery(query(token, fromMicros, endMicros))) {
                while (rs.next()) {
                    for (ChangeRecord r : decoder.decode(rs)) {
                        if (r instanceof DataChangeRecord d) {
                            firstNanos.compareAndSet(0, System.nanoTime());
                            for (ChangeEvent e : events(d, token)) {
                                rows++;
                                sum += Tally.checksumOf(e);
                            }
                        } else if (r instanceof ChildPartitionsRecord c) {
                            c.children()
                                    .forEach(child -> start(child.token(), c.timestampMicros()));
                        } else if (r instanceof PartitionStartRecord s) {
                            s.partitionTokens().forEach(t -> start(t, s.timestampMicros()));
                        }
                    }
                }
                if (rows > 0) {
                    lastNanos.accumulateAndGet(System.nanoTime(), Math::max);
                    rowChanges.add(rows);
                    checksum.add(sum);
                }
                if (running.decrementAndGet() == 0) {
                    done.complete(null);
                }
            } catch (Throwable e) {
                done.completeExceptionally(
                        new IllegalStateException("Reading partition " + token + " failed", e));
            }
        }
    }

    /** One typed event per mod, as the source's emitter makes them. */
    static List<ChangeEvent> events(DataChangeRecord d, String token) {
        Instant commit =
                Instant.ofEpochSecond(
                        Math.floorDiv(d.timestampMicros(), 1_000_000L),
                        Math.floorMod(d.timestampMicros(), 1_000_000L) * 1000L);
        ChangeType type = ChangeType.valueOf(d.modType());
        ChangeEvent[] out = new ChangeEvent[d.mods().size()];
        for (int i = 0; i < out.length; i++) {
            ModRecord m = d.mods().get(i);
            out[i] =
                    ChangeEvent.builder()
                            .table(d.table())
                            .changeType(type)
                            .keys(typed(d.columns(), m.keys()))
                            .newValues(typed(d.columns(), m.newValues()))
                            .oldValues(typed(d.columns(), m.oldValues()))
                            .commitTimestamp(commit)
                            .serverTransactionId(d.serverTransactionId())
                            .recordSequence(d.recordSequence())
                            .modNumber(i)
                            .transactionTag(d.transactionTag())
                            .systemTransaction(d.systemTransaction())
                            .partitionToken(token)
                            .numberOfRecordsInTransaction(d.numberOfRecordsInTransaction())
                            .numberOfPartitionsInTransaction(d.numberOfPartitionsInTransaction())
                            .valueCaptureType(d.valueCaptureType())
                            .build();
        }
        return List.of(out);
    }

    private static Map<String, Object> typed(List<ColumnInfo> columns, Map<String, Value> values) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (values.isEmpty()) {
            return out;
        }
        for (ColumnInfo c : columns) {
            Value v = values.get(c.name());
            if (v != null) {
                out.put(c.name(), SpannerValues.toJava(c.type(), v));
            }
        }
        return out;
    }
}
