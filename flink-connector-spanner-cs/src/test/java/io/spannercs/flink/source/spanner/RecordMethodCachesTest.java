package io.spannercs.flink.source.spanner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.ref.WeakReference;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A class loader whose record's methods were the last ones built in the JVM can be collected after
 * {@link RecordMethodCaches#release}; on Java 17 it cannot without it (the negative control), which
 * is what kept a job's class loader alive on a session cluster's JobManager.
 */
class RecordMethodCachesTest {

    /** Loaded again in a class loader of its own, like a job's classes. */
    public enum Kind {
        ONE
    }

    /** Its methods adapt the JDK's shared handles to {@link Kind} and to itself. */
    public record Probe(Kind kind, String name) {}

    @Test
    void releaseLetsTheLastRecordsClassLoaderGo() throws Exception {
        WeakReference<ClassLoader> loader = useRecordInOwnLoader();
        RecordMethodCaches.release();
        awaitCollected(loader, Duration.ofSeconds(30));
    }

    @Test
    void withoutReleaseJava17KeepsTheClassLoader() throws Exception {
        assumeTrue(
                Runtime.version().feature() < 18,
                "JDK-8078641 is fixed from Java 18: nothing to show");
        WeakReference<ClassLoader> loader = useRecordInOwnLoader();
        try {
            // A full collection (System.gc() without -XX:+ExplicitGCInvokesConcurrent) clears
            // every weak reference to an object no longer strongly reachable: three in a row
            // that leave this one show the JDK's caches hold it, with no time to wait out.
            for (int i = 0; i < 3; i++) {
                System.gc();
            }
            assertThat(loader.get()).as("class loader collected without release").isNotNull();
        } finally {
            RecordMethodCaches.release();
        }
    }

    /** Calls the three record methods of {@link Probe} loaded by a new class loader. */
    private static WeakReference<ClassLoader> useRecordInOwnLoader() throws Exception {
        URL classes =
                RecordMethodCachesTest.class.getProtectionDomain().getCodeSource().getLocation();
        URLClassLoader loader =
                new URLClassLoader(new URL[] {classes}, ClassLoader.getPlatformClassLoader());
        Class<?> kind = loader.loadClass(Kind.class.getName());
        Class<?> probe = loader.loadClass(Probe.class.getName());
        assertThat(probe).isNotSameAs(Probe.class);
        Object one = kind.getEnumConstants()[0];
        Object a = probe.getDeclaredConstructor(kind, String.class).newInstance(one, "a");
        Object b = probe.getDeclaredConstructor(kind, String.class).newInstance(one, "b");
        assertThat(a.toString()).isEqualTo("Probe[kind=ONE, name=a]");
        assertThat(a.equals(b)).isFalse();
        assertThat(a.hashCode()).isNotEqualTo(b.hashCode());
        loader.close();
        return new WeakReference<>(loader);
    }

    /**
     * Collects garbage until the class loader is gone; fails saying what still holds it when it is
     * not within {@code limit} (one full collection normally suffices).
     */
    private static void awaitCollected(WeakReference<ClassLoader> loader, Duration limit)
            throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (loader.get() != null) {
            if (System.nanoTime() >= deadline) {
                throw new AssertionError(
                        "the job's class loader is still strongly reachable "
                                + limit
                                + " after RecordMethodCaches.release(): the JDK's record method"
                                + " caches (JDK-8078641) or another reference still hold it");
            }
            System.gc();
            Thread.sleep(10); // lets reference processing finish before looking again
        }
    }
}
