package io.spannercs.emulator.changestream;

import com.google.protobuf.ByteString;
import com.google.spanner.v1.ChangeStreamRecord;
import io.grpc.Status;
import io.spannercs.emulator.schema.PartitionMode;
import io.spannercs.emulator.storage.Timestamps;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One running {@code READ_<stream>} query. It is driven by events, not by a thread of its own: new
 * records in its partition, the heartbeat timer and the receiver's flow control each call {@link
 * #pump()}, which sends what is ready and schedules the next wake-up.
 *
 * <p>Every row carries a resume token holding the position (timestamp, sequence) after it, so a
 * retried query continues exactly where the last delivered row left off.
 */
public final class ChangeStreamQuery {
    private final ChangeStream stream;
    private final Partition partition;
    private final long startMicros;
    private final long endMicros;
    private final long heartbeatMicros;
    private final RecordEncoder encoder;
    private final RowSink sink;
    private final ScheduledExecutorService scheduler;
    private final FaultInjector faults;
    private final Runnable wakeUp = this::wakeUp;

    private long posMicros;
    private long posSequence;
    private long lastSendNanos;
    private int rowsSent;
    private boolean done;
    private ScheduledFuture<?> timer;

    /**
     * @param partition null for the root query
     * @param endMicros {@code Long.MAX_VALUE} for no end
     * @param resumeToken empty to start at {@code startMicros}
     */
    public ChangeStreamQuery(
            ChangeStream stream,
            Partition partition,
            long startMicros,
            long endMicros,
            Duration heartbeat,
            ByteString resumeToken,
            RecordEncoder encoder,
            RowSink sink,
            ScheduledExecutorService scheduler,
            FaultInjector faults) {
        this.stream = stream;
        this.partition = partition;
        this.startMicros = startMicros;
        this.endMicros = endMicros;
        this.heartbeatMicros = heartbeat.toNanos() / 1000;
        this.encoder = encoder;
        this.sink = sink;
        this.scheduler = scheduler;
        this.faults = faults;
        if (resumeToken.isEmpty()) {
            posMicros = startMicros - 1;
            posSequence = Long.MAX_VALUE;
        } else {
            long[] pos = decodeResumeToken(resumeToken);
            posMicros = pos[0];
            posSequence = pos[1];
        }
    }

    /** Starts serving; rows flow on the scheduler's threads. */
    public void start() {
        lastSendNanos = System.nanoTime();
        sink.setOnReady(wakeUp);
        sink.setOnCancel(this::cancel);
        if (partition != null) {
            partition.addListener(wakeUp);
        }
        wakeUp();
    }

    private void wakeUp() {
        scheduler.execute(this::pump);
    }

    private synchronized void cancel() {
        finish();
    }

    private void finish() {
        done = true;
        if (partition != null) {
            partition.removeListener(wakeUp);
        }
        if (timer != null) {
            timer.cancel(false);
        }
    }

    synchronized void pump() {
        if (done) {
            return;
        }
        try {
            if (partition == null) {
                pumpRoot();
            } else {
                pumpPartition();
            }
        } catch (RuntimeException e) {
            finish();
            sink.fail(
                    Status.INTERNAL
                            .withDescription("Emulator failed serving the query: " + e)
                            .withCause(e)
                            .asRuntimeException());
        }
    }

    private void pumpRoot() {
        long safe = stream.database().safeMicros();
        if (safe < startMicros) {
            schedule(Math.max(1, (startMicros - safe) / 1000));
            return;
        }
        List<Partition> live = new ArrayList<>();
        boolean mutable = stream.def().partitionMode() == PartitionMode.MUTABLE_KEY_RANGE;
        for (Partition p : stream.partitionsLiveAt(startMicros)) {
            live.add(p);
        }
        if (mutable) {
            // Partitions ending exactly at the start still owe their records at that timestamp.
            for (Partition p : stream.partitionsEndingAt(startMicros)) {
                live.add(p);
            }
        }
        List<String> tokens = new ArrayList<>();
        live.forEach(p -> tokens.add(p.token()));
        LogEntry entry;
        if (mutable) {
            entry =
                    new LogEntry(
                            startMicros,
                            0,
                            ChangeStreamRecord.newBuilder()
                                    .setPartitionStartRecord(
                                            ChangeStreamRecord.PartitionStartRecord.newBuilder()
                                                    .setStartTimestamp(
                                                            Timestamps.toProto(startMicros))
                                                    .setRecordSequence(
                                                            ChangeStream.formatSequence(0))
                                                    .addAllPartitionTokens(tokens))
                                    .build(),
                            true);
        } else {
            List<ChildPartitionsRecord.Child> children = new ArrayList<>();
            tokens.forEach(t -> children.add(new ChildPartitionsRecord.Child(t, List.of())));
            entry =
                    new LogEntry(
                            startMicros,
                            0,
                            new ChildPartitionsRecord(startMicros, 0, children),
                            true);
        }
        if (!sink.isReady()) {
            return; // onReady wakes us up
        }
        send(entry);
        finish();
        sink.complete();
    }

    private void pumpPartition() {
        while (sink.isReady()) {
            Status failure = faults.failureFor(partition.token(), rowsSent);
            if (failure != null) {
                finish();
                sink.fail(failure.asRuntimeException());
                return;
            }
            long safe = stream.database().safeMicros();
            LogEntry e = partition.next(posMicros, posSequence, Math.min(endMicros, safe));
            if (e == null) {
                LogEntry terminal = partition.terminalEntry();
                if (terminal != null
                        && terminal.after(posMicros, posSequence)
                        && terminal.micros() <= endMicros
                        && terminal.micros() < startMicros) {
                    e = terminal; // a query starting after the partition ended still learns of it
                }
            }
            if (e != null) {
                long delayMs = faults.latencyFor(partition.token()).toMillis();
                if (delayMs > 0 && System.nanoTime() - lastSendNanos < delayMs * 1_000_000L) {
                    schedule(delayMs - (System.nanoTime() - lastSendNanos) / 1_000_000L);
                    return;
                }
                send(e);
                if (e.terminal()) {
                    finish();
                    sink.complete();
                    return;
                }
                continue;
            }
            if (endMicros != Long.MAX_VALUE && safe >= endMicros) {
                finish();
                sink.complete(); // the window ends with no final record
                return;
            }
            long sinceSendMicros = (System.nanoTime() - lastSendNanos) / 1000;
            if (safe >= startMicros && safe > posMicros && sinceSendMicros >= heartbeatMicros) {
                sendHeartbeat(safe);
                continue;
            }
            long waitMicros = Math.max(0, heartbeatMicros - sinceSendMicros);
            if (safe < startMicros) {
                waitMicros = Math.min(waitMicros, startMicros - safe);
            }
            if (endMicros != Long.MAX_VALUE) {
                waitMicros = Math.min(waitMicros, endMicros - safe);
            }
            schedule(Math.max(1, waitMicros / 1000));
            return;
        }
    }

    private void send(LogEntry e) {
        posMicros = e.micros();
        posSequence = e.sequence();
        emit(encoder.encode(e));
    }

    private void sendHeartbeat(long micros) {
        posMicros = micros;
        posSequence = Long.MAX_VALUE;
        emit(encoder.heartbeat(micros));
    }

    private void emit(com.google.protobuf.Value row) {
        sink.sendRow(row, encodeResumeToken(posMicros, posSequence));
        rowsSent++;
        lastSendNanos = System.nanoTime();
    }

    private void schedule(long delayMillis) {
        if (timer != null) {
            timer.cancel(false);
        }
        timer = scheduler.schedule(this::pump, delayMillis, TimeUnit.MILLISECONDS);
    }

    static ByteString encodeResumeToken(long micros, long sequence) {
        return ByteString.copyFrom("cs1:" + micros + ":" + sequence, StandardCharsets.UTF_8);
    }

    /**
     * @throws IllegalArgumentException for a token this emulator did not issue
     */
    static long[] decodeResumeToken(ByteString token) {
        String[] parts = token.toString(StandardCharsets.UTF_8).split(":");
        if (parts.length != 3 || !parts[0].equals("cs1")) {
            throw new IllegalArgumentException("Invalid resume token");
        }
        return new long[] {Long.parseLong(parts[1]), Long.parseLong(parts[2])};
    }
}
