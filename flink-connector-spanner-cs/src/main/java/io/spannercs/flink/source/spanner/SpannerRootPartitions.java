package io.spannercs.flink.source.spanner;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Options;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import io.spannercs.flink.source.NonRecoverableSourceException;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.record.ChangeRecord;
import io.spannercs.flink.source.record.ChangeRecordDecoder;
import io.spannercs.flink.source.record.ChildPartitionsRecord;
import io.spannercs.flink.source.record.PartitionStartRecord;
import io.spannercs.flink.source.split.PartitionReport.NewPartition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.util.FlinkRuntimeException;

/**
 * Runs a change stream's root query ({@code partition_token => NULL}) with the official client. The
 * client (a {@link LazySpannerClient} of its own) lives only for the query; {@link #close()} closes
 * it if a query is still running, and waits for its threads to end.
 */
@Internal
public final class SpannerRootPartitions implements RootPartitions {

    private final SpannerSourceConfig config;
    private final LazySpannerClient client;
    private volatile ChangeStreamQuery query;
    // Closes the client of a successful root query while the enumerator goes on; close() waits.
    private Thread closing; // guarded by this

    /**
     * @throws IllegalArgumentException if the change stream name is not an identifier (it becomes
     *     part of the SQL text)
     */
    public SpannerRootPartitions(SpannerSourceConfig config) {
        this.config = config;
        ChangeStreamQuery.requireIdentifier(config.changeStream());
        this.client = LazySpannerClient.ownClient(config, "The root query");
    }

    /** One query window after the start (see {@link QueryWindows}). */
    static long queryEndMicros(long startMicros, SpannerSourceConfig config, long nowMicros) {
        return QueryWindows.end(
                startMicros,
                QueryWindows.NO_PREVIOUS,
                config.queryWindow(),
                config.endMicros(),
                nowMicros);
    }

    @Override
    public List<NewPartition> query(long startMicros) {
        java.time.Instant now = java.time.Instant.now();
        long endMicros =
                queryEndMicros(
                        startMicros,
                        config,
                        now.getEpochSecond() * 1_000_000L + now.getNano() / 1000);
        boolean listed = false;
        try {
            DatabaseClient db = SpannerClients.databaseClient(client.get(), config);
            ChangeStreamQuery detected = ChangeStreamQuery.detect(db, config);
            Statement statement =
                    detected.statement(
                            null, startMicros, endMicros, config.heartbeatInterval().toMillis());
            List<NewPartition> partitions = read(db, statement);
            this.query = detected;
            listed = true;
            return partitions;
        } catch (SpannerException e) {
            // Fails the job once where a restart cannot help (SpannerErrors.isPermanent).
            throw SpannerErrors.failure(
                    failure() + " failed with " + SpannerErrors.explain(e, config), e);
        } catch (NonRecoverableSourceException e) {
            throw e; // names the stream and database, and the option
        } catch (RuntimeException e) {
            throw new FlinkRuntimeException(
                    failure() + " failed: " + SpannerErrors.withoutRelocation(e.getMessage()),
                    SpannerErrors.forUsers(e));
        } finally {
            if (listed) {
                closeInBackground();
            } else {
                // Waits (about a second: gRPC releases its shared threads a second after the last
                // channel closed) so that the client's threads have ended before the failure
                // reaches the enumerator: Flink releases the job's class loader while it closes
                // the enumerator, not after, so a failure that ends the job must not leave them
                // running.
                client.close();
            }
        }
    }

    @Override
    public ChangeStreamQuery query() {
        return query;
    }

    /**
     * The partitions go to the enumerator at once (the second the client's threads take to end
     * would delay the first change); {@link #close()} waits for this close.
     */
    private synchronized void closeInBackground() {
        closing = new Thread(client::close, "spanner-cs-root-close");
        closing.setDaemon(true);
        closing.start();
    }

    private List<NewPartition> read(DatabaseClient client, Statement statement) {
        // Keyed by token: a partition listed twice is still one partition.
        Map<String, NewPartition> partitions = new LinkedHashMap<>();
        try (ResultSet rs = client.singleUse().executeQuery(statement, queryOptions())) {
            ChangeRecordDecoder decoder = null;
            while (rs.next()) {
                if (decoder == null) {
                    decoder = ChangeRecordDecoder.forColumnType(rs.getColumnType(0));
                }
                for (ChangeRecord r : decoder.decode(rs)) {
                    if (r instanceof PartitionStartRecord s) {
                        for (String token : s.partitionTokens()) {
                            partitions.putIfAbsent(
                                    token, new NewPartition(token, s.timestampMicros(), List.of()));
                        }
                    } else if (r instanceof ChildPartitionsRecord c) {
                        for (ChildPartitionsRecord.ChildPartition child : c.children()) {
                            partitions.putIfAbsent(
                                    child.token(),
                                    new NewPartition(
                                            child.token(),
                                            c.timestampMicros(),
                                            child.parentTokens()));
                        }
                    }
                }
            }
        }
        return new ArrayList<>(partitions.values());
    }

    private Options.QueryOption[] queryOptions() {
        if (config.rpcPriority() == null) {
            return new Options.QueryOption[0];
        }
        return new Options.QueryOption[] {
            Options.priority(Options.RpcPriority.valueOf(config.rpcPriority().name()))
        };
    }

    private String failure() {
        return "The root query of change stream "
                + config.changeStream()
                + " in database "
                + config.databaseName();
    }

    /**
     * Closes the client of a running query (which then fails) and waits (bounded) until the
     * client's threads have ended, so none outlives the job or a failed attempt.
     */
    @Override
    public void close() {
        Thread background;
        synchronized (this) {
            background = closing;
        }
        client.close();
        if (background != null) {
            try {
                background.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        ClientThreads.awaitClientThreadsEnded();
    }
}
