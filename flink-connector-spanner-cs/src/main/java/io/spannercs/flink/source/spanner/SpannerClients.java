package io.spannercs.flink.source.spanner;

import com.google.auth.oauth2.GoogleCredentials;
import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.SpannerOptions;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.annotation.Internal;

/** Creates official Spanner clients from a source's configuration. */
@Internal
public final class SpannerClients {
    private SpannerClients() {}

    /** Streams one gRPC channel should carry: Spanner's front ends allow about 100 at once. */
    static final int STREAMS_PER_CHANNEL = 50;

    /** The client's own limit on channels. */
    static final int MAX_CHANNELS = 256;

    /** The client's default number of channels. */
    static final int DEFAULT_CHANNELS = 4;

    /**
     * A new client for short queries (the root query, detection; see {@link #open}); the caller
     * closes it with {@link #close}.
     */
    public static Spanner create(SpannerSourceConfig config) {
        return create(config, DEFAULT_CHANNELS);
    }

    /**
     * A new client for readers, with {@code channels} from {@link #channelsFor} the partition
     * queries they may keep open together.
     */
    static Spanner createForReaders(SpannerSourceConfig config, int channels) {
        return create(config, channels);
    }

    /**
     * Channels for this many concurrent streams: a channel carries about 100 concurrent streams and
     * further streams queue silently, so the channels are sized for half that (queries pick
     * channels at random once every channel has one, so some channels carry more than the mean).
     */
    static int channelsFor(int concurrentStreams) {
        int needed = (concurrentStreams + STREAMS_PER_CHANNEL - 1) / STREAMS_PER_CHANNEL;
        return Math.max(DEFAULT_CHANNELS, Math.min(MAX_CHANNELS, needed));
    }

    private static Spanner create(SpannerSourceConfig config, int channels) {
        SpannerOptions.Builder b =
                SpannerOptions.newBuilder()
                        .setNumChannels(channels)
                        .setProjectId(config.projectId())
                        // The built-in metrics export to Cloud Monitoring; Flink has its own.
                        .setBuiltInMetricsEnabled(false);
        if (config.emulatorHost() != null) {
            b.setEmulatorHost(config.emulatorHost()).setCredentials(NoCredentials.getInstance());
        } else if (config.credentialsFile() != null) {
            try (InputStream in = new FileInputStream(config.credentialsFile())) {
                b.setCredentials(GoogleCredentials.fromStream(in));
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "Cannot read the Spanner credentials file given as credentials: "
                                + config.credentialsFile(),
                        e);
            }
        }
        if (config.databaseRole() != null) {
            b.setDatabaseRole(config.databaseRole());
        }
        return open(b, config.projectId(), config.emulatorHost());
    }

    // ---- Client lifecycle: every client of the connector opens and closes here. ----

    /**
     * Builds and starts a client, after checking that an emulator answers (a client whose emulator
     * check fails leaves its channels open, and with them gRPC's threads). The caller closes it
     * with {@link #close}.
     *
     * <p>The client starts on a thread of its own, which this thread awaits without giving up on an
     * interrupt (and restores the interrupt afterwards): Flink interrupts a task's thread when it
     * cancels the task, and a client interrupted while it starts leaves its channels open with
     * nothing to close them. Starting also leaves thread locals on the thread it runs on.
     *
     * @throws IllegalStateException naming the endpoint and its option if it does not answer
     */
    public static Spanner open(
            SpannerOptions.Builder options, String projectId, String emulatorHost) {
        ClientThreads.acquire();
        try {
            FutureTask<Spanner> start =
                    new FutureTask<>(
                            () -> {
                                if (emulatorHost != null) {
                                    EmulatorCheck.check(emulatorHost, projectId);
                                }
                                return options.build().getService();
                            });
            Thread starter = new Thread(start, "spanner-cs-client-start");
            starter.setContextClassLoader(Thread.currentThread().getContextClassLoader());
            starter.setDaemon(true);
            starter.start();
            return awaitUninterruptibly(start);
        } catch (SpannerException e) {
            ClientThreads.release(true);
            throw new IllegalStateException(
                    "Cannot start the Spanner client: "
                            + SpannerErrors.describe(e)
                            + ". "
                            + SpannerErrors.endpointAdvice(emulatorHost),
                    SpannerErrors.forUsers(e));
        } catch (RuntimeException | Error e) {
            ClientThreads.release(true);
            throw e;
        }
    }

    /**
     * The task's result, waiting without giving up on an interrupt (restored afterwards); its
     * failure is rethrown as it was where unchecked.
     */
    static <T> T awaitUninterruptibly(FutureTask<T> task) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return task.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof RuntimeException r) {
                        throw r;
                    } else if (cause instanceof Error err) {
                        throw err;
                    }
                    throw new IllegalStateException(cause);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Closes a client from {@link #open}. With {@code awaitThreads}, the last client of this class
     * loader waits (bounded) until the client's and gRPC's threads have ended, so none outlives the
     * job; without it (a client closed while the source goes on) it returns at once.
     */
    public static void close(Spanner spanner, boolean awaitThreads) {
        if (spanner == null) {
            return;
        }
        try {
            spanner.close();
        } finally {
            ClientThreads.release(awaitThreads);
        }
    }

    /**
     * Runs {@code call} on a new thread named {@code name} and returns its result: for client work
     * on threads that outlive a job (the client leaves thread locals behind, which would keep the
     * job's class loader alive).
     */
    public static <T> T callOnOwnThread(String name, Callable<T> call) {
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t =
                new Thread(
                        () -> {
                            try {
                                result.set(call.call());
                            } catch (Throwable e) {
                                failure.set(e);
                            }
                        },
                        name);
        t.setContextClassLoader(Thread.currentThread().getContextClassLoader());
        t.setDaemon(true);
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            t.interrupt();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while " + name + " ran", e);
        }
        Throwable e = failure.get();
        if (e instanceof RuntimeException r) {
            throw r;
        } else if (e instanceof Error err) {
            throw err;
        } else if (e != null) {
            throw new IllegalStateException(e);
        }
        return result.get();
    }

    public static DatabaseClient databaseClient(Spanner spanner, SpannerSourceConfig config) {
        return spanner.getDatabaseClient(
                DatabaseId.of(config.projectId(), config.instanceId(), config.databaseId()));
    }
}
