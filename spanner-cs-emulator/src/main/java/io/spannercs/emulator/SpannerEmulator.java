package io.spannercs.emulator;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.changestream.ChurnOp;
import io.spannercs.emulator.changestream.EdgeRuntime;
import io.spannercs.emulator.changestream.FaultInjector;
import io.spannercs.emulator.grpc.ConnectionLimitCounter;
import io.spannercs.emulator.grpc.DatabaseAdminService;
import io.spannercs.emulator.grpc.InstanceAdminService;
import io.spannercs.emulator.grpc.SpannerService;
import io.spannercs.emulator.schema.DdlParser;
import io.spannercs.emulator.schema.Dialect;
import io.spannercs.emulator.schema.Schema;
import io.spannercs.emulator.schema.VersionRetention;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local Spanner endpoint serving change streams, for tests, benchmarks and demos. Start it with
 * {@link #builder()}, point the official client at {@link #hostPort()} with {@code
 * setEmulatorHost}, and {@link #close()} it when done.
 *
 * <pre>{@code
 * try (SpannerEmulator emulator = SpannerEmulator.builder().ddl(ddl).start()) {
 *     Spanner spanner = SpannerOptions.newBuilder().setProjectId(emulator.projectId())
 *             .setEmulatorHost(emulator.hostPort()).build().getService();
 *     ...
 *     emulator.database().groundTruth(); // every committed change, in commit order
 * }
 * }</pre>
 */
public final class SpannerEmulator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SpannerEmulator.class);

    private final Builder config;
    private final Map<String, EmulatedDatabase> databases = new LinkedHashMap<>();
    private final FaultInjector faults = new FaultInjector();
    private final EdgeRuntime edges;
    private final ScheduledExecutorService scheduler;
    private final Server server;

    /** Concurrent streams per gRPC connection with the stream-limit edge case. */
    public static final int MAX_CONCURRENT_STREAMS_PER_CONNECTION = 100;

    private SpannerEmulator(Builder config) throws IOException {
        this.config = config;
        this.edges = new EdgeRuntime(config.edgeCases, config.seed, config.transientFaultRate);
        EmulatedDatabase db =
                new EmulatedDatabase(
                        databaseName(config.projectId, config.instanceId, config.databaseId),
                        DdlParser.parse(config.ddl, config.dialect),
                        config.initialPartitions,
                        config.maxPartitions,
                        config.seed,
                        edges,
                        config.versionRetention);
        databases.put(db.name(), db);
        this.scheduler =
                Executors.newScheduledThreadPool(
                        config.threads, daemonThreads("spanner-cs-emulator"));
        SpannerService spanner = new SpannerService(databases::get, scheduler, faults, edges);
        InstanceAdminService instanceAdmin = new InstanceAdminService(this::instanceNames);
        DatabaseAdminService databaseAdmin = new DatabaseAdminService(databases::values);
        NettyServerBuilder server =
                NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", config.port))
                        .addService(spanner)
                        .addService(instanceAdmin)
                        .addService(databaseAdmin)
                        .maxInboundMessageSize(64 * 1024 * 1024);
        if (edges.on(EdgeCase.STREAM_LIMIT)) {
            // As Google's front ends: further streams wait in the client's queue.
            server.maxConcurrentCallsPerConnection(MAX_CONCURRENT_STREAMS_PER_CONNECTION)
                    .intercept(
                            new ConnectionLimitCounter(
                                    MAX_CONCURRENT_STREAMS_PER_CONNECTION,
                                    () -> edges.fired(EdgeCase.STREAM_LIMIT)));
        }
        this.server = server.build().start();
        if (config.churnInterval != null) {
            long ms = config.churnInterval.toMillis();
            scheduler.scheduleWithFixedDelay(this::churnAll, ms, ms, TimeUnit.MILLISECONDS);
        }
        scheduler.scheduleWithFixedDelay(this::pruneAll, 1, 1, TimeUnit.MINUTES);
    }

    public static Builder builder() {
        return new Builder();
    }

    static String databaseName(String project, String instance, String database) {
        return "projects/" + project + "/instances/" + instance + "/databases/" + database;
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    private Set<String> instanceNames() {
        Set<String> out = new LinkedHashSet<>();
        for (String db : databases.keySet()) {
            out.add(db.substring(0, db.indexOf("/databases/")));
        }
        return out;
    }

    private void churnAll() {
        for (EmulatedDatabase db : databases.values()) {
            for (ChangeStream cs : db.changeStreams()) {
                try {
                    ChurnOp op = cs.churnRandomly();
                    LOG.debug("Churn on {}: {}", cs.def().name(), op);
                } catch (RuntimeException e) {
                    LOG.warn("Churn failed on change stream {}", cs.def().name(), e);
                }
            }
        }
    }

    private void pruneAll() {
        for (EmulatedDatabase db : databases.values()) {
            db.changeStreams().forEach(ChangeStream::prune);
            db.database().pruneVersions();
        }
    }

    /** The port the server listens on (127.0.0.1 only). */
    public int port() {
        return server.getPort();
    }

    /** {@code 127.0.0.1:PORT}, for {@code SpannerOptions.Builder.setEmulatorHost}. */
    public String hostPort() {
        return "127.0.0.1:" + port();
    }

    public String projectId() {
        return config.projectId;
    }

    public String instanceId() {
        return config.instanceId;
    }

    public String databaseId() {
        return config.databaseId;
    }

    /** The dialect of the database. */
    public Dialect dialect() {
        return config.dialect;
    }

    /** The database given to the builder. */
    public EmulatedDatabase database() {
        return databases.get(databaseName(config.projectId, config.instanceId, config.databaseId));
    }

    /** Faults to inject into queries and commits. */
    public FaultInjector faults() {
        return faults;
    }

    /**
     * The edge cases this emulator shows, bound to its seed (so {@link
     * EdgeCases#sendsUnknownEnums(String)} works on it).
     */
    public EdgeCases edgeCases() {
        return config.edgeCases.withSeed(config.seed);
    }

    /**
     * How many times each edge case actually fired so far, every edge case listed (0 for those
     * off). What counts as firing:
     *
     * <ul>
     *   <li>shared-timestamps: a commit or churn event took an earlier commit's timestamp
     *   <li>heartbeat-before-partition-records: a heartbeat sent before partition records
     *   <li>unordered-within-timestamp: a query started sending a timestamp's records out of
     *       record_sequence order
     *   <li>split-partition-records: a churn event (or a root query) reported in several records
     *   <li>window-end-without-end-record: a query ended without its partition's end record
     *   <li>unknown-types: a data record written with unknown enum values
     *   <li>null-struct-elements: a row sent with all-NULL struct elements
     *   <li>stream-limit: a stream brought its connection to the limit of concurrent streams
     *   <li>transient-faults: a query failed with a transient error
     *   <li>mutable-end-limit: a query accepted or rejected only because of the now-based limit
     * </ul>
     */
    public Map<EdgeCase, Long> edgeCaseCounts() {
        return edges.counts();
    }

    /** The emulator's scheduler, for workloads that run beside it. */
    public ScheduledExecutorService scheduler() {
        return scheduler;
    }

    /** Stops the server and every running query. */
    @Override
    public void close() {
        server.shutdownNow();
        scheduler.shutdownNow();
        try {
            server.awaitTermination(10, TimeUnit.SECONDS);
            scheduler.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Settings of an emulator; {@link #start()} starts one. */
    public static final class Builder {
        private int port;
        private String projectId = "emulator-project";
        private String instanceId = "emulator-instance";
        private String databaseId = "emulator-db";
        private String ddl;
        private Dialect dialect = Dialect.GOOGLE_STANDARD_SQL;
        private int initialPartitions = 2;
        private int maxPartitions = 8;
        private long seed = 42;
        private Duration churnInterval;
        private int threads = 4;
        private EdgeCases edgeCases = EdgeCases.none();
        private double transientFaultRate = EdgeRuntime.DEFAULT_TRANSIENT_FAULT_RATE;
        private VersionRetention versionRetention = VersionRetention.DEFAULT;

        private Builder() {}

        /** Port on 127.0.0.1; 0 (the default) picks a free one. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder projectId(String projectId) {
            this.projectId = Objects.requireNonNull(projectId);
            return this;
        }

        public Builder instanceId(String instanceId) {
            this.instanceId = Objects.requireNonNull(instanceId);
            return this;
        }

        public Builder databaseId(String databaseId) {
            this.databaseId = Objects.requireNonNull(databaseId);
            return this;
        }

        /** The schema: CREATE TABLE and CREATE CHANGE STREAM statements. */
        public Builder ddl(String ddl) {
            this.ddl = Objects.requireNonNull(ddl);
            return this;
        }

        /**
         * The database's dialect (default {@link Dialect#GOOGLE_STANDARD_SQL}). With {@link
         * Dialect#POSTGRESQL} the DDL is PostgreSQL DDL, queries use {@code $1} parameters, and
         * change streams are read with {@code spanner.read_json_<stream>} (legacy partition mode)
         * or {@code spanner.read_proto_bytes_<stream>} ({@code MUTABLE_KEY_RANGE}).
         */
        public Builder dialect(Dialect dialect) {
            this.dialect = Objects.requireNonNull(dialect);
            return this;
        }

        /** Partitions each change stream starts with (default 2). */
        public Builder initialPartitions(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("initialPartitions must be at least 1");
            }
            this.initialPartitions = n;
            return this;
        }

        /** Random churn never splits beyond this many live partitions (default 8). */
        public Builder maxPartitions(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxPartitions must be at least 1");
            }
            this.maxPartitions = n;
            return this;
        }

        /** Seed for partition tokens and churn choices (default 42). */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** Churns every change stream's partitions at this interval; null (default) for never. */
        public Builder churnInterval(Duration interval) {
            if (interval != null && (interval.isNegative() || interval.isZero())) {
                throw new IllegalArgumentException("churnInterval must be positive");
            }
            this.churnInterval = interval;
            return this;
        }

        /**
         * The specification-edge mode: behaviours Spanner may show that a reader must survive
         * (default {@link EdgeCases#none()}). Random choices derive from {@link #seed(long)}.
         */
        public Builder edgeCases(EdgeCases edgeCases) {
            this.edgeCases = Objects.requireNonNull(edgeCases);
            return this;
        }

        /**
         * With the transient-faults edge case: the chance that a partition query fails before a row
         * (default 1/300; each query fails at most once). 0 never fails.
         */
        public Builder transientFaultRate(double rate) {
            if (!(rate >= 0 && rate <= 1)) {
                throw new IllegalArgumentException("transientFaultRate must be within [0, 1]");
            }
            this.transientFaultRate = rate;
            return this;
        }

        /**
         * The database's {@code version_retention_period} (default 1 hour, Spanner's default): how
         * long old row versions are kept for reads in the past. Spanner's range, 1 hour to 7 days.
         * An {@code ALTER DATABASE ... SET OPTIONS (version_retention_period = ...)} in the DDL
         * replaces it.
         *
         * @throws IllegalArgumentException outside 1 hour to 7 days
         */
        public Builder versionRetentionPeriod(Duration period) {
            this.versionRetention = VersionRetention.of(Objects.requireNonNull(period));
            return this;
        }

        /** Threads serving change stream queries (default 4); queries do not hold a thread each. */
        public Builder threads(int threads) {
            this.threads = threads;
            return this;
        }

        /**
         * Parses the schema and starts serving.
         *
         * @throws IllegalArgumentException for invalid DDL
         * @throws UncheckedIOException when the port cannot be bound
         */
        public SpannerEmulator start() {
            if (ddl == null) {
                throw new IllegalArgumentException("ddl is required");
            }
            try {
                return new SpannerEmulator(this);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot start the emulator on 127.0.0.1:" + port, e);
            }
        }

        Schema parsedSchema() {
            return DdlParser.parse(ddl, dialect);
        }
    }
}
