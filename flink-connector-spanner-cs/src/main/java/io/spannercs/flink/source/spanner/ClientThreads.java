package io.spannercs.flink.source.spanner;

import io.grpc.internal.SharedResourceHolder;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the official client's threads end with the last client of this class loader, so that a
 * job's user-code class loader (which loaded this class when the connector came with the job, e.g.
 * through {@code ADD JAR}) can be collected once the job ends.
 *
 * <p>What kept it alive, measured with the 6.127 client: two static executors of the client that
 * never end their threads ({@code MultiplexedSessionDatabaseClient}'s {@code
 * multiplexed-session-maintainer} and grpc-gcp's {@code gcp-mc-bg-*}), and gRPC's shared event loop
 * and executor threads, which {@code Spanner.close()} releases only about a second after it returns
 * (and which then fail with {@code NoClassDefFoundError} once Flink has closed the class loader).
 * The static executors are told to let idle threads end; the last {@link #release} waits (bounded)
 * for every client thread of this class loader to end (when this class came with the job: with the
 * connector in Flink's lib/ there is nothing to free). gRPC's shared threads that another gRPC
 * client of the class loader still uses (a Pub/Sub sink of the same job) end with that client: the
 * wait gives them {@link #SHARED_GRPC_GRACE}, not the whole {@link #AWAIT}.
 *
 * <p>State is static on purpose: one count per class loader, which is what the threads pin.
 */
@Internal
public final class ClientThreads {
    private static final Logger LOG = LoggerFactory.getLogger(ClientThreads.class);

    /** How long the last close waits for the client's threads to end. */
    static final Duration AWAIT = Duration.ofSeconds(15);

    /**
     * How long the last close waits before it takes gRPC's shared threads, while a channel of this
     * class loader still uses them, as another gRPC client's (a Pub/Sub sink's in the same job):
     * they end when that client closes, and waiting longer only delays this task's end. gRPC
     * releases them a second after the last channel.
     */
    static final Duration SHARED_GRPC_GRACE = Duration.ofSeconds(2);

    /** Idle time after which a thread of the client's static executors ends. */
    private static final long IDLE_MILLIS = 1000;

    /** Thread name prefixes of the client, gRPC, grpc-gcp, Netty and this connector. */
    private static final List<String> CLIENT_THREAD_PREFIXES =
            List.of(
                    "grpc-",
                    "multiplexed-session-maintainer",
                    "gcp-mc-bg",
                    "Cloud-Spanner-",
                    "Gax-",
                    "globalEventExecutor",
                    "spanner-cs-");

    private static int open; // guarded by ClientThreads.class
    private static boolean executorsTamed; // guarded by ClientThreads.class

    private ClientThreads() {}

    /** A client of this class loader is about to be created. */
    static synchronized void acquire() {
        if (!executorsTamed) {
            letIdleThreadsEnd(
                    "com.google.cloud.spanner.MultiplexedSessionDatabaseClient",
                    "MAINTAINER_SERVICE");
            letIdleThreadsEnd(
                    "com.google.cloud.grpc.GcpManagedChannel", "SHARED_BACKGROUND_SERVICE");
            executorsTamed = true;
        }
        if (open++ == 0) {
            ClientLogging.install();
        }
    }

    /**
     * A client of this class loader was closed (or failed to open). The last one waits for the
     * client's threads to end if {@code await} is set.
     */
    static void release(boolean await) {
        boolean last;
        synchronized (ClientThreads.class) {
            last = --open == 0;
        }
        if (last && await) {
            awaitClientThreadsEnded();
        }
        synchronized (ClientThreads.class) {
            if (open == 0) {
                ClientLogging.uninstall();
            }
        }
    }

    /**
     * Waits (bounded) until no client thread of this class loader is alive, unless a client is
     * open; logs those still alive after {@link #AWAIT}.
     */
    public static void awaitClientThreadsEnded() {
        if (!ownClassLoader()) {
            return;
        }
        long start = System.nanoTime();
        long deadline = start + AWAIT.toNanos();
        long graceEnd = start + SHARED_GRPC_GRACE.toNanos();
        List<Thread> alive = clientThreads();
        while (!alive.isEmpty() && System.nanoTime() < deadline) {
            synchronized (ClientThreads.class) {
                if (open > 0) {
                    return; // a new client uses them
                }
            }
            if (System.nanoTime() >= graceEnd && onlyGrpcShared(alive) && grpcSharedInUse()) {
                LOG.debug(
                        "gRPC's shared threads {} serve another gRPC client of this class loader"
                                + " (not the Spanner client's, which is closed): they end when it"
                                + " closes",
                        alive.stream().map(Thread::getName).toList());
                return;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            alive = clientThreads();
        }
        if (!alive.isEmpty()) {
            LOG.warn(
                    "Threads of the Spanner client still run {} s after it was closed: {}",
                    AWAIT.toSeconds(),
                    alive.stream().map(Thread::getName).toList());
        }
    }

    private static boolean onlyGrpcShared(List<Thread> threads) {
        return threads.stream().allMatch(t -> t.getName().startsWith("grpc-"));
    }

    /**
     * Whether a channel or server of this class loader holds one of gRPC's shared resources (event
     * loops, executors, timers) now. False where gRPC's internals differ from the version this was
     * written against (1.83): the close then waits as long as before.
     */
    @VisibleForTesting
    static boolean grpcSharedInUse() {
        try {
            Field holderField = SharedResourceHolder.class.getDeclaredField("holder");
            holderField.setAccessible(true);
            Object holder = holderField.get(null);
            Field instancesField = SharedResourceHolder.class.getDeclaredField("instances");
            instancesField.setAccessible(true);
            synchronized (holder) { // gRPC's own lock of the map
                for (Object instance : ((Map<?, ?>) instancesField.get(holder)).values()) {
                    Field refcount = instance.getClass().getDeclaredField("refcount");
                    refcount.setAccessible(true);
                    if (refcount.getInt(instance) > 0) {
                        return true;
                    }
                }
            }
            return false;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Live threads of the client, gRPC and this connector that belong to this class loader: their
     * class or their context class loader is this class's loader.
     */
    @VisibleForTesting
    static List<Thread> clientThreads() {
        ClassLoader mine = ClientThreads.class.getClassLoader();
        List<Thread> out = new ArrayList<>();
        for (Thread t : allThreads()) {
            if (t == Thread.currentThread() || !t.isAlive() || !isClientThreadName(t.getName())) {
                continue;
            }
            if (t.getClass().getClassLoader() == mine || t.getContextClassLoader() == mine) {
                out.add(t);
            }
        }
        return out;
    }

    /**
     * Whether this class came with a job (or a session's {@code ADD JAR}) rather than with the
     * application's class path (Flink's lib/, a test): only then is there a class loader to free,
     * and only then are the matching threads surely the client's (an in-JVM emulator's gRPC threads
     * match the names too).
     */
    private static boolean ownClassLoader() {
        ClassLoader mine = ClientThreads.class.getClassLoader();
        return mine != null
                && mine != ClassLoader.getSystemClassLoader()
                && mine != ClassLoader.getPlatformClassLoader();
    }

    static boolean isClientThreadName(String name) {
        for (String prefix : CLIENT_THREAD_PREFIXES) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    private static Thread[] allThreads() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] threads = new Thread[root.activeCount() + 16];
        int n;
        while ((n = root.enumerate(threads, true)) == threads.length) {
            threads = new Thread[threads.length * 2];
        }
        Thread[] out = new Thread[n];
        System.arraycopy(threads, 0, out, 0, n);
        return out;
    }

    /**
     * Lets the threads of one of the client's static scheduled executors end when idle. The
     * executor stays usable: a later task starts a thread again. Cancelled tasks leave its queue at
     * once, so the thread is idle as soon as the last client has cancelled its tasks.
     */
    private static void letIdleThreadsEnd(String className, String fieldName) {
        try {
            Class<?> owner = Class.forName(className, false, ClientThreads.class.getClassLoader());
            Field field = owner.getDeclaredField(fieldName);
            field.setAccessible(true);
            if (field.get(null) instanceof ScheduledThreadPoolExecutor executor) {
                executor.setRemoveOnCancelPolicy(true);
                executor.setKeepAliveTime(IDLE_MILLIS, TimeUnit.MILLISECONDS);
                executor.allowCoreThreadTimeOut(true);
            } else {
                LOG.warn(
                        "{}.{} is not a ScheduledThreadPoolExecutor; its threads may outlive the"
                                + " job",
                        className,
                        fieldName);
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            // Another client version: the last close still waits, and logs what did not end.
            LOG.warn(
                    "Cannot reach {}.{} of the Spanner client ({}); its threads may outlive the"
                            + " job",
                    className,
                    fieldName,
                    e.toString());
        }
    }
}
