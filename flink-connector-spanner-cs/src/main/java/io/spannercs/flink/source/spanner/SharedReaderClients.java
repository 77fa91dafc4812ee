package io.spannercs.flink.source.spanner;

import com.google.cloud.spanner.Spanner;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.FutureTask;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Spanner clients of the readers in one TaskManager: readers that connect the same way
 * (project, endpoint, credentials, role) share a client while its channels can carry all their
 * partition queries, so a TaskManager with several slots starts one client, one multiplexed session
 * and one set of channels for them instead of one per reader.
 *
 * <p>A client gets channels for {@link #READERS_PER_CLIENT} times the partition queries its first
 * reader may keep open, at half of what Spanner's front ends allow per channel (see {@link
 * SpannerClients#channelsFor}: queries pick channels at random, so the mean stays well below the
 * limit of about 100). It takes further readers while the most queries they may keep open together
 * stay within that sizing; beyond it a reader opens a client of its own. With the default 1,000
 * queries per reader, two readers share a client of 40 channels.
 *
 * <p>State is static on purpose: one registry per class loader, i.e. per job where the connector
 * comes with the job, per TaskManager where it is in Flink's lib/. The last reader of a client
 * closes it.
 */
@Internal
public final class SharedReaderClients {
    private static final Logger LOG = LoggerFactory.getLogger(SharedReaderClients.class);

    /** Readers of the same size a new client is sized for. */
    static final int READERS_PER_CLIENT = 2;

    private static final List<Shared> CLIENTS = new ArrayList<>(); // guarded by the class

    private SharedReaderClients() {}

    /** How a client connects: readers with the same connection may share it. */
    private record Connection(
            String projectId, String emulatorHost, String credentialsFile, String databaseRole) {
        static Connection of(SpannerSourceConfig config) {
            return new Connection(
                    config.projectId(),
                    config.emulatorHost(),
                    config.credentialsFile(),
                    config.databaseRole());
        }
    }

    /** One client and the readers using it. */
    private static final class Shared {
        final Connection connection;
        final int capacity;
        final FutureTask<Spanner> start;
        int streams; // guarded by SharedReaderClients.class
        int users; // guarded by SharedReaderClients.class

        Shared(Connection connection, int channels, FutureTask<Spanner> start) {
            this.connection = connection;
            this.capacity = channels * SpannerClients.STREAMS_PER_CHANNEL;
            this.start = start;
        }
    }

    /** A reader's use of a shared client; closing it closes the client after its last user. */
    public static final class Lease implements LazySpannerClient.Lease {
        private final Shared shared;
        private final Spanner spanner;
        private final int streams;
        private boolean closed; // guarded by this

        private Lease(Shared shared, Spanner spanner, int streams) {
            this.shared = shared;
            this.spanner = spanner;
            this.streams = streams;
        }

        @Override
        public Spanner spanner() {
            return spanner;
        }

        @Override
        public void close() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
            }
            release(shared, streams);
        }
    }

    /**
     * A client for a reader that keeps up to {@code config.maxConcurrentPartitionsPerReader()}
     * partition queries open: a shared one where one has room, else a new one. Waits while another
     * reader starts the client it shares (not giving up on an interrupt, like {@link
     * SpannerClients#open}).
     *
     * @throws IllegalStateException naming the endpoint if the client cannot start
     */
    public static Lease acquire(SpannerSourceConfig config) {
        Connection connection = Connection.of(config);
        int streams = config.maxConcurrentPartitionsPerReader();
        Shared shared;
        boolean starter = false;
        synchronized (SharedReaderClients.class) {
            shared = withRoom(connection, streams);
            if (shared == null) {
                int channels =
                        SpannerClients.channelsFor(
                                (int)
                                        Math.min(
                                                Integer.MAX_VALUE,
                                                (long) READERS_PER_CLIENT * streams));
                shared =
                        new Shared(
                                connection,
                                channels,
                                new FutureTask<>(
                                        () -> SpannerClients.createForReaders(config, channels)));
                CLIENTS.add(shared);
                starter = true;
            }
            shared.streams += streams;
            shared.users++;
        }
        if (starter) {
            shared.start.run(); // SpannerClients.open keeps interrupts out of the client's start
        }
        try {
            Spanner spanner = SpannerClients.awaitUninterruptibly(shared.start);
            if (!starter) {
                LOG.debug("A reader shares the Spanner client of another reader");
            }
            return new Lease(shared, spanner, streams);
        } catch (RuntimeException | Error e) {
            synchronized (SharedReaderClients.class) {
                shared.streams -= streams;
                shared.users--;
                CLIENTS.remove(shared); // a failed start is not reused: the next reader tries anew
            }
            throw e;
        }
    }

    /** A started or starting client for the connection with room for more streams, or null. */
    private static Shared withRoom(Connection connection, int streams) {
        for (Shared s : CLIENTS) {
            if (s.connection.equals(connection) && (long) s.streams + streams <= s.capacity) {
                return s;
            }
        }
        return null;
    }

    private static void release(Shared shared, int streams) {
        boolean last;
        synchronized (SharedReaderClients.class) {
            shared.streams -= streams;
            last = --shared.users == 0;
            if (last) {
                CLIENTS.remove(shared);
            }
        }
        if (last) {
            // Started, or the lease would not exist.
            SpannerClients.close(SpannerClients.awaitUninterruptibly(shared.start), true);
        }
    }

    /** Clients open in this class loader (for tests). */
    @VisibleForTesting
    static synchronized int openClients() {
        return CLIENTS.size();
    }
}
