package io.spannercs.flink.source.config;

import com.google.cloud.spanner.Spanner;
import java.util.concurrent.FutureTask;
import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reader's client, opened once and released with its owner. A reader starts opening it in the
 * background when it starts ({@link #openInBackground}), so that its first partition does not wait
 * for a client to start: on a TaskManager that has not run the connector yet, that takes as long as
 * the enumerator's listing of the first partitions, which it now overlaps. Readers in one
 * TaskManager share clients where their channels allow ({@link SharedReaderClients}).
 */
@Internal
public final class LazySpannerClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LazySpannerClient.class);

    private final SpannerSourceConfig config;
    private FutureTask<SharedReaderClients.Lease> opening; // guarded by this
    private boolean closed; // guarded by this

    public LazySpannerClient(SpannerSourceConfig config) {
        this.config = config;
    }

    /** Starts opening the client on a thread of its own, unless it is open or opening already. */
    public void openInBackground() {
        FutureTask<SharedReaderClients.Lease> task;
        synchronized (this) {
            if (closed || opening != null) {
                return;
            }
            task = newOpening();
            opening = task;
        }
        Thread t = new Thread(task, "spanner-cs-client-open");
        t.setContextClassLoader(Thread.currentThread().getContextClassLoader());
        t.setDaemon(true);
        t.start();
    }

    private FutureTask<SharedReaderClients.Lease> newOpening() {
        return new FutureTask<>(() -> SharedReaderClients.acquire(config));
    }

    /**
     * The client, opened here if it is not open yet (waiting for an opening in the background). A
     * failed opening is tried again by the next call.
     *
     * @throws IllegalStateException after {@link #close}, or naming the endpoint if the client
     *     cannot start
     */
    public Spanner get() {
        FutureTask<SharedReaderClients.Lease> task;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("The Spanner client was closed");
            }
            if (opening == null) {
                opening = newOpening();
            }
            task = opening;
        }
        task.run(); // does nothing if it runs or ran already
        try {
            return SpannerClients.awaitUninterruptibly(task).spanner();
        } catch (RuntimeException | Error e) {
            synchronized (this) {
                if (opening == task) {
                    opening = null;
                }
            }
            throw e;
        }
    }

    /**
     * Releases the client (closing it unless another reader shares it), after waiting for an
     * opening in progress so that no client outlives its reader, and waits (bounded) until the
     * client's and the connector's threads of this class loader have ended, unless another client
     * is open.
     */
    @Override
    public void close() {
        FutureTask<SharedReaderClients.Lease> task;
        synchronized (this) {
            closed = true;
            task = opening;
            opening = null;
        }
        if (task == null) {
            ClientThreads.awaitClientThreadsEnded();
            return;
        }
        task.run(); // an opening is always started; this only wins the race with its thread
        SharedReaderClients.Lease lease;
        try {
            lease = SpannerClients.awaitUninterruptibly(task);
        } catch (RuntimeException | Error e) {
            // It never opened: its failure went to get()'s caller or is the job's failure anyway.
            LOG.debug("The reader's Spanner client did not open: {}", e.toString());
            ClientThreads.awaitClientThreadsEnded();
            return;
        }
        lease.close();
    }
}
