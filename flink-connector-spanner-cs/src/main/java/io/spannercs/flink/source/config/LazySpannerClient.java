package io.spannercs.flink.source.config;

import com.google.cloud.spanner.Spanner;
import org.apache.flink.annotation.Internal;

/**
 * A client opened on first use and closed with its owner. A reader opens its client only when it
 * gets its first partition: a job that fails before (e.g. its enumerator cannot list the first
 * partitions) then starts no reader clients, fails sooner and has fewer threads to wind down.
 */
@Internal
public final class LazySpannerClient implements AutoCloseable {
    private final SpannerSourceConfig config;
    private Spanner spanner; // guarded by this
    private boolean closed; // guarded by this

    public LazySpannerClient(SpannerSourceConfig config) {
        this.config = config;
    }

    /**
     * @throws IllegalStateException after {@link #close}
     */
    public synchronized Spanner get() {
        if (closed) {
            throw new IllegalStateException("The Spanner client was closed");
        }
        if (spanner == null) {
            spanner = SpannerClients.createForReader(config);
        }
        return spanner;
    }

    /**
     * Closes the client if it was opened, and waits (bounded) until the client's and the
     * connector's threads of this class loader have ended, unless another client is open.
     */
    @Override
    public void close() {
        Spanner opened;
        synchronized (this) {
            closed = true;
            opened = spanner;
            spanner = null;
        }
        if (opened != null) {
            SpannerClients.close(opened, true);
        } else {
            ClientThreads.awaitClientThreadsEnded();
        }
    }
}
