package io.spannercs.testcluster;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** {@code jcmd} against a cluster JVM: diagnostics, full GCs and the class loaders still alive. */
public final class Jcmd {
    /** Flink's user-code class loader: one per job unless the job's jar is in lib/. */
    private static final String USER_CODE_LOADER = "ChildFirstClassLoader";

    private Jcmd() {}

    /** {@code jcmd <pid> <command>}: what it printed. */
    public static String run(Process p, String command) throws Exception {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process c =
                new ProcessBuilder(jcmd.toString(), String.valueOf(p.pid()), command)
                        .redirectErrorStream(true)
                        .start();
        String out = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!c.waitFor(60, TimeUnit.SECONDS)) {
            c.destroyForcibly();
            throw new AssertionError("jcmd " + p.pid() + " " + command + " did not end in 60 s");
        }
        return out;
    }

    /**
     * Runs full GCs ({@code GC.run}) until {@code VM.classloader_stats} shows no user-code class
     * loader, or {@code limit} has passed (a loader whose last references a cleaner drops goes only
     * at a later GC); returns the last {@code VM.classloader_stats}.
     */
    public static String classLoaderStatsAfterFullGcs(Process p, Duration limit) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            run(p, "GC.run");
            String stats = run(p, "VM.classloader_stats");
            if (userCodeClassLoaders(stats) == 0 || System.nanoTime() > deadline) {
                return stats;
            }
            Thread.sleep(250); // polls: lets reference processing run before the next GC
        }
    }

    /** How many user-code class loaders a {@code VM.classloader_stats} output lists. */
    public static long userCodeClassLoaders(String classLoaderStats) {
        return classLoaderStats.lines().filter(l -> l.contains(USER_CODE_LOADER)).count();
    }
}
