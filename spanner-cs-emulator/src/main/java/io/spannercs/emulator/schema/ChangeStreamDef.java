package io.spannercs.emulator.schema;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A change stream: what it watches and its options. {@code explicitOptions} keeps the options as
 * written, because {@code information_schema.change_stream_options} lists only those.
 */
public final class ChangeStreamDef {
    /** Spanner's default and limits for {@code retention_period}. */
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(1);

    private final String name;
    private final boolean forAll;
    private final Map<String, List<String>> watchedColumns;
    private final PartitionMode partitionMode;
    private final ValueCaptureType valueCaptureType;
    private final Duration retentionPeriod;
    private final boolean excludeTtlDeletes;
    private final Map<String, String> explicitOptions;

    /**
     * @param watchedColumns table name to watched non-key columns; a {@code null} list means all
     *     columns of the table. Ignored when {@code forAll}.
     */
    public ChangeStreamDef(
            String name,
            boolean forAll,
            Map<String, List<String>> watchedColumns,
            PartitionMode partitionMode,
            ValueCaptureType valueCaptureType,
            Duration retentionPeriod,
            boolean excludeTtlDeletes,
            Map<String, String> explicitOptions) {
        this.name = name;
        this.forAll = forAll;
        this.watchedColumns = Collections.unmodifiableMap(new LinkedHashMap<>(watchedColumns));
        this.partitionMode = partitionMode;
        this.valueCaptureType = valueCaptureType;
        this.retentionPeriod = retentionPeriod;
        this.excludeTtlDeletes = excludeTtlDeletes;
        this.explicitOptions = Collections.unmodifiableMap(new LinkedHashMap<>(explicitOptions));
    }

    public String name() {
        return name;
    }

    public boolean forAll() {
        return forAll;
    }

    public Map<String, List<String>> watchedColumns() {
        return watchedColumns;
    }

    public PartitionMode partitionMode() {
        return partitionMode;
    }

    public ValueCaptureType valueCaptureType() {
        return valueCaptureType;
    }

    public Duration retentionPeriod() {
        return retentionPeriod;
    }

    public boolean excludeTtlDeletes() {
        return excludeTtlDeletes;
    }

    public Map<String, String> explicitOptions() {
        return explicitOptions;
    }

    /**
     * Whether the stream records this kind of change ({@code exclude_insert}, {@code
     * exclude_update} and {@code exclude_delete} turn kinds off).
     */
    public boolean recordsModType(String modType) {
        return !Boolean.parseBoolean(
                explicitOptions.getOrDefault(
                        "exclude_" + modType.toLowerCase(Locale.ROOT), "false"));
    }

    /** Whether changes to the table are recorded by this stream at all. */
    public boolean watchesTable(String table) {
        return forAll || tableEntry(table) != null;
    }

    /** Whether a non-key column is watched (key columns always are, for a watched table). */
    public boolean watchesColumn(String table, ColumnDef column) {
        if (column.primaryKey() || forAll) {
            return watchesTable(table);
        }
        Map.Entry<String, List<String>> entry = tableEntry(table);
        if (entry == null) {
            return false;
        }
        List<String> cols = entry.getValue();
        return cols == null || cols.stream().anyMatch(c -> c.equalsIgnoreCase(column.name()));
    }

    private Map.Entry<String, List<String>> tableEntry(String table) {
        String lower = table.toLowerCase(Locale.ROOT);
        for (Map.Entry<String, List<String>> e : watchedColumns.entrySet()) {
            if (e.getKey().toLowerCase(Locale.ROOT).equals(lower)) {
                return e;
            }
        }
        return null;
    }
}
