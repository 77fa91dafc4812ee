package io.spannercs.benchmarks;

import java.util.List;

/**
 * A database holding a history for {@link ChurnBenchmark} to read: where it is and what was
 * committed. It travels to a reader's own JVM as command-line arguments.
 *
 * @param checksum the {@link Checksum} of every committed change, or {@link #UNKNOWN_CHECKSUM}
 *     where the history was written through the client (the readers must then agree)
 */
record ChurnHistory(
        String name,
        String projectId,
        String instanceId,
        String databaseId,
        String hostPort,
        boolean legacy,
        long startMicros,
        long endMicros,
        long rowChanges,
        long checksum,
        String generations) {

    /** For histories written through the client: the readers must agree with each other. */
    static final long UNKNOWN_CHECKSUM = Long.MIN_VALUE;

    /** What a reader in another JVM needs to find and bound the history. */
    List<String> toArgs() {
        return List.of(
                projectId,
                instanceId,
                databaseId,
                hostPort,
                Boolean.toString(legacy),
                Long.toString(startMicros),
                Long.toString(endMicros));
    }

    /** The inverse of {@link #toArgs()}, from {@code args[from]} on. */
    static ChurnHistory fromArgs(String[] args, int from) {
        return new ChurnHistory(
                "child",
                args[from],
                args[from + 1],
                args[from + 2],
                args[from + 3],
                Boolean.parseBoolean(args[from + 4]),
                Long.parseLong(args[from + 5]),
                Long.parseLong(args[from + 6]),
                0,
                UNKNOWN_CHECKSUM,
                "");
    }
}
