package io.spannercs.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Where a read's CPU went, by thread group: samples every thread's CPU time every 20 ms (threads of
 * a finished job are gone by its end, so their last sample counts). What the process used beyond
 * its Java threads is the JIT compiler and the garbage collector (read from /proc) and the VM.
 */
final class ThreadCpuSampler implements AutoCloseable {
    private static final String[][] GROUPS = {
        {"spanner-cs-query", "source query threads"},
        {"plain-partition-reader", "plain reader threads"},
        {"Source Data Fetcher", "source fetcher"},
        {"SourceCoordinator", "enumerator"},
        {"Source: ", "source task"},
        {"flink-pekko", "Flink RPC"},
        {"grpc-default-worker", "gRPC netty"},
        {"grpc-default-executor", "gRPC executor"},
        {"spanner-cs-emulator", "emulator"},
    };

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final Map<Long, Long> first = new HashMap<>();
    private final Map<Long, Long> last = new HashMap<>();
    private final Map<Long, String> names = new HashMap<>();
    private final long processStart = ChurnReads.processCpuNanos();
    private final Map<String, Long> vmStart = vmThreadsCpuNanos();
    private final Thread sampler;
    private volatile boolean running = true;

    ThreadCpuSampler() {
        sample(true);
        sampler =
                new Thread(
                        () -> {
                            while (running) {
                                sample(false);
                                try {
                                    Thread.sleep(20);
                                } catch (InterruptedException e) {
                                    return;
                                }
                            }
                        },
                        "benchmark-cpu-sampler");
        sampler.setDaemon(true);
        sampler.start();
    }

    private synchronized void sample(boolean initial) {
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info == null) {
                continue;
            }
            long cpu = threads.getThreadCpuTime(info.getThreadId());
            if (cpu < 0) {
                continue;
            }
            long id = info.getThreadId();
            if (initial) {
                first.put(id, cpu);
            } else {
                first.putIfAbsent(id, 0L); // started during the read
            }
            last.put(id, cpu);
            names.put(id, info.getThreadName());
        }
    }

    /** CPU seconds per group, most first, from the start to now. */
    String breakdown() throws InterruptedException {
        running = false;
        sampler.join();
        sample(false);
        long process = ChurnReads.processCpuNanos() - processStart;
        Map<String, Long> byGroup = new LinkedHashMap<>();
        long java = 0;
        synchronized (this) {
            for (Map.Entry<Long, Long> e : last.entrySet()) {
                long used = e.getValue() - first.getOrDefault(e.getKey(), 0L);
                if (used <= 0) {
                    continue;
                }
                java += used;
                byGroup.merge(group(names.get(e.getKey())), used, Long::sum);
            }
        }
        Map<String, Long> vm = vmThreadsCpuNanos();
        long vmTotal = 0;
        for (Map.Entry<String, Long> e : vm.entrySet()) {
            long used = e.getValue() - vmStart.getOrDefault(e.getKey(), 0L);
            vmTotal += used;
            byGroup.merge(e.getKey(), used, Long::sum);
        }
        byGroup.put("other VM", Math.max(0, process - java - vmTotal));
        StringJoiner out = new StringJoiner(", ");
        byGroup.entrySet().stream()
                .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
                .filter(e -> e.getValue() >= 50_000_000L)
                .forEach(
                        e ->
                                out.add(
                                        String.format(
                                                Locale.ROOT,
                                                "%s %.1f",
                                                e.getKey(),
                                                e.getValue() / 1e9)));
        return out.toString();
    }

    /**
     * CPU of the JVM's own threads (JIT compilers, garbage collector), which Java does not list:
     * from /proc (Linux), by kind; empty elsewhere.
     */
    private static Map<String, Long> vmThreadsCpuNanos() {
        Map<String, Long> out = new HashMap<>();
        java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
        if (tasks == null) {
            return out;
        }
        long tickNanos = 10_000_000L; // USER_HZ is 100 on Linux
        for (java.io.File task : tasks) {
            try {
                String stat =
                        java.nio.file.Files.readString(new java.io.File(task, "stat").toPath());
                int open = stat.indexOf('(');
                int close = stat.lastIndexOf(')');
                String comm = stat.substring(open + 1, close);
                String kind =
                        comm.contains("CompilerThre")
                                ? "JIT"
                                : comm.startsWith("GC Thread") || comm.startsWith("G1 ")
                                        ? "GC"
                                        : null;
                if (kind == null) {
                    continue;
                }
                String[] f = stat.substring(close + 2).split(" ");
                // Fields 14 and 15 of stat (utime, stime) are 12 and 13 after the name.
                long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                out.merge(kind, ticks * tickNanos, Long::sum);
            } catch (java.io.IOException | RuntimeException e) {
                // the thread ended meanwhile
            }
        }
        return out;
    }

    private static String group(String name) {
        for (String[] g : GROUPS) {
            if (name.contains(g[0])) {
                return g[1];
            }
        }
        return "other Java threads";
    }

    @Override
    public void close() {
        running = false;
    }
}
