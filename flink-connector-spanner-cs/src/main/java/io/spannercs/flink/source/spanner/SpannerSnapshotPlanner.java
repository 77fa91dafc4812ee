package io.spannercs.flink.source.spanner;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.BatchReadOnlyTransaction;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.KeySet;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.TimestampBound;
import io.spannercs.flink.source.ChangeFilter;
import io.spannercs.flink.source.NonRecoverableSourceException;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.split.SnapshotKey;
import io.spannercs.flink.source.split.SnapshotSplit;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans a snapshot with the official client: the database's {@code version_retention_period} (a
 * snapshot at T can only be read while T is within it), the tables and columns the change stream
 * tracks (the source's filter applied), and each table's keys at T, read in key order through a
 * {@code BatchClient} read-only transaction at T, cut into ranges of about the configured number of
 * rows. Reading the keys costs one scan of each table's primary key.
 */
@Internal
public final class SpannerSnapshotPlanner implements SnapshotPlanner {
    private static final Logger LOG = LoggerFactory.getLogger(SpannerSnapshotPlanner.class);

    /** Spanner's default {@code version_retention_period}. */
    static final Duration DEFAULT_RETENTION = Duration.ofHours(1);

    /** Transient errors while planning are retried this often, with a growing backoff. */
    private static final int MAX_ATTEMPTS = 8;

    private static final long MAX_BACKOFF_MILLIS = 5_000;

    private static final Pattern RETENTION_PART = Pattern.compile("(\\d+)\\s*([smhd])");

    private final SpannerSourceConfig config;
    private final ChangeFilter filter;
    // Lives for one planning: plan() closes it, as close() does when planning is cancelled.
    private final LazySpannerClient client;

    public SpannerSnapshotPlanner(SpannerSourceConfig config, ChangeFilter filter) {
        this.config = config;
        this.filter = filter;
        this.client = LazySpannerClient.ownClient(config, "The snapshot planning");
    }

    @Override
    public Plan plan() {
        try {
            for (int attempt = 1; ; attempt++) {
                try {
                    return planOnce();
                } catch (SpannerException e) {
                    if (!SpannerErrors.isTransient(e.getErrorCode()) || attempt >= MAX_ATTEMPTS) {
                        throw e;
                    }
                    long backoff = Math.min(MAX_BACKOFF_MILLIS, 100L << attempt);
                    LOG.warn(
                            "{} failed ({}), retrying in {} ms (attempt {} of {})",
                            failure(),
                            e.getErrorCode(),
                            backoff,
                            attempt,
                            MAX_ATTEMPTS);
                    sleep(backoff);
                }
            }
        } catch (SpannerException e) {
            if (SpannerErrors.isSnapshotTooOld(e.getErrorCode())) {
                // The snapshot's timestamp is fixed: a restart reads at the same one.
                throw new NonRecoverableSourceException(
                        failure()
                                + " failed with "
                                + SpannerErrors.describe(e)
                                + ". "
                                + SpannerErrors.snapshotRetentionAdvice(
                                        config.snapshotMicros(), config),
                        SpannerErrors.forUsers(e));
            }
            throw SpannerErrors.failure(
                    failure() + " failed with " + SpannerErrors.explain(e, config), e);
        } finally {
            client.close();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("The snapshot planning was interrupted", e);
        }
    }

    private Plan planOnce() {
        Spanner spanner = client.get();
        DatabaseId db = DatabaseId.of(config.projectId(), config.instanceId(), config.databaseId());
        DatabaseClient dbClient = spanner.getDatabaseClient(db);
        Duration retention = retention(dbClient);
        checkWithinRetention(retention);
        Map<String, TableColumns> tables = trackedTables(dbClient);
        List<SnapshotSplit> splits = new ArrayList<>();
        long rows = 0;
        BatchReadOnlyTransaction txn =
                spanner.getBatchClient(db)
                        .batchReadOnlyTransaction(
                                TimestampBound.ofReadTimestamp(
                                        Timestamp.ofTimeMicroseconds(config.snapshotMicros())));
        try {
            for (TableColumns t : tables.values()) {
                rows += cut(txn, t, splits);
            }
        } finally {
            txn.close();
        }
        return new Plan(splits, rows, tables.size(), retention);
    }

    /**
     * Reads the table's keys at T in key order and cuts them into ranges.
     *
     * @return the table's rows
     */
    private long cut(BatchReadOnlyTransaction txn, TableColumns t, List<SnapshotSplit> out) {
        int chunk = config.snapshotChunkRows();
        List<SnapshotKey> boundaries = new ArrayList<>();
        long rows = 0;
        try (ResultSet rs = txn.read(t.name, KeySet.all(), t.keyColumns)) {
            while (rs.next()) {
                if (rows > 0 && rows % chunk == 0) {
                    boundaries.add(SnapshotKey.of(rs, t.keyColumns.size()));
                }
                rows++;
            }
        }
        SnapshotKey lower = null;
        for (int i = 0; i <= boundaries.size(); i++) {
            SnapshotKey upper = i < boundaries.size() ? boundaries.get(i) : null;
            out.add(
                    new SnapshotSplit(
                            "snapshot/" + t.name + "/" + i,
                            t.name,
                            t.columns,
                            t.keyColumns,
                            config.snapshotMicros(),
                            lower,
                            upper,
                            null,
                            0,
                            List.of(),
                            false));
            lower = upper;
        }
        LOG.info(
                "Snapshot of table {}: {} rows at {}, in {} splits",
                t.name,
                rows,
                Instant.ofEpochSecond(0, config.snapshotMicros() * 1000),
                boundaries.size() + 1);
        return rows;
    }

    /** Reads of the information schema as it was at the snapshot timestamp. */
    private TimestampBound schemaAtSnapshot() {
        return TimestampBound.ofReadTimestamp(
                Timestamp.ofTimeMicroseconds(config.snapshotMicros()));
    }

    private Duration retention(DatabaseClient db) {
        try (ResultSet rs =
                db.singleUse()
                        .executeQuery(
                                Statement.of(
                                        "SELECT option_name, option_value FROM"
                                                + " information_schema.database_options"))) {
            while (rs.next()) {
                if ("version_retention_period".equalsIgnoreCase(rs.getString(0)) && !rs.isNull(1)) {
                    return parseRetention(rs.getString(1));
                }
            }
        }
        return DEFAULT_RETENTION;
    }

    /**
     * Spanner's duration text: {@code 1h}, {@code 7d}, {@code 90m}, {@code 86400s}, {@code 1d12h}.
     */
    static Duration parseRetention(String text) {
        Matcher m = RETENTION_PART.matcher(text.trim().toLowerCase(Locale.ROOT));
        Duration d = Duration.ZERO;
        int end = 0;
        while (m.find()) {
            if (m.start() != end) {
                break;
            }
            long n = Long.parseLong(m.group(1));
            switch (m.group(2)) {
                case "s" -> d = d.plusSeconds(n);
                case "m" -> d = d.plusMinutes(n);
                case "h" -> d = d.plusHours(n);
                default -> d = d.plusDays(n);
            }
            end = m.end();
        }
        if (end != text.trim().length() || d.isZero()) {
            throw new IllegalStateException(
                    "Cannot read the database's version_retention_period '" + text + "'");
        }
        return d;
    }

    private void checkWithinRetention(Duration retention) {
        Instant t = Instant.ofEpochSecond(0, config.snapshotMicros() * 1000);
        Instant oldest = Instant.now().minus(retention);
        if (t.isBefore(oldest)) {
            throw new NonRecoverableSourceException(
                    "The snapshot timestamp "
                            + t
                            + " is older than database "
                            + config.databaseName()
                            + " keeps versions (its version_retention_period is "
                            + retention
                            + ", so reads must be at "
                            + oldest
                            + " or later). Choose a later snapshot timestamp"
                            + " (StartupMode.snapshotThenStream(at), SQL 'scan.startup.timestamp',"
                            + " job --start-timestamp), or keep versions longer: ALTER DATABASE "
                            + config.databaseId()
                            + " SET OPTIONS (version_retention_period = '1d').");
        }
        LOG.info(
                "Snapshot at {}: database {} keeps versions for {}, so the snapshot must end"
                        + " before {}",
                t,
                config.databaseName(),
                retention,
                t.plus(retention));
    }

    /**
     * The tracked tables (the filter applied), their columns in table order and their keys, as the
     * schema was at the snapshot timestamp: the rows are read at that timestamp too, so a table
     * created after it (not readable there) or added to the stream after it is not part of the
     * snapshot; the stream has its changes from then on.
     */
    private Map<String, TableColumns> trackedTables(DatabaseClient db) {
        boolean all = false;
        boolean found = false;
        // SELECT *: the column ALL is a reserved word, quoted differently in each dialect.
        try (ResultSet rs =
                db.singleUse(schemaAtSnapshot())
                        .executeQuery(
                                Statement.of("SELECT * FROM information_schema.change_streams"))) {
            int name = -1;
            int allColumn = -1;
            while (rs.next()) {
                if (name < 0) {
                    name = column(rs, "change_stream_name");
                    allColumn = column(rs, "all");
                }
                if (rs.getString(name).equals(config.changeStream())) {
                    found = true;
                    all = yes(rs, allColumn);
                }
            }
        }
        if (!found) {
            throw new NonRecoverableSourceException(
                    SpannerErrors.changeStreamMissing(config)
                            + " at the snapshot timestamp "
                            + Instant.ofEpochSecond(0, config.snapshotMicros() * 1000)
                            + " (information_schema.change_streams does not list it): check its"
                            + " name ("
                            + SpannerErrors.options(
                                    "setChangeStream(...)", "'change-stream'", "--change-stream")
                            + "), or choose a snapshot timestamp after the stream was created.");
        }
        // Table -> tracked columns (null: all of them).
        Map<String, Set<String>> tracked = new TreeMap<>();
        if (!all) {
            try (ResultSet rs =
                    db.singleUse(schemaAtSnapshot())
                            .executeQuery(
                                    Statement.of(
                                            "SELECT change_stream_name, table_name, all_columns"
                                                    + " FROM information_schema.change_stream_tables"))) {
                while (rs.next()) {
                    if (rs.getString(0).equals(config.changeStream())) {
                        tracked.put(rs.getString(1), yes(rs, 2) ? null : new LinkedHashSet<>());
                    }
                }
            }
            try (ResultSet rs =
                    db.singleUse(schemaAtSnapshot())
                            .executeQuery(
                                    Statement.of(
                                            "SELECT change_stream_name, table_name, column_name"
                                                    + " FROM information_schema.change_stream_columns"))) {
                while (rs.next()) {
                    Set<String> columns = tracked.get(rs.getString(1));
                    if (rs.getString(0).equals(config.changeStream()) && columns != null) {
                        columns.add(rs.getString(2));
                    }
                }
            }
        }
        Map<String, TreeMap<Long, String>> columnsByTable = new TreeMap<>();
        try (ResultSet rs =
                db.singleUse(schemaAtSnapshot())
                        .executeQuery(
                                Statement.of(
                                        "SELECT table_schema, table_name, column_name,"
                                                + " ordinal_position FROM"
                                                + " information_schema.columns"))) {
            while (rs.next()) {
                String schema = rs.isNull(0) ? "" : rs.getString(0);
                if (!userSchema(schema)) {
                    continue;
                }
                columnsByTable
                        .computeIfAbsent(tableName(schema, rs.getString(1)), x -> new TreeMap<>())
                        .put(rs.getLong(3), rs.getString(2));
            }
        }
        Map<String, TreeMap<Long, String>> keysByTable = new TreeMap<>();
        try (ResultSet rs =
                db.singleUse(schemaAtSnapshot())
                        .executeQuery(
                                Statement.of(
                                        "SELECT table_schema, table_name, index_type,"
                                                + " column_name, ordinal_position FROM"
                                                + " information_schema.index_columns"))) {
            while (rs.next()) {
                String schema = rs.isNull(0) ? "" : rs.getString(0);
                if (!userSchema(schema)
                        || !"PRIMARY_KEY".equalsIgnoreCase(rs.getString(2))
                        || rs.isNull(4)) {
                    continue;
                }
                keysByTable
                        .computeIfAbsent(tableName(schema, rs.getString(1)), x -> new TreeMap<>())
                        .put(rs.getLong(4), rs.getString(3));
            }
        }
        Map<String, TableColumns> out = new LinkedHashMap<>();
        for (Map.Entry<String, TreeMap<Long, String>> e : columnsByTable.entrySet()) {
            String table = e.getKey();
            if ((!all && !tracked.containsKey(table)) || !filter.acceptsTable(table)) {
                continue;
            }
            List<String> keys =
                    new ArrayList<>(keysByTable.getOrDefault(table, new TreeMap<>()).values());
            if (keys.isEmpty()) {
                throw new IllegalStateException(
                        "Table " + table + " has no primary key columns in the information schema");
            }
            Set<String> trackedColumns = all ? null : tracked.get(table);
            Set<String> chosen = filter.columnsOf(table);
            List<String> columns = new ArrayList<>();
            for (String c : e.getValue().values()) {
                boolean key = keys.contains(c);
                boolean isTracked = trackedColumns == null || trackedColumns.contains(c);
                boolean isChosen = chosen.isEmpty() || chosen.contains(c);
                if (key || (isTracked && isChosen)) {
                    columns.add(c);
                }
            }
            out.put(table, new TableColumns(table, columns, keys));
        }
        return out;
    }

    /** A flag of the information schema: BOOL in GoogleSQL, 'YES' or 'NO' in PostgreSQL. */
    private static boolean yes(ResultSet rs, int column) {
        if (rs.isNull(column)) {
            return false;
        }
        return rs.getColumnType(column).getCode() == com.google.cloud.spanner.Type.Code.BOOL
                ? rs.getBoolean(column)
                : "YES".equalsIgnoreCase(rs.getString(column));
    }

    private static int column(ResultSet rs, String name) {
        List<com.google.cloud.spanner.Type.StructField> fields = rs.getType().getStructFields();
        for (int i = 0; i < fields.size(); i++) {
            if (fields.get(i).getName().equalsIgnoreCase(name)) {
                return i;
            }
        }
        throw new IllegalStateException("information_schema.change_streams has no column " + name);
    }

    private static boolean userSchema(String schema) {
        String s = schema.toLowerCase(Locale.ROOT);
        return !s.equals("information_schema")
                && !s.equals("spanner_sys")
                && !s.equals("pg_catalog");
    }

    /** Tables as change records name them: {@code Orders}, or {@code sales.Orders}. */
    private static String tableName(String schema, String table) {
        return schema.isEmpty() || schema.equals("public") ? table : schema + "." + table;
    }

    private String failure() {
        return "Planning the snapshot of change stream "
                + config.changeStream()
                + " in database "
                + config.databaseName();
    }

    @Override
    public void close() {
        client.close();
    }

    /** A table to read: its columns in table order and its primary key columns in key order. */
    private record TableColumns(String name, List<String> columns, List<String> keyColumns) {}
}
