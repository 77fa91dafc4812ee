package io.spannercs.flink.format;

import java.io.Serializable;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * One row change read from a Spanner change stream, with its transaction and partition context.
 * Values are typed Java values (see {@link SpannerValues}); which columns appear follows the change
 * stream's value capture type. Events are equal when all their fields are, byte[] values (also
 * inside lists) compared by content. Flink serializes them with {@link ChangeEventSerializer}.
 */
@PublicEvolving
@TypeInfo(ChangeEventTypeInfo.Factory.class)
public final class ChangeEvent implements Serializable {
    private static final long serialVersionUID = 1L;

    private String table;
    private ChangeType changeType;
    private Map<String, Object> keys;
    private Map<String, Object> newValues;
    private Map<String, Object> oldValues;
    private Instant commitTimestamp;
    private String serverTransactionId;
    private String recordSequence;
    private int modNumber;
    private String transactionTag;
    private boolean systemTransaction;
    private String partitionToken;
    private long numberOfRecordsInTransaction;
    private long numberOfPartitionsInTransaction;
    private String valueCaptureType;
    private String rawChangeType; // only for ChangeType.UNKNOWN
    private boolean snapshot;

    /** Spanner type names by column, in table order; see {@link #getColumnTypes()}. */
    private Map<String, String> columnTypes = new LinkedHashMap<>();

    /** For serialization frameworks: an event with no fields set and empty value maps. */
    public ChangeEvent() {
        this.keys = new LinkedHashMap<>();
        this.newValues = new LinkedHashMap<>();
        this.oldValues = new LinkedHashMap<>();
    }

    private ChangeEvent(Builder b, boolean copyMaps) {
        this.table = b.table;
        this.changeType = b.changeType;
        this.keys = mapOf(b.keys, copyMaps);
        this.newValues = mapOf(b.newValues, copyMaps);
        this.oldValues = mapOf(b.oldValues, copyMaps);
        this.commitTimestamp = b.commitTimestamp;
        this.serverTransactionId = b.serverTransactionId;
        this.recordSequence = b.recordSequence;
        this.modNumber = b.modNumber;
        this.transactionTag = b.transactionTag;
        this.systemTransaction = b.systemTransaction;
        this.partitionToken = b.partitionToken;
        this.numberOfRecordsInTransaction = b.numberOfRecordsInTransaction;
        this.numberOfPartitionsInTransaction = b.numberOfPartitionsInTransaction;
        this.valueCaptureType = b.valueCaptureType;
        this.columnTypes = mapOf(b.columnTypes, copyMaps);
        this.snapshot = b.snapshot;
        withRawChangeType(b.rawChangeType);
    }

    private static <V> Map<String, V> mapOf(Map<String, V> given, boolean copy) {
        if (given == null) {
            return new LinkedHashMap<>();
        }
        return copy ? new LinkedHashMap<>(given) : given;
    }

    /** A builder of events: every field unset (null, 0, false, empty maps) until set. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Builds {@link ChangeEvent}s. A builder may build several events: fields shared by the row
     * changes of one transaction are set once, those of each row change before each {@link
     * #build()}.
     */
    @PublicEvolving
    public static final class Builder {
        private String table;
        private ChangeType changeType;
        private Map<String, Object> keys;
        private Map<String, Object> newValues;
        private Map<String, Object> oldValues;
        private Instant commitTimestamp;
        private String serverTransactionId;
        private String recordSequence;
        private int modNumber;
        private String transactionTag;
        private boolean systemTransaction;
        private String partitionToken;
        private long numberOfRecordsInTransaction;
        private long numberOfPartitionsInTransaction;
        private String valueCaptureType;
        private Map<String, String> columnTypes;
        private String rawChangeType;
        private boolean snapshot;

        private Builder() {}

        public Builder table(String table) {
            this.table = table;
            return this;
        }

        public Builder changeType(ChangeType changeType) {
            this.changeType = changeType;
            return this;
        }

        /** See {@link ChangeEvent#getRawChangeType()}; only kept for {@link ChangeType#UNKNOWN}. */
        public Builder rawChangeType(String rawChangeType) {
            this.rawChangeType = rawChangeType;
            return this;
        }

        /** Primary key columns to values, in the table's column order. */
        public Builder keys(Map<String, Object> keys) {
            this.keys = keys;
            return this;
        }

        public Builder newValues(Map<String, Object> newValues) {
            this.newValues = newValues;
            return this;
        }

        public Builder oldValues(Map<String, Object> oldValues) {
            this.oldValues = oldValues;
            return this;
        }

        public Builder commitTimestamp(Instant commitTimestamp) {
            this.commitTimestamp = commitTimestamp;
            return this;
        }

        public Builder serverTransactionId(String serverTransactionId) {
            this.serverTransactionId = serverTransactionId;
            return this;
        }

        public Builder recordSequence(String recordSequence) {
            this.recordSequence = recordSequence;
            return this;
        }

        public Builder modNumber(int modNumber) {
            this.modNumber = modNumber;
            return this;
        }

        public Builder transactionTag(String transactionTag) {
            this.transactionTag = transactionTag;
            return this;
        }

        public Builder systemTransaction(boolean systemTransaction) {
            this.systemTransaction = systemTransaction;
            return this;
        }

        public Builder partitionToken(String partitionToken) {
            this.partitionToken = partitionToken;
            return this;
        }

        public Builder numberOfRecordsInTransaction(long numberOfRecordsInTransaction) {
            this.numberOfRecordsInTransaction = numberOfRecordsInTransaction;
            return this;
        }

        public Builder numberOfPartitionsInTransaction(long numberOfPartitionsInTransaction) {
            this.numberOfPartitionsInTransaction = numberOfPartitionsInTransaction;
            return this;
        }

        public Builder valueCaptureType(String valueCaptureType) {
            this.valueCaptureType = valueCaptureType;
            return this;
        }

        /**
         * Spanner type names by column, in table order; see {@link ChangeEvent#getColumnTypes()}.
         */
        public Builder columnTypes(Map<String, String> columnTypes) {
            this.columnTypes = columnTypes;
            return this;
        }

        public Builder snapshot(boolean snapshot) {
            this.snapshot = snapshot;
            return this;
        }

        /** An event with copies of the maps given, so later changes to them do not reach it. */
        public ChangeEvent build() {
            return new ChangeEvent(this, true);
        }

        /**
         * An event that keeps the given maps instead of copying them: for the connector's own code,
         * which builds the maps for this one event and never changes them afterwards (a row read at
         * tens of thousands a second would otherwise be copied twice).
         */
        @Internal
        public ChangeEvent buildOwningMaps() {
            return new ChangeEvent(this, false);
        }
    }

    public String getTable() {
        return table;
    }

    public ChangeType getChangeType() {
        return changeType;
    }

    /**
     * The mod type as Spanner sent it: the name of {@link #getChangeType()}, or for {@link
     * ChangeType#UNKNOWN} the name or number this connector does not know.
     */
    public String getRawChangeType() {
        if (rawChangeType != null) {
            return rawChangeType;
        }
        return changeType == null ? null : changeType.name();
    }

    /**
     * Whether this is a row of the snapshot a source started with (an INSERT at the snapshot
     * timestamp, with no transaction), not a change read from the change stream.
     */
    public boolean isSnapshot() {
        return snapshot;
    }

    /**
     * Marks this event as a snapshot row (or not).
     *
     * @return this event
     */
    public ChangeEvent withSnapshot(boolean snapshot) {
        this.snapshot = snapshot;
        return this;
    }

    /**
     * Sets what Spanner sent as mod type, for an event of {@link ChangeType#UNKNOWN}.
     *
     * @return this event
     */
    public ChangeEvent withRawChangeType(String rawChangeType) {
        this.rawChangeType =
                rawChangeType == null
                                || (changeType != null && rawChangeType.equals(changeType.name()))
                        ? null
                        : rawChangeType;
        return this;
    }

    /** The maps themselves, for {@link ChangeEventSerializer#copy}: never to be changed. */
    Map<String, Object> keysMap() {
        return keys;
    }

    Map<String, Object> newValuesMap() {
        return newValues;
    }

    Map<String, Object> oldValuesMap() {
        return oldValues;
    }

    Map<String, String> columnTypesMap() {
        return columnTypes == null ? Map.of() : columnTypes;
    }

    /** Primary key columns to values, in the table's column order. */
    public Map<String, Object> getKeys() {
        return Collections.unmodifiableMap(keys);
    }

    /** Non-key columns after the change, as the value capture type records them. */
    public Map<String, Object> getNewValues() {
        return Collections.unmodifiableMap(newValues);
    }

    /** Non-key columns before the change, where the value capture type records them. */
    public Map<String, Object> getOldValues() {
        return Collections.unmodifiableMap(oldValues);
    }

    /**
     * The whole row before the change (keys first), where the value capture type lets it be
     * rebuilt, else an empty map: a DELETE under OLD_AND_NEW_VALUES or NEW_ROW_AND_OLD_VALUES
     * (Spanner records every column's old value), and an UPDATE under NEW_ROW_AND_OLD_VALUES (the
     * full new row, with the written columns' old values put back). Under OLD_AND_NEW_VALUES an
     * UPDATE records old values of the written columns only, and the other columns are unknown.
     */
    public Map<String, Object> getOldRow() {
        boolean newRowAndOld = "NEW_ROW_AND_OLD_VALUES".equals(valueCaptureType);
        boolean oldAndNew = "OLD_AND_NEW_VALUES".equals(valueCaptureType);
        Map<String, Object> row = new LinkedHashMap<>(keys);
        if (changeType == ChangeType.DELETE && (newRowAndOld || oldAndNew)) {
            row.putAll(oldValues);
        } else if (changeType == ChangeType.UPDATE && newRowAndOld) {
            row.putAll(newValues);
            row.putAll(oldValues);
        } else {
            return Map.of();
        }
        return Collections.unmodifiableMap(row);
    }

    public Instant getCommitTimestamp() {
        return commitTimestamp;
    }

    public String getServerTransactionId() {
        return serverTransactionId;
    }

    public String getRecordSequence() {
        return recordSequence;
    }

    /** Position of this row change within its data change record, from 0. */
    public int getModNumber() {
        return modNumber;
    }

    public String getTransactionTag() {
        return transactionTag;
    }

    /** Whether a system transaction (TTL delete, backfill) made the change. */
    public boolean isSystemTransaction() {
        return systemTransaction;
    }

    public String getPartitionToken() {
        return partitionToken;
    }

    public long getNumberOfRecordsInTransaction() {
        return numberOfRecordsInTransaction;
    }

    public long getNumberOfPartitionsInTransaction() {
        return numberOfPartitionsInTransaction;
    }

    public String getValueCaptureType() {
        return valueCaptureType;
    }

    /**
     * The columns the change record describes, in table order (ordinal position), each with its
     * Spanner type as {@link SpannerTypeNames} spells it: key columns (also in {@link #getKeys()})
     * and the tracked non-key columns, including those whose value the capture type leaves out (a
     * DELETE under NEW_ROW). For an UPDATE under NEW_VALUES or OLD_AND_NEW_VALUES Spanner describes
     * only the key and written columns. Empty for events built without types.
     */
    public Map<String, String> getColumnTypes() {
        // null after Java deserialization of an event written before the field existed
        return columnTypes == null ? Map.of() : Collections.unmodifiableMap(columnTypes);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ChangeEvent)) {
            return false;
        }
        ChangeEvent e = (ChangeEvent) o;
        return modNumber == e.modNumber
                && systemTransaction == e.systemTransaction
                && numberOfRecordsInTransaction == e.numberOfRecordsInTransaction
                && numberOfPartitionsInTransaction == e.numberOfPartitionsInTransaction
                && Objects.equals(table, e.table)
                && changeType == e.changeType
                && Objects.equals(rawChangeType, e.rawChangeType)
                && snapshot == e.snapshot
                && valuesEqual(keys, e.keys)
                && valuesEqual(newValues, e.newValues)
                && valuesEqual(oldValues, e.oldValues)
                && Objects.equals(commitTimestamp, e.commitTimestamp)
                && Objects.equals(serverTransactionId, e.serverTransactionId)
                && Objects.equals(recordSequence, e.recordSequence)
                && Objects.equals(transactionTag, e.transactionTag)
                && Objects.equals(partitionToken, e.partitionToken)
                && Objects.equals(valueCaptureType, e.valueCaptureType)
                && Objects.equals(columnTypes, e.columnTypes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                table,
                valuesHash(keys),
                commitTimestamp,
                serverTransactionId,
                recordSequence,
                modNumber);
    }

    /** Like {@link Map#equals}, but compares byte[] values, also inside lists, by content. */
    private static boolean valuesEqual(Map<String, Object> a, Map<String, Object> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (Map.Entry<String, Object> e : a.entrySet()) {
            if (!b.containsKey(e.getKey()) || !valueEquals(e.getValue(), b.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    private static boolean valueEquals(Object a, Object b) {
        if (a instanceof List && b instanceof List) {
            List<?> x = (List<?>) a;
            List<?> y = (List<?>) b;
            if (x.size() != y.size()) {
                return false;
            }
            for (int i = 0; i < x.size(); i++) {
                if (!valueEquals(x.get(i), y.get(i))) {
                    return false;
                }
            }
            return true;
        }
        return Objects.deepEquals(a, b);
    }

    /** Like {@link Map#hashCode}, consistent with {@link #valuesEqual}. */
    private static int valuesHash(Map<String, Object> values) {
        int h = 0;
        for (Map.Entry<String, Object> e : values.entrySet()) {
            h += Objects.hashCode(e.getKey()) ^ valueHash(e.getValue());
        }
        return h;
    }

    private static int valueHash(Object v) {
        if (v instanceof byte[]) {
            return Arrays.hashCode((byte[]) v);
        }
        if (v instanceof List) {
            int h = 1;
            for (Object element : (List<?>) v) {
                h = 31 * h + valueHash(element);
            }
            return h;
        }
        return Objects.hashCode(v);
    }

    @Override
    public String toString() {
        return (snapshot ? "SNAPSHOT " : "")
                + getRawChangeType()
                + " "
                + table
                + keys
                + " @"
                + commitTimestamp
                + " txn="
                + serverTransactionId
                + "/"
                + recordSequence
                + "/"
                + modNumber
                + " new="
                + newValues
                + (oldValues.isEmpty() ? "" : " old=" + oldValues);
    }
}
