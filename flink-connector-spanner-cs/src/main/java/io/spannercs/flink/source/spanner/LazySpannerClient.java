package io.spannercs.flink.source.spanner;

import com.google.cloud.spanner.Spanner;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;
import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client opened once, when first needed, and released with its owner: every user of the Spanner
 * client in the connector holds one. A reader starts opening it in the background when it starts
 * ({@link #openInBackground}), so that its first partition does not wait for a client to start: on
 * a TaskManager that has not run the connector yet, that takes as long as the enumerator's listing
 * of the first partitions, which it now overlaps. Readers in one TaskManager share clients where
 * their channels allow ({@link SharedReaderClients}); the enumerator's short queries (the root
 * query, snapshot planning) have a small client of their own ({@link #ownClient}).
 */
@Internal
public final class LazySpannerClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LazySpannerClient.class);

    /** An open client and how to give it back. */
    interface Lease extends AutoCloseable {
        Spanner spanner();

        /** Closes the client unless another owner shares it, waiting for its threads to end. */
        @Override
        void close();
    }

    private final Callable<Lease> opener;
    private final String closedMessage;
    private FutureTask<Lease> opening; // guarded by this
    private boolean closed; // guarded by this

    /** A reader's client, shared with the other readers of the TaskManager where room allows. */
    public LazySpannerClient(SpannerSourceConfig config) {
        this(() -> SharedReaderClients.acquire(config), "The Spanner client was closed");
    }

    private LazySpannerClient(Callable<Lease> opener, String closedMessage) {
        this.opener = opener;
        this.closedMessage = closedMessage;
    }

    /**
     * A client of the default size for the short queries of one owner, shared with nobody; its
     * close waits (bounded) for the client's threads to end, so that none outlives the job.
     *
     * @param owner what uses it, for the error of a use after {@link #close}: "The root query"
     */
    static LazySpannerClient ownClient(SpannerSourceConfig config, String owner) {
        return ownClient(() -> SpannerClients.create(config), owner, true);
    }

    /**
     * A client shared with nobody, opened by {@code open} (a client from {@link
     * SpannerClients#open}).
     *
     * @param owner what uses it, for the error of a use after {@link #close}
     * @param awaitThreads whether {@link #close} waits for the client's threads to end; not where
     *     the caller goes on in a class loader that outlives them anyway (the job's command line, a
     *     SQL session planning), as the threads end within about a second by themselves
     */
    static LazySpannerClient ownClient(Callable<Spanner> open, String owner, boolean awaitThreads) {
        return new LazySpannerClient(
                () -> {
                    Spanner spanner = open.call();
                    return new Lease() {
                        @Override
                        public Spanner spanner() {
                            return spanner;
                        }

                        @Override
                        public void close() {
                            SpannerClients.close(spanner, awaitThreads);
                        }
                    };
                },
                owner + " was cancelled: the source is closing");
    }

    /** Starts opening the client on a thread of its own, unless it is open or opening already. */
    public void openInBackground() {
        FutureTask<Lease> task;
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

    private FutureTask<Lease> newOpening() {
        return new FutureTask<>(opener);
    }

    /**
     * The client, opened here if it is not open yet (waiting for an opening in the background). A
     * failed opening is tried again by the next call.
     *
     * @throws IllegalStateException after {@link #close}, or naming the endpoint if the client
     *     cannot start
     */
    public Spanner get() {
        FutureTask<Lease> task;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException(closedMessage);
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
        FutureTask<Lease> task;
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
        Lease lease;
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
