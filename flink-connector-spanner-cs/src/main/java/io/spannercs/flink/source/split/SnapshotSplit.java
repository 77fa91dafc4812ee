package io.spannercs.flink.source.split;

import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.KeyRange;
import com.google.cloud.spanner.KeySet;
import java.util.List;
import java.util.Objects;
import org.apache.flink.annotation.Internal;

/**
 * A key range of one table, read at the snapshot timestamp in primary-key order. Its position is
 * the key of the last row emitted: a restored split reads on after it, so no row is emitted twice
 * or missed.
 */
@Internal
public final class SnapshotSplit implements SpannerSplit {
    private final String id;
    private final String table;
    private final List<String> columns;
    private final List<String> keyColumns;
    private final long snapshotMicros;
    private final SnapshotKey lowerInclusive;
    private final SnapshotKey upperExclusive;
    private final SnapshotKey lastEmitted;
    private final long rowsEmitted;
    private final List<PartitionReport> pendingReports;
    private final boolean finished;

    /**
     * @param columns the columns to read, in table order (the key columns among them)
     * @param keyColumns the primary key's columns, in key order
     * @param lowerInclusive the first key of the range, or null for the table's start
     * @param upperExclusive the key after the range, or null for the table's end
     * @param lastEmitted the key of the last row emitted, or null before the first
     */
    public SnapshotSplit(
            String id,
            String table,
            List<String> columns,
            List<String> keyColumns,
            long snapshotMicros,
            SnapshotKey lowerInclusive,
            SnapshotKey upperExclusive,
            SnapshotKey lastEmitted,
            long rowsEmitted,
            List<PartitionReport> pendingReports,
            boolean finished) {
        this.id = Objects.requireNonNull(id);
        this.table = Objects.requireNonNull(table);
        this.columns = List.copyOf(columns);
        this.keyColumns = List.copyOf(keyColumns);
        this.snapshotMicros = snapshotMicros;
        this.lowerInclusive = lowerInclusive;
        this.upperExclusive = upperExclusive;
        this.lastEmitted = lastEmitted;
        this.rowsEmitted = rowsEmitted;
        this.pendingReports = List.copyOf(pendingReports);
        this.finished = finished;
    }

    @Override
    public String splitId() {
        return id;
    }

    public String table() {
        return table;
    }

    public List<String> columns() {
        return columns;
    }

    public List<String> keyColumns() {
        return keyColumns;
    }

    public long snapshotMicros() {
        return snapshotMicros;
    }

    public SnapshotKey lowerInclusive() {
        return lowerInclusive;
    }

    public SnapshotKey upperExclusive() {
        return upperExclusive;
    }

    public SnapshotKey lastEmitted() {
        return lastEmitted;
    }

    public long rowsEmitted() {
        return rowsEmitted;
    }

    public List<PartitionReport> pendingReports() {
        return pendingReports;
    }

    public boolean finished() {
        return finished;
    }

    /** The keys still to read after {@code after} (null: from the range's start). */
    public KeySet remaining(SnapshotKey after) {
        Key end = upperExclusive == null ? Key.of() : upperExclusive.toKey();
        KeyRange.Endpoint endType =
                upperExclusive == null ? KeyRange.Endpoint.CLOSED : KeyRange.Endpoint.OPEN;
        if (after != null) {
            return KeySet.range(
                    KeyRange.newBuilder()
                            .setStart(after.toKey())
                            .setStartType(KeyRange.Endpoint.OPEN)
                            .setEnd(end)
                            .setEndType(endType)
                            .build());
        }
        if (lowerInclusive == null && upperExclusive == null) {
            return KeySet.all();
        }
        return KeySet.range(
                KeyRange.newBuilder()
                        .setStart(lowerInclusive == null ? Key.of() : lowerInclusive.toKey())
                        .setStartType(KeyRange.Endpoint.CLOSED)
                        .setEnd(end)
                        .setEndType(endType)
                        .build());
    }

    @Override
    public String toString() {
        return "SnapshotSplit{"
                + id
                + ", "
                + table
                + " ["
                + lowerInclusive
                + ", "
                + upperExclusive
                + "), after="
                + lastEmitted
                + ", rows="
                + rowsEmitted
                + (pendingReports.isEmpty() ? "" : ", pending=" + pendingReports.size())
                + (finished ? ", finished" : "")
                + "}";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SnapshotSplit s
                && id.equals(s.id)
                && table.equals(s.table)
                && columns.equals(s.columns)
                && keyColumns.equals(s.keyColumns)
                && snapshotMicros == s.snapshotMicros
                && Objects.equals(lowerInclusive, s.lowerInclusive)
                && Objects.equals(upperExclusive, s.upperExclusive)
                && Objects.equals(lastEmitted, s.lastEmitted)
                && rowsEmitted == s.rowsEmitted
                && pendingReports.equals(s.pendingReports)
                && finished == s.finished;
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, lastEmitted, rowsEmitted);
    }
}
