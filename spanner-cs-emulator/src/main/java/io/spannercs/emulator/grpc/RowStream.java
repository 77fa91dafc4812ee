package io.spannercs.emulator.grpc;

import com.google.protobuf.Value;
import com.google.spanner.v1.PartialResultSet;
import com.google.spanner.v1.ResultSetMetadata;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.spannercs.emulator.changestream.FaultInjector;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Streams the rows of a table read or query, one {@link PartialResultSet} per row, each with a
 * resume token holding the read timestamp and the rows sent so far, so the client can resume a
 * broken stream exactly where it stopped (and delivers rows at once instead of holding them back
 * until the stream ends). Honours flow control, and the read faults of the {@link FaultInjector} (a
 * failure after some rows, a delay per row, a hold).
 */
final class RowStream {
    /** How often a held read (a test fault) looks whether it was released. */
    private static final long HELD_POLL_MILLIS = 5;

    private final ServerCallStreamObserver<PartialResultSet> call;
    private final ResultSetMetadata metadata;
    private final List<List<Value>> rows;
    private final long readMicros;
    private final int alreadySent;
    private final String table;
    private final FaultInjector faults;
    private final ScheduledExecutorService scheduler;
    private final Duration latency;

    private int next;
    private int sentHere;
    private boolean metadataSent;
    private boolean done;

    /**
     * @param rows the rows still to send (after those a resume token says were sent)
     * @param alreadySent rows sent by earlier streams of this read (from the resume token)
     * @param table the table read, for read fault rules; null for no faults (literals,
     *     information_schema)
     */
    RowStream(
            ServerCallStreamObserver<PartialResultSet> call,
            ResultSetMetadata metadata,
            List<List<Value>> rows,
            long readMicros,
            int alreadySent,
            String table,
            FaultInjector faults,
            ScheduledExecutorService scheduler) {
        this.call = call;
        this.metadata = metadata;
        this.rows = rows;
        this.readMicros = readMicros;
        this.alreadySent = alreadySent;
        this.table = table;
        this.faults = faults;
        this.scheduler = scheduler;
        this.latency = table == null ? Duration.ZERO : faults.readLatencyFor(table);
    }

    /** Starts sending; call from the service method so the ready handler is registered in time. */
    void start() {
        call.setOnCancelHandler(this::cancelled);
        if (latency.isZero()) {
            call.setOnReadyHandler(this::pump);
            pump();
        } else {
            scheduler.schedule(this::sendDelayed, latency.toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    private synchronized void cancelled() {
        done = true;
    }

    /** Sends while the transport takes more. */
    private synchronized void pump() {
        while (!done && call.isReady()) {
            if (held()) {
                scheduler.schedule(this::pump, HELD_POLL_MILLIS, TimeUnit.MILLISECONDS);
                return;
            }
            sendNext();
        }
    }

    private boolean held() {
        return table != null && faults.isReadHeld(table);
    }

    /** With a per-row delay: one row, then the next after the delay. */
    private synchronized void sendDelayed() {
        if (done) {
            return;
        }
        if (!call.isReady() || held()) {
            scheduler.schedule(this::sendDelayed, HELD_POLL_MILLIS, TimeUnit.MILLISECONDS);
            return;
        }
        sendNext();
        if (!done) {
            scheduler.schedule(this::sendDelayed, latency.toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    private void sendNext() {
        try {
            if (table != null) {
                Status failure = faults.readFailureFor(table, sentHere);
                if (failure != null) {
                    done = true;
                    call.onError(failure.asRuntimeException());
                    return;
                }
            }
            if (next >= rows.size()) {
                done = true;
                if (!metadataSent) {
                    call.onNext(PartialResultSet.newBuilder().setMetadata(metadata).build());
                }
                call.onCompleted();
                return;
            }
            List<Value> row = rows.get(next++);
            sentHere++;
            PartialResultSet.Builder b =
                    PartialResultSet.newBuilder()
                            .addAllValues(row)
                            .setResumeToken(Tokens.resumeToken(readMicros, alreadySent + sentHere));
            if (!metadataSent) {
                b.setMetadata(metadata);
                metadataSent = true;
            }
            call.onNext(b.build());
        } catch (RuntimeException e) {
            // The call was cancelled or closed under us: nothing more to send.
            done = true;
        }
    }
}
