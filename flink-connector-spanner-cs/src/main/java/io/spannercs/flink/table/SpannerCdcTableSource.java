package io.spannercs.flink.table;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.operators.ChangeEventOrdering;
import io.spannercs.flink.source.ChangeFilter;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import io.spannercs.flink.source.SpannerChangeStreamSourceBuilder;
import io.spannercs.flink.source.UnknownValueHandling;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.spanner.SpannerTableInfo;
import io.spannercs.flink.table.SpannerCdcOptions.ChangelogModeOption;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsReadingMetadata;
import org.apache.flink.table.connector.source.abilities.SupportsSourceWatermark;
import org.apache.flink.table.connector.source.abilities.SupportsWatermarkPushDown;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.util.Collector;

/**
 * The {@code spanner-cdc} table: a {@link SpannerChangeStreamSource} filtered to one Spanner table,
 * whose changes become changelog rows of the declared (projected) columns and metadata.
 *
 * <p>Event time: the source's watermark, driven by the change stream's heartbeats and held at or
 * below every change still to come, is the table's watermark ({@code WATERMARK FOR rt AS
 * SOURCE_WATERMARK()}). Any other watermark expression is refused at planning: Flink would compute
 * it from the rows seen, so it would stop when writes stop and run ahead of a partition that lags,
 * whose changes windows then drop as late.
 */
@Internal
public final class SpannerCdcTableSource
        implements ScanTableSource,
                SupportsReadingMetadata,
                SupportsProjectionPushDown,
                SupportsSourceWatermark,
                SupportsWatermarkPushDown {

    /** Everything but the produced columns: fixed by the factory. */
    record Settings(
            SpannerTableInfo.Connection connection,
            String changeStream,
            String table,
            io.spannercs.flink.source.StartupMode startupMode,
            int snapshotChunkRows,
            Instant end,
            Duration heartbeatInterval,
            SpannerSourceConfig.RpcPriority rpcPriority,
            ChangelogModeOption mode,
            boolean keyOnlyDeletes,
            boolean reorder,
            UnknownValueHandling unknownValues)
            implements Serializable {}

    private final Settings settings;

    /** Spanner names and declared types of all physical columns. */
    private final List<String> spannerNames;

    private final List<LogicalType> types;

    /** Indexes of the produced physical columns. */
    private int[] projection;

    private List<SpannerCdcMetadata> metadata = List.of();
    private DataType producedDataType;

    SpannerCdcTableSource(
            Settings settings,
            List<String> spannerNames,
            List<LogicalType> types,
            DataType physicalDataType) {
        this.settings = settings;
        this.spannerNames = spannerNames;
        this.types = types;
        this.projection = new int[spannerNames.size()];
        for (int i = 0; i < projection.length; i++) {
            projection[i] = i;
        }
        this.producedDataType = physicalDataType;
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return settings.mode() == ChangelogModeOption.ALL
                ? ChangelogMode.all()
                : ChangelogMode.upsert(settings.keyOnlyDeletes());
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        List<String> columns = new ArrayList<>();
        List<LogicalType> columnTypes = new ArrayList<>();
        for (int i : projection) {
            columns.add(spannerNames.get(i));
            columnTypes.add(types.get(i));
        }
        RowDataChangeEventDeserializer deserializer =
                new RowDataChangeEventDeserializer(
                        settings.table(),
                        columns,
                        columnTypes,
                        metadata,
                        settings.mode(),
                        context.createTypeInformation(producedDataType));
        boolean all = settings.mode() == ChangelogModeOption.ALL;
        if (!all && !settings.reorder()) {
            return SourceProvider.of(source(deserializer));
        }
        SpannerChangeStreamSource<ChangeEvent> source =
                source(ChangeEventDeserializer.changeEvents());
        boolean bounded =
                settings.end() != null
                        || settings.startupMode().kind()
                                == io.spannercs.flink.source.StartupMode.Kind.SNAPSHOT_ONLY;
        boolean reorder = settings.reorder();
        String name = "spanner-cdc " + settings.table();
        TypeInformation<RowData> physicalType =
                context.createTypeInformation(deserializer.physicalType());
        return new DataStreamScanProvider() {
            @Override
            public DataStream<RowData> produceDataStream(
                    ProviderContext provider, StreamExecutionEnvironment env) {
                SingleOutputStreamOperator<ChangeEvent> events =
                        env.fromSource(source, WatermarkStrategy.noWatermarks(), name);
                provider.generateUid("source").ifPresent(events::uid);
                DataStream<ChangeEvent> changes = events;
                if (reorder) {
                    // Each key's changes in commit order, released by the source's watermark: a
                    // key whose partition moved between readers may otherwise reach a
                    // downstream operator out of order after the shuffle.
                    SingleOutputStreamOperator<ChangeEvent> ordered =
                            ChangeEventOrdering.inCommitOrder(events);
                    provider.generateUid("reorder").ifPresent(ordered::uid);
                    changes = ordered;
                }
                SingleOutputStreamOperator<RowData> rows;
                if (all) {
                    // The reorder's output is already partitioned by row: no second shuffle.
                    KeyedStream<ChangeEvent, String> byRow =
                            reorder
                                    ? DataStreamUtils.reinterpretAsKeyedStream(
                                            changes, ChangeEventOrdering::keyOf, Types.STRING)
                                    : changes.keyBy(ChangeEventOrdering::keyOf, Types.STRING);
                    rows =
                            byRow.process(
                                            new AllChangelog(deserializer, physicalType),
                                            deserializer.getProducedType())
                                    .name(name + " changelog");
                    if (reorder) {
                        // Reinterpreting needs the partitioning, and so the parallelism, kept.
                        rows.setParallelism(changes.getParallelism());
                    }
                    provider.generateUid("changelog").ifPresent(rows::uid);
                } else {
                    rows =
                            changes.flatMap(
                                            new ToRows(deserializer),
                                            deserializer.getProducedType())
                                    .name(name + " rows");
                    provider.generateUid("rows").ifPresent(rows::uid);
                }
                return rows;
            }

            @Override
            public boolean isBounded() {
                return bounded;
            }
        };
    }

    private <T> SpannerChangeStreamSource<T> source(ChangeEventDeserializer<T> deserializer) {
        SpannerTableInfo.Connection c = settings.connection();
        SpannerChangeStreamSourceBuilder<T> builder =
                SpannerChangeStreamSource.<T>builder()
                        .setProjectId(c.project())
                        .setInstanceId(c.instance())
                        .setDatabaseId(c.database())
                        .setChangeStream(settings.changeStream())
                        .setHeartbeatInterval(settings.heartbeatInterval())
                        // Other tables' changes are dropped before any value is converted.
                        .setFilter(ChangeFilter.builder().include(settings.table()).build())
                        .setUnknownValueHandling(settings.unknownValues())
                        .setDeserializer(deserializer);
        builder.setStartupMode(settings.startupMode());
        builder.setSnapshotChunkRows(settings.snapshotChunkRows());
        if (settings.end() != null) {
            builder.setEndTimestamp(settings.end());
        }
        if (c.emulatorHost() != null) {
            builder.setEmulatorHost(c.emulatorHost());
        }
        if (c.credentialsFile() != null) {
            builder.setCredentialsFile(c.credentialsFile());
        }
        if (c.databaseRole() != null) {
            builder.setDatabaseRole(c.databaseRole());
        }
        if (settings.rpcPriority() != null) {
            builder.setRpcPriority(settings.rpcPriority());
        }
        return builder.build();
    }

    /** The configuration of the source this table reads, as its options made it. */
    @VisibleForTesting
    SpannerSourceConfig sourceConfig() {
        return source(ChangeEventDeserializer.changeEvents()).config();
    }

    /** Change events to rows, after the reorder. */
    private static final class ToRows implements FlatMapFunction<ChangeEvent, RowData> {
        private static final long serialVersionUID = 1L;
        private final RowDataChangeEventDeserializer deserializer;

        ToRows(RowDataChangeEventDeserializer deserializer) {
            this.deserializer = deserializer;
        }

        @Override
        public void flatMap(ChangeEvent event, Collector<RowData> out) {
            deserializer.deserialize(event, out);
        }
    }

    @Override
    public Map<String, DataType> listReadableMetadata() {
        Map<String, DataType> out = new LinkedHashMap<>();
        for (SpannerCdcMetadata m : SpannerCdcMetadata.values()) {
            out.put(m.key(), m.dataType());
        }
        return out;
    }

    @Override
    public void applyReadableMetadata(List<String> metadataKeys, DataType producedDataType) {
        List<SpannerCdcMetadata> m = new ArrayList<>();
        metadataKeys.forEach(k -> m.add(SpannerCdcMetadata.of(k)));
        this.metadata = m;
        this.producedDataType = producedDataType;
    }

    /**
     * Nothing to do: the source emits its heartbeat watermark whatever the query, and every
     * operator this table adds after it (the reorder, the changelog) passes it on.
     */
    @Override
    public void applySourceWatermark() {}

    /** Refuses a watermark computed from the rows: it would replace the source's. */
    @Override
    public void applyWatermark(WatermarkStrategy<RowData> watermarkStrategy) {
        throw new ValidationException(
                "spanner-cdc table '"
                        + settings.table()
                        + "': declare the watermark as WATERMARK FOR <rowtime column> AS"
                        + " SOURCE_WATERMARK(). A watermark expression over the rows (such as 'rt'"
                        + " or 'rt - INTERVAL ...') would replace the change stream's heartbeat"
                        + " watermark with one computed from the rows seen: it would stop when"
                        + " writes stop, so windows over a quiet table never close, and run ahead"
                        + " of a partition that lags, whose changes windows then drop as late."
                        + " SOURCE_WATERMARK() is the source's own watermark, which heartbeats"
                        + " advance and which stays below every change still to come.");
    }

    @Override
    public boolean supportsNestedProjection() {
        return false;
    }

    @Override
    public void applyProjection(int[][] projectedFields, DataType producedDataType) {
        int[] p = new int[projectedFields.length];
        for (int i = 0; i < p.length; i++) {
            p[i] = projection[projectedFields[i][0]];
        }
        this.projection = p;
        this.producedDataType = producedDataType;
    }

    @Override
    public DynamicTableSource copy() {
        SpannerCdcTableSource copy =
                new SpannerCdcTableSource(settings, spannerNames, types, producedDataType);
        copy.projection = projection.clone();
        copy.metadata = metadata;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "spanner-cdc(" + settings.changeStream() + ", " + settings.table() + ")";
    }
}
