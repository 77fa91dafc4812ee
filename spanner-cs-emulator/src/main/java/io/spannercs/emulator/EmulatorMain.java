package io.spannercs.emulator;

import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.schema.Dialect;
import io.spannercs.emulator.workload.DemoSchema;
import io.spannercs.emulator.workload.WorkloadConfig;
import io.spannercs.emulator.workload.WorkloadGenerator;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The runnable emulator: {@code java -jar spanner-cs-emulator.jar --port 9010 --ddl FILE}. See
 * {@link #USAGE} for the flags. Prints {@code listening on 127.0.0.1:PORT} once it serves, then a
 * status line every stats interval; stops on Ctrl-C or after {@code --duration}.
 */
public final class EmulatorMain {
    /** Exit code for bad flags. */
    public static final int EXIT_USAGE = 2;

    /** Exit code when the emulator cannot start (e.g. the port is taken). */
    public static final int EXIT_FAILURE = 1;

    static final String USAGE =
            String.join(
                    "\n",
                    "Usage: java -jar spanner-cs-emulator.jar [flags]",
                    "",
                    "Serves a Spanner database with change streams on 127.0.0.1 for the official"
                            + " client's",
                    "emulator mode (SpannerOptions.setEmulatorHost, or SPANNER_EMULATOR_HOST).",
                    "",
                    "Flags:",
                    "  --port N                Port on 127.0.0.1 (default 9010; 0 picks a free"
                            + " port).",
                    "  --project P             Project id (default emulator-project).",
                    "  --instance I            Instance id (default emulator-instance).",
                    "  --database D            Database id (default emulator-db).",
                    "  --ddl FILE              Schema file: CREATE TABLE and CREATE CHANGE STREAM"
                            + " statements",
                    "                          separated by ';'. Default: the built-in demo schema"
                            + " (tables",
                    "                          Customers and Orders, change streams Orders_cs and"
                            + " Orders_legacy_cs).",
                    "  --dialect D             googlesql (default) or postgresql. A PostgreSQL"
                            + " database needs --ddl",
                    "                          in PostgreSQL DDL; read its change streams with"
                            + " spanner.read_json_<stream>",
                    "                          or spanner.read_proto_bytes_<stream>.",
                    "  --churn-interval DUR    Split, merge or move partitions of every change"
                            + " stream at this",
                    "                          interval (default: never).",
                    "  --seed N                Seed of partition tokens, churn and the workload"
                            + " (default 42).",
                    "  --workload KIND         Writes transactions in the background: none"
                            + " (default), demo",
                    "                          (customers and orders; other tables get random"
                            + " values) or",
                    "                          random (random values in every table).",
                    "  --rate N                Workload transactions per second (default 200).",
                    "  --initial-partitions N  Partitions each change stream starts with (default"
                            + " 2).",
                    "  --max-partitions N      Churn never splits beyond this many live partitions"
                            + " (default 8).",
                    "  --stats-interval DUR    Prints a status line at this interval: rows per"
                            + " table, live",
                    "                          partitions per change stream, committed row changes"
                            + " per second",
                    "                          (default 5s; 0s turns it off).",
                    "  --duration DUR          Stops after this long (default: runs until Ctrl-C).",
                    "  --edge-cases LIST       Specification-edge mode: all, none (default) or a"
                            + " comma-separated",
                    "                          list of behaviours Spanner may show that readers"
                            + " must survive:",
                    "                          shared-timestamps, heartbeat-before-partition-records,",
                    "                          unordered-within-timestamp, split-partition-records,",
                    "                          window-end-without-end-record, unknown-types,"
                            + " null-struct-elements,",
                    "                          stream-limit, transient-faults, mutable-end-limit."
                            + " Seeded by --seed.",
                    "  --version-retention-period DUR",
                    "                          The database's version_retention_period: how long"
                            + " old row versions",
                    "                          are kept for reads in the past (default 1h; 1h to"
                            + " 7d, e.g. 90m,",
                    "                          3600s, 2d). Reads before it fail with"
                            + " FAILED_PRECONDITION.",
                    "  --help                  Prints this help.",
                    "",
                    "Flags take their value as the next argument or after '=' (--port=9010).",
                    "Durations: a whole number and a unit, ms, s, min (or m), h or d (500ms, 5s,"
                            + " 2min, 1h); a number without a unit is an error.",
                    "Exit codes: 0 after a clean stop, 1 when the emulator cannot start, 2 for bad"
                            + " flags.");

    private EmulatorMain() {}

    public static void main(String[] args) {
        int code = run(args, System.out, System.err, true);
        if (code != 0) {
            System.exit(code);
        }
    }

    /** Runs the emulator in this thread, printing to {@code out}; returns the exit code. */
    public static int run(String[] args, PrintStream out) {
        return run(args, out, out, false);
    }

    /**
     * Runs the emulator in this thread and returns the exit code.
     *
     * @param shutdownHook whether Ctrl-C (JVM shutdown) stops it cleanly
     */
    static int run(String[] args, PrintStream out, PrintStream err, boolean shutdownHook) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (UsageException e) {
            err.println("error: " + e.getMessage());
            err.println();
            err.println(USAGE);
            err.flush();
            return EXIT_USAGE;
        }
        if (options.help) {
            out.println(USAGE);
            out.flush();
            return 0;
        }
        String ddl;
        try {
            ddl =
                    options.ddlFile == null
                            ? DemoSchema.ddl()
                            : Files.readString(Path.of(options.ddlFile), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return usageError(err, "--ddl: cannot read " + options.ddlFile + ": " + e);
        }
        SpannerEmulator emulator;
        try {
            SpannerEmulator.Builder builder =
                    SpannerEmulator.builder()
                            .port(options.port)
                            .projectId(options.project)
                            .instanceId(options.instance)
                            .databaseId(options.database)
                            .ddl(ddl)
                            .dialect(options.dialect)
                            .seed(options.seed)
                            .initialPartitions(options.initialPartitions)
                            .maxPartitions(options.maxPartitions)
                            .churnInterval(options.churnInterval)
                            .edgeCases(options.edgeCases)
                            .versionRetentionPeriod(options.versionRetention.period());
            try {
                builder.parsedSchema();
            } catch (IllegalArgumentException e) {
                String source = options.ddlFile == null ? "the demo schema" : options.ddlFile;
                return usageError(
                        err, "--ddl: invalid schema in " + source + ": " + e.getMessage());
            }
            emulator = builder.start();
        } catch (UncheckedIOException e) {
            err.println(
                    "error: cannot listen on 127.0.0.1:"
                            + options.port
                            + ": "
                            + (e.getCause() == null ? e : e.getCause()));
            err.flush();
            return EXIT_FAILURE;
        }
        WorkloadGenerator workload = null;
        try {
            EmulatedDatabase db = emulator.database();
            AtomicLong changes = new AtomicLong();
            db.database().addCommitListener(txn -> changes.addAndGet(txn.changes().size()));
            if (!options.workload.equals("none")) {
                WorkloadConfig.Builder config =
                        options.workload.equals("demo")
                                ? WorkloadConfig.demo()
                                : WorkloadConfig.builder();
                config.seed(options.seed).transactionsPerSecond(options.rate);
                try {
                    workload = new WorkloadGenerator(db, config.build());
                } catch (IllegalArgumentException e) {
                    return usageError(
                            err, "--workload " + options.workload + ": " + e.getMessage());
                }
            }
            out.println("listening on " + emulator.hostPort());
            out.flush();
            out.println(describe(emulator, options));
            out.flush();
            if (workload != null) {
                workload.start();
            }
            awaitStop(emulator, options, changes, out, shutdownHook);
            return 0;
        } finally {
            if (workload != null) {
                workload.stop();
            }
            emulator.close();
        }
    }

    private static int usageError(PrintStream err, String message) {
        err.println("error: " + message);
        err.flush();
        return EXIT_USAGE;
    }

    private static String describe(SpannerEmulator emulator, Options options) {
        StringBuilder sb = new StringBuilder();
        sb.append("database ").append(emulator.database().name());
        sb.append("; schema ").append(options.ddlFile == null ? "demo" : options.ddlFile);
        if (options.dialect == Dialect.POSTGRESQL) {
            sb.append(" (PostgreSQL)");
        }
        sb.append("; workload ").append(options.workload);
        if (!options.workload.equals("none")) {
            sb.append(" at ").append(formatRate(options.rate)).append(" tx/s");
        }
        if (options.churnInterval != null) {
            sb.append("; churn every ").append(formatDuration(options.churnInterval));
        }
        sb.append("; version_retention_period ").append(emulator.database().versionRetention());
        if (!options.edgeCases.isEmpty()) {
            sb.append("; edge cases ").append(options.edgeCases);
        }
        return sb.toString();
    }

    /**
     * Prints stats until the duration has passed or the JVM shuts down. With a shutdown hook, the
     * hook waits for this thread to close the emulator.
     */
    private static void awaitStop(
            SpannerEmulator emulator,
            Options options,
            AtomicLong changes,
            PrintStream out,
            boolean shutdownHook) {
        CountDownLatch stop = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = null;
        if (shutdownHook) {
            hook =
                    new Thread(
                            () -> {
                                stop.countDown();
                                try {
                                    stopped.await(15, TimeUnit.SECONDS);
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            },
                            "spanner-cs-emulator-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
        }
        long startNanos = System.nanoTime();
        long endNanos =
                options.duration == null ? Long.MAX_VALUE : startNanos + options.duration.toNanos();
        long statsNanos =
                options.statsInterval.isZero() ? Long.MAX_VALUE : options.statsInterval.toNanos();
        long nextStats = statsNanos == Long.MAX_VALUE ? Long.MAX_VALUE : startNanos + statsNanos;
        long lastStatsNanos = startNanos;
        long lastChanges = changes.get();
        try {
            while (true) {
                long now = System.nanoTime();
                if (now - endNanos >= 0 && options.duration != null) {
                    break;
                }
                long wakeAt = Math.min(nextStats, endNanos);
                long waitNanos = wakeAt == Long.MAX_VALUE ? TimeUnit.DAYS.toNanos(1) : wakeAt - now;
                if (waitNanos > 0 && stop.await(waitNanos, TimeUnit.NANOSECONDS)) {
                    out.println("shutting down");
                    break;
                }
                now = System.nanoTime();
                if (nextStats != Long.MAX_VALUE && now - nextStats >= 0) {
                    long total = changes.get();
                    double perSecond = (total - lastChanges) / ((now - lastStatsNanos) / 1e9);
                    out.println(statusLine(emulator, now - startNanos, perSecond));
                    out.flush();
                    lastChanges = total;
                    lastStatsNanos = now;
                    nextStats += statsNanos;
                    if (nextStats - now <= 0) {
                        nextStats = now + statsNanos; // fell behind: do not print in a burst
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            out.println("stopped");
            out.flush();
            if (hook != null) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // The JVM is shutting down; the hook waits for `stopped`.
                }
            }
            // The emulator is closed by the caller; the hook needs only to know we are done.
            stopped.countDown();
        }
    }

    /**
     * E.g. {@code [5.0s] rows Customers=120 Orders=830 | Orders_cs: 3 partitions
     * (MUTABLE_KEY_RANGE) | Orders_legacy_cs: 2 partitions (IMMUTABLE_KEY_RANGE) | 612.4
     * changes/s}.
     */
    static String statusLine(SpannerEmulator emulator, long elapsedNanos, double changesPerSecond) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "[%.1fs] rows", elapsedNanos / 1e9));
        Map<String, Integer> counts = emulator.database().database().rowCounts();
        if (counts.isEmpty()) {
            sb.append(" (no tables)");
        }
        counts.forEach((table, n) -> sb.append(' ').append(table).append('=').append(n));
        for (ChangeStream cs : emulator.database().changeStreams()) {
            int live = cs.liveTokens().size();
            sb.append(" | ")
                    .append(cs.def().name())
                    .append(": ")
                    .append(live)
                    .append(live == 1 ? " partition (" : " partitions (")
                    .append(cs.def().partitionMode())
                    .append(')');
        }
        sb.append(String.format(Locale.ROOT, " | %.1f changes/s", changesPerSecond));
        return sb.toString();
    }

    private static String formatRate(double rate) {
        return rate == Math.rint(rate)
                ? Long.toString((long) rate)
                : String.format(Locale.ROOT, "%s", rate);
    }

    private static String formatDuration(Duration d) {
        long ms = d.toMillis();
        if (ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }

    // ---- flags ------------------------------------------------------------------------------

    /** A flag error; the message names the flag. */
    static final class UsageException extends Exception {
        UsageException(String message) {
            super(message);
        }
    }

    /** The parsed command line. */
    static final class Options {
        int port = 9010;
        String project = "emulator-project";
        String instance = "emulator-instance";
        String database = "emulator-db";
        String ddlFile;
        Dialect dialect = Dialect.GOOGLE_STANDARD_SQL;
        Duration churnInterval;
        long seed = 42;
        String workload = "none";
        double rate = 200;
        int initialPartitions = 2;
        int maxPartitions = 8;
        Duration statsInterval = Duration.ofSeconds(5);
        Duration duration;
        EdgeCases edgeCases = EdgeCases.none();
        io.spannercs.emulator.schema.VersionRetention versionRetention =
                io.spannercs.emulator.schema.VersionRetention.DEFAULT;
        boolean help;

        static Options parse(String[] args) throws UsageException {
            Options o = new Options();
            boolean maxGiven = false;
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                if (arg.equals("--help") || arg.equals("-h")) {
                    o.help = true;
                    continue;
                }
                if (!arg.startsWith("--")) {
                    throw new UsageException("unexpected argument '" + arg + "'");
                }
                String flag = arg;
                String value = null;
                int eq = arg.indexOf('=');
                if (eq >= 0) {
                    flag = arg.substring(0, eq);
                    value = arg.substring(eq + 1);
                }
                if (!isFlag(flag)) {
                    throw new UsageException("unknown flag " + flag);
                }
                if (value == null) {
                    if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
                        throw new UsageException(flag + " needs a value");
                    }
                    value = args[++i];
                }
                switch (flag) {
                    case "--port":
                        o.port = integer(flag, value, 0, 65535);
                        break;
                    case "--project":
                        o.project = name(flag, value);
                        break;
                    case "--instance":
                        o.instance = name(flag, value);
                        break;
                    case "--database":
                        o.database = name(flag, value);
                        break;
                    case "--ddl":
                        if (value.isEmpty()) {
                            throw new UsageException("--ddl needs a file name");
                        }
                        o.ddlFile = value;
                        break;
                    case "--dialect":
                        o.dialect = dialect(value);
                        break;
                    case "--churn-interval":
                        o.churnInterval = duration(flag, value, false);
                        break;
                    case "--seed":
                        try {
                            o.seed = Long.parseLong(value);
                        } catch (NumberFormatException e) {
                            throw new UsageException(
                                    "--seed: expected an integer, got '" + value + "'");
                        }
                        break;
                    case "--workload":
                        String w = value.toLowerCase(Locale.ROOT);
                        if (!w.equals("none") && !w.equals("demo") && !w.equals("random")) {
                            throw new UsageException(
                                    "--workload: expected none, demo or random, got '"
                                            + value
                                            + "'");
                        }
                        o.workload = w;
                        break;
                    case "--rate":
                        try {
                            o.rate = Double.parseDouble(value);
                        } catch (NumberFormatException e) {
                            o.rate = Double.NaN;
                        }
                        if (!(o.rate > 0) || Double.isInfinite(o.rate)) {
                            throw new UsageException(
                                    "--rate: expected a positive number of transactions per"
                                            + " second, got '"
                                            + value
                                            + "'");
                        }
                        break;
                    case "--initial-partitions":
                        o.initialPartitions = integer(flag, value, 1, 10_000);
                        break;
                    case "--max-partitions":
                        o.maxPartitions = integer(flag, value, 1, 10_000);
                        maxGiven = true;
                        break;
                    case "--stats-interval":
                        o.statsInterval = duration(flag, value, true);
                        break;
                    case "--duration":
                        o.duration = duration(flag, value, false);
                        break;
                    case "--edge-cases":
                        try {
                            o.edgeCases = EdgeCases.parse(value);
                        } catch (IllegalArgumentException e) {
                            throw new UsageException("--edge-cases: " + e.getMessage());
                        }
                        break;
                    case "--version-retention-period":
                        try {
                            o.versionRetention =
                                    io.spannercs.emulator.schema.VersionRetention.parse(value);
                        } catch (IllegalArgumentException e) {
                            throw new UsageException(
                                    "--version-retention-period: " + e.getMessage());
                        }
                        break;
                    default:
                        throw new IllegalStateException(flag);
                }
            }
            if (o.dialect == Dialect.POSTGRESQL && o.ddlFile == null) {
                throw new UsageException(
                        "--dialect postgresql needs --ddl with a PostgreSQL schema (the demo"
                                + " schema is GoogleSQL)");
            }
            if (o.maxPartitions < o.initialPartitions) {
                if (maxGiven) {
                    throw new UsageException(
                            "--max-partitions ("
                                    + o.maxPartitions
                                    + ") must be at least --initial-partitions ("
                                    + o.initialPartitions
                                    + ")");
                }
                o.maxPartitions = o.initialPartitions;
            }
            return o;
        }

        private static boolean isFlag(String flag) {
            switch (flag) {
                case "--port":
                case "--project":
                case "--instance":
                case "--database":
                case "--ddl":
                case "--dialect":
                case "--churn-interval":
                case "--seed":
                case "--workload":
                case "--rate":
                case "--initial-partitions":
                case "--max-partitions":
                case "--stats-interval":
                case "--duration":
                case "--edge-cases":
                case "--version-retention-period":
                    return true;
                default:
                    return false;
            }
        }

        private static Dialect dialect(String value) throws UsageException {
            switch (value.toLowerCase(Locale.ROOT)) {
                case "googlesql":
                case "google_standard_sql":
                    return Dialect.GOOGLE_STANDARD_SQL;
                case "postgresql":
                    return Dialect.POSTGRESQL;
                default:
                    throw new UsageException(
                            "--dialect: expected googlesql or postgresql, got '" + value + "'");
            }
        }

        private static int integer(String flag, String value, int min, int max)
                throws UsageException {
            try {
                int n = Integer.parseInt(value);
                if (n >= min && n <= max) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new UsageException(
                    flag
                            + ": expected an integer from "
                            + min
                            + " to "
                            + max
                            + ", got '"
                            + value
                            + "'");
        }

        private static String name(String flag, String value) throws UsageException {
            if (!value.matches("[A-Za-z0-9_-]+")) {
                throw new UsageException(
                        flag + ": expected letters, digits, '-' or '_', got '" + value + "'");
            }
            return value;
        }

        /** The shared duration syntax ({@link DurationFlag}); zero only where it means off. */
        static Duration duration(String flag, String value, boolean zeroAllowed)
                throws UsageException {
            try {
                return DurationFlag.parse(flag, value, zeroAllowed);
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
        }
    }
}
