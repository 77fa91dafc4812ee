package io.spannercs.flink.table;

import static io.spannercs.flink.table.SpannerCdcOptions.CHANGELOG_MODE;
import static io.spannercs.flink.table.SpannerCdcOptions.CHANGE_STREAM;
import static io.spannercs.flink.table.SpannerCdcOptions.CREDENTIALS_FILE;
import static io.spannercs.flink.table.SpannerCdcOptions.DATABASE;
import static io.spannercs.flink.table.SpannerCdcOptions.DATABASE_ROLE;
import static io.spannercs.flink.table.SpannerCdcOptions.EMULATOR_HOST;
import static io.spannercs.flink.table.SpannerCdcOptions.HEARTBEAT_INTERVAL;
import static io.spannercs.flink.table.SpannerCdcOptions.INSTANCE;
import static io.spannercs.flink.table.SpannerCdcOptions.PROJECT;
import static io.spannercs.flink.table.SpannerCdcOptions.RPC_PRIORITY;
import static io.spannercs.flink.table.SpannerCdcOptions.SCAN_END_TIMESTAMP;
import static io.spannercs.flink.table.SpannerCdcOptions.SCAN_REORDER;
import static io.spannercs.flink.table.SpannerCdcOptions.SCAN_STARTUP_MODE;
import static io.spannercs.flink.table.SpannerCdcOptions.SCAN_STARTUP_TIMESTAMP;
import static io.spannercs.flink.table.SpannerCdcOptions.TABLE;

import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.spanner.SpannerTableInfo;
import io.spannercs.flink.table.SpannerCdcOptions.ChangelogModeOption;
import io.spannercs.flink.table.SpannerCdcOptions.StartupMode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Creates {@code 'connector' = 'spanner-cdc'} tables. Checks the options (unknown ones are
 * rejected), then reads the table's columns and the change stream's value capture type from the
 * database and checks the declared schema and changelog mode against them, so that mistakes fail at
 * planning with the column or option named rather than at the first change.
 */
@PublicEvolving
public final class SpannerCdcDynamicTableFactory implements DynamicTableSourceFactory {
    public static final String IDENTIFIER = "spanner-cdc";

    private static final Duration MIN_HEARTBEAT = Duration.ofMillis(100);
    private static final Duration MAX_HEARTBEAT = Duration.ofMinutes(5);

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(PROJECT, INSTANCE, DATABASE, CHANGE_STREAM, TABLE);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(
                EMULATOR_HOST,
                CREDENTIALS_FILE,
                DATABASE_ROLE,
                RPC_PRIORITY,
                SCAN_STARTUP_MODE,
                SCAN_STARTUP_TIMESTAMP,
                SCAN_END_TIMESTAMP,
                SpannerCdcOptions.SCAN_SNAPSHOT_CHUNK_SIZE,
                HEARTBEAT_INTERVAL,
                CHANGELOG_MODE,
                SCAN_REORDER,
                SpannerCdcOptions.SCAN_UNKNOWN_VALUES);
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        // Before Flink parses them: its messages name an enum class or a unit table, and the SQL
        // client shows only the root cause.
        Map<String, String> raw = context.getCatalogTable().getOptions();
        OptionValues.check(raw);
        helper.validate();
        ReadableConfig options = helper.getOptions();

        Instant start = startTimestamp(options);
        StartupMode startupModeOption = options.get(SCAN_STARTUP_MODE);
        io.spannercs.flink.source.StartupMode startupMode =
                switch (startupModeOption) {
                    case LATEST -> io.spannercs.flink.source.StartupMode.latest();
                    case TIMESTAMP -> io.spannercs.flink.source.StartupMode.timestamp(start);
                    case INITIAL ->
                            start == null
                                    ? io.spannercs.flink.source.StartupMode.snapshotThenStream()
                                    : io.spannercs.flink.source.StartupMode.snapshotThenStream(
                                            start);
                    case SNAPSHOT ->
                            start == null
                                    ? io.spannercs.flink.source.StartupMode.snapshotOnly()
                                    : io.spannercs.flink.source.StartupMode.snapshotOnly(start);
                };
        if (startupModeOption == StartupMode.SNAPSHOT
                && options.getOptional(SCAN_END_TIMESTAMP).isPresent()) {
            throw new ValidationException(
                    "'"
                            + SCAN_END_TIMESTAMP.key()
                            + "' cannot be used with '"
                            + SCAN_STARTUP_MODE.key()
                            + "' = 'snapshot': the table ends with the snapshot");
        }
        Instant end =
                options.getOptional(SCAN_END_TIMESTAMP)
                        .map(t -> OptionValues.timestamp(SCAN_END_TIMESTAMP, t))
                        .orElse(null);
        if (start != null && end != null && end.isBefore(start)) {
            throw new ValidationException(
                    "'"
                            + SCAN_END_TIMESTAMP.key()
                            + "' "
                            + end
                            + " is before '"
                            + SCAN_STARTUP_TIMESTAMP.key()
                            + "' "
                            + start);
        }
        int chunkSize = options.get(SpannerCdcOptions.SCAN_SNAPSHOT_CHUNK_SIZE);
        Duration heartbeat = options.get(HEARTBEAT_INTERVAL);
        if (heartbeat.compareTo(MIN_HEARTBEAT) < 0 || heartbeat.compareTo(MAX_HEARTBEAT) > 0) {
            throw new ValidationException(
                    "'"
                            + HEARTBEAT_INTERVAL.key()
                            + "' = '"
                            + raw.get(HEARTBEAT_INTERVAL.key())
                            + "' is out of range: use 100 ms to 5 min, e.g. '1s'.");
        }
        ChangelogModeOption mode = options.get(CHANGELOG_MODE);
        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        if (mode == ChangelogModeOption.UPSERT && schema.getPrimaryKey().isEmpty()) {
            throw new ValidationException(
                    "'"
                            + CHANGELOG_MODE.key()
                            + "' = 'upsert' needs a PRIMARY KEY (...) NOT"
                            + " ENFORCED declared with the Spanner table's key columns");
        }

        String table = options.get(TABLE);
        String stream = options.get(CHANGE_STREAM);
        SpannerTableInfo.Connection connection =
                new SpannerTableInfo.Connection(
                        options.get(PROJECT),
                        options.get(INSTANCE),
                        options.get(DATABASE),
                        options.getOptional(EMULATOR_HOST).orElse(null),
                        options.getOptional(CREDENTIALS_FILE).orElse(null),
                        options.getOptional(DATABASE_ROLE).orElse(null));
        SpannerTableInfo info = SpannerTableInfo.read(connection, table, stream);

        DataType physical = context.getPhysicalRowDataType();
        RowType rowType = (RowType) physical.getLogicalType();
        List<String> spannerNames = SpannerTypeMapping.check(table, info.columns(), rowType);
        CaptureTypeSupport.check(mode, info.valueCaptureType(), stream);
        List<LogicalType> types = rowType.getChildren();

        SpannerCdcTableSource.Settings settings =
                new SpannerCdcTableSource.Settings(
                        connection,
                        stream,
                        table,
                        startupMode,
                        chunkSize,
                        end,
                        heartbeat,
                        options.getOptional(RPC_PRIORITY)
                                .map(p -> SpannerSourceConfig.RpcPriority.valueOf(p.name()))
                                .orElse(null),
                        mode,
                        CaptureTypeSupport.keyOnlyDeletes(info.valueCaptureType()),
                        options.get(SCAN_REORDER),
                        options.get(SpannerCdcOptions.SCAN_UNKNOWN_VALUES)
                                        == SpannerCdcOptions.UnknownValuesOption.RAW
                                ? io.spannercs.flink.source.UnknownValueHandling.RAW
                                : io.spannercs.flink.source.UnknownValueHandling.FAIL);
        return new SpannerCdcTableSource(settings, spannerNames, types, physical);
    }

    /**
     * The start in 'timestamp' mode, the snapshot timestamp in 'initial' and 'snapshot' mode (null:
     * when the job starts); null in 'latest' mode (the builder then starts now).
     */
    private static Instant startTimestamp(ReadableConfig options) {
        StartupMode mode = options.get(SCAN_STARTUP_MODE);
        boolean hasTimestamp = options.getOptional(SCAN_STARTUP_TIMESTAMP).isPresent();
        if (mode == StartupMode.TIMESTAMP) {
            if (!hasTimestamp) {
                throw new ValidationException(
                        "'"
                                + SCAN_STARTUP_MODE.key()
                                + "' = 'timestamp' needs '"
                                + SCAN_STARTUP_TIMESTAMP.key()
                                + "', the first commit timestamp to read, e.g. '"
                                + SCAN_STARTUP_TIMESTAMP.key()
                                + "' = '2026-03-01 12:00:00' (UTC)");
            }
            return OptionValues.timestamp(
                    SCAN_STARTUP_TIMESTAMP, options.get(SCAN_STARTUP_TIMESTAMP));
        }
        if (hasTimestamp && mode == StartupMode.LATEST) {
            throw new ValidationException(
                    "'"
                            + SCAN_STARTUP_TIMESTAMP.key()
                            + "' is only used with '"
                            + SCAN_STARTUP_MODE.key()
                            + "' = 'timestamp', 'initial' or 'snapshot'");
        }
        return hasTimestamp
                ? OptionValues.timestamp(
                        SCAN_STARTUP_TIMESTAMP, options.get(SCAN_STARTUP_TIMESTAMP))
                : null;
    }
}
