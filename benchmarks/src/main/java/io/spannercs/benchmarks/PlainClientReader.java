package io.spannercs.benchmarks;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.AsyncResultSet;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Options;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.Statement;
import com.google.spanner.v1.ChangeStreamRecord;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.flink.format.ChangeEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The practical limit for reading a change stream: the official client alone, each record decoded
 * into change events, no Flink. It follows new partitions named by PartitionStartRecords but keeps
 * no order across partitions. Two ways to run the queries:
 *
 * <ul>
 *   <li>{@link Mode#ASYNC}: every partition queried at once through {@link AsyncResultSet}
 *       callbacks on a small pool, as the source's reader runs its queries;
 *   <li>{@link Mode#BLOCKING}: a small pool of threads, each reading one partition at a time with
 *       the blocking {@link ResultSet}; fine for a bounded read, where every query ends.
 * </ul>
 */
final class PlainClientReader implements AutoCloseable {
    /** How queries are run. */
    enum Mode {
        ASYNC,
        BLOCKING
    }

    private final Spanner spanner;
    private final DatabaseClient client;
    private final ExecutorService callbacks;
    private final String stream;
    private final Mode mode;
    private final int bufferRows;
    private final Consumer<ChangeEvent> listener;

    /**
     * @param threads the callback pool (async) or the reading threads (blocking); a live read in
     *     blocking mode needs one per partition
     * @param bufferRows rows each async query buffers ({@code Options.bufferRows}); 0 for the
     *     client's default
     * @param listener sees every change as it is decoded, on a reading thread; null for none
     */
    PlainClientReader(
            SpannerEmulator emulator,
            String stream,
            int threads,
            Mode mode,
            int bufferRows,
            Consumer<ChangeEvent> listener) {
        this.spanner = EmulatorClient.create(emulator);
        this.client =
                spanner.getDatabaseClient(
                        DatabaseId.of(
                                emulator.projectId(),
                                emulator.instanceId(),
                                emulator.databaseId()));
        AtomicInteger n = new AtomicInteger();
        this.callbacks =
                Executors.newFixedThreadPool(
                        threads,
                        r -> {
                            Thread t = new Thread(r, "plain-reader-" + n.incrementAndGet());
                            t.setDaemon(true);
                            return t;
                        });
        this.stream = stream;
        this.mode = mode;
        this.bufferRows = bufferRows;
        this.listener = listener;
    }

    /** Reads every partition over [start, end] to its end. */
    ReadResult read(long startMicros, long endMicros, Duration timeout) throws Exception {
        long t0 = System.nanoTime();
        Run run = start(startMicros, endMicros);
        run.done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        return new ReadResult(
                run.rowChanges.sum(),
                run.checksum.sum(),
                run.firstNanos.get(),
                run.lastNanos.get(),
                System.nanoTime() - t0);
    }

    /** Starts reading every partition over [start, end]; {@link #close()} stops it. */
    Run start(long startMicros, long endMicros) {
        Run run = new Run(endMicros);
        for (String token : rootPartitions(startMicros, endMicros)) {
            run.startPartition(token, startMicros);
        }
        return run;
    }

    private List<String> rootPartitions(long startMicros, long endMicros) {
        List<String> tokens = new ArrayList<>();
        try (ResultSet rs = client.singleUse().executeQuery(query(null, startMicros, endMicros))) {
            while (rs.next()) {
                ChangeStreamRecord r =
                        rs.getProtoMessage(0, ChangeStreamRecord.getDefaultInstance());
                tokens.addAll(r.getPartitionStartRecord().getPartitionTokensList());
            }
        }
        return tokens;
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
    final class Run {
        final long endMicros;
        final Set<String> started = ConcurrentHashMap.newKeySet();
        final AtomicInteger running = new AtomicInteger();
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final LongAdder rowChanges = new LongAdder();
        final LongAdder checksum = new LongAdder();
        final AtomicLong firstNanos = new AtomicLong();
        final AtomicLong lastNanos = new AtomicLong();

        Run(long endMicros) {
            this.endMicros = endMicros;
        }

        void startPartition(String token, long fromMicros) {
            if (!started.add(token)) {
                return;
            }
            running.incrementAndGet();
            Statement statement = query(token, fromMicros, endMicros);
            if (mode == Mode.ASYNC) {
                AsyncResultSet rs =
                        bufferRows > 0
                                ? client.singleUse()
                                        .executeQueryAsync(
                                                statement, Options.bufferRows(bufferRows))
                                : client.singleUse().executeQueryAsync(statement);
                rs.setCallback(callbacks, r -> onRows(r, token));
            } else {
                callbacks.execute(() -> readBlocking(statement, token));
            }
        }

        private void readBlocking(Statement statement, String token) {
            long rows = 0;
            long sum = 0;
            try (ResultSet rs = client.singleUse().executeQuery(statement)) {
                while (rs.next()) {
                    ChangeStreamRecord r =
                            rs.getProtoMessage(0, ChangeStreamRecord.getDefaultInstance());
                    if (r.hasDataChangeRecord()) {
                        if (firstNanos.get() == 0) {
                            firstNanos.compareAndSet(0, System.nanoTime());
                        }
                        for (ChangeEvent e :
                                ProtoChangeEvents.decode(r.getDataChangeRecord(), token)) {
                            if (listener != null) {
                                listener.accept(e);
                            }
                            rows++;
                            sum += Checksum.of(e.getServerTransactionId(), rowId(e));
                        }
                        if (rows >= 1024) {
                            account(rows, sum);
                            rows = 0;
                            sum = 0;
                        }
                    } else {
                        followNewPartitions(r);
                    }
                }
                account(rows, sum);
                if (running.decrementAndGet() == 0) {
                    done.complete(null);
                }
            } catch (Throwable e) {
                done.completeExceptionally(
                        new IllegalStateException("Reading partition " + token + " failed", e));
            }
        }

        private void followNewPartitions(ChangeStreamRecord r) {
            if (r.hasPartitionStartRecord()) {
                long at = micros(r.getPartitionStartRecord().getStartTimestamp());
                r.getPartitionStartRecord()
                        .getPartitionTokensList()
                        .forEach(t -> startPartition(t, at));
            }
        }

        private AsyncResultSet.CallbackResponse onRows(AsyncResultSet rs, String token) {
            long rows = 0;
            long sum = 0;
            try {
                while (true) {
                    switch (rs.tryNext()) {
                        case OK:
                            ChangeStreamRecord r =
                                    rs.getProtoMessage(0, ChangeStreamRecord.getDefaultInstance());
                            if (r.hasDataChangeRecord()) {
                                if (firstNanos.get() == 0) {
                                    firstNanos.compareAndSet(0, System.nanoTime());
                                }
                                for (ChangeEvent e :
                                        ProtoChangeEvents.decode(r.getDataChangeRecord(), token)) {
                                    if (listener != null) {
                                        listener.accept(e);
                                    }
                                    rows++;
                                    sum += Checksum.of(e.getServerTransactionId(), rowId(e));
                                }
                            } else {
                                followNewPartitions(r);
                            }
                            break;
                        case NOT_READY:
                            account(rows, sum);
                            return AsyncResultSet.CallbackResponse.CONTINUE;
                        case DONE:
                            account(rows, sum);
                            if (running.decrementAndGet() == 0) {
                                done.complete(null);
                            }
                            return AsyncResultSet.CallbackResponse.DONE;
                        default:
                            throw new IllegalStateException();
                    }
                }
            } catch (Throwable e) {
                done.completeExceptionally(
                        new IllegalStateException("Reading partition " + token + " failed", e));
                return AsyncResultSet.CallbackResponse.DONE;
            }
        }

        /** Counts a batch of callbacks at once: cheaper than per change. */
        private void account(long rows, long sum) {
            if (rows == 0) {
                return;
            }
            lastNanos.accumulateAndGet(System.nanoTime(), Math::max);
            rowChanges.add(rows);
            checksum.add(sum);
        }
    }

    static long rowId(ChangeEvent e) {
        return (Long) e.getKeys().get("Id");
    }

    private static long micros(com.google.protobuf.Timestamp t) {
        return t.getSeconds() * 1_000_000L + t.getNanos() / 1000;
    }

    @Override
    public void close() {
        callbacks.shutdownNow();
        spanner.close();
    }
}
