package io.spannercs.benchmarks;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.logging.Level;
import java.util.logging.Logger;

/** What every benchmark prints first: the machine it ran on. */
final class BenchReport {
    // The client logs its options and channel pools at INFO (java.util.logging) per client.
    // Held here: java.util.logging keeps only weak references to loggers.
    private static final Logger GOOGLE_CLOUD_LOG = Logger.getLogger("com.google.cloud");

    private BenchReport() {}

    static void machine(PrintStream out) {
        GOOGLE_CLOUD_LOG.setLevel(Level.WARNING);
        Runtime rt = Runtime.getRuntime();
        out.printf(
                Locale.ROOT,
                "Machine: %d cores, load average %.2f, Java %s, max heap %,d MiB%n",
                rt.availableProcessors(),
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                System.getProperty("java.version"),
                rt.maxMemory() / (1024 * 1024));
    }
}
