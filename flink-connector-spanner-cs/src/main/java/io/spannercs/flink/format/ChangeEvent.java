package io.spannercs.flink.format;

import java.io.Serializable;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * One row change read from a Spanner change stream, with its transaction and partition context.
 * Values are typed Java values (see {@link SpannerValues}); which columns appear follows the change
 * stream's value capture type.
 */
@PublicEvolving
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

    /** Spanner type names by column, in table order; see {@link #getColumnTypes()}. */
    private Map<String, String> columnTypes = new LinkedHashMap<>();

    /** For serialization frameworks. */
    public ChangeEvent() {}

    /** An event without column types ({@link #getColumnTypes()} is empty). */
    @SuppressWarnings("checkstyle:ParameterNumber")
    public ChangeEvent(
            String table,
            ChangeType changeType,
            Map<String, Object> keys,
            Map<String, Object> newValues,
            Map<String, Object> oldValues,
            Instant commitTimestamp,
            String serverTransactionId,
            String recordSequence,
            int modNumber,
            String transactionTag,
            boolean systemTransaction,
            String partitionToken,
            long numberOfRecordsInTransaction,
            long numberOfPartitionsInTransaction,
            String valueCaptureType) {
        this(
                table,
                changeType,
                keys,
                newValues,
                oldValues,
                commitTimestamp,
                serverTransactionId,
                recordSequence,
                modNumber,
                transactionTag,
                systemTransaction,
                partitionToken,
                numberOfRecordsInTransaction,
                numberOfPartitionsInTransaction,
                valueCaptureType,
                Map.of());
    }

    /**
     * @param columnTypes Spanner type names by column (see {@link #getColumnTypes()}), in table
     *     order
     */
    @SuppressWarnings("checkstyle:ParameterNumber")
    public ChangeEvent(
            String table,
            ChangeType changeType,
            Map<String, Object> keys,
            Map<String, Object> newValues,
            Map<String, Object> oldValues,
            Instant commitTimestamp,
            String serverTransactionId,
            String recordSequence,
            int modNumber,
            String transactionTag,
            boolean systemTransaction,
            String partitionToken,
            long numberOfRecordsInTransaction,
            long numberOfPartitionsInTransaction,
            String valueCaptureType,
            Map<String, String> columnTypes) {
        this.table = table;
        this.changeType = changeType;
        this.keys = new LinkedHashMap<>(keys);
        this.newValues = new LinkedHashMap<>(newValues);
        this.oldValues = new LinkedHashMap<>(oldValues);
        this.commitTimestamp = commitTimestamp;
        this.serverTransactionId = serverTransactionId;
        this.recordSequence = recordSequence;
        this.modNumber = modNumber;
        this.transactionTag = transactionTag;
        this.systemTransaction = systemTransaction;
        this.partitionToken = partitionToken;
        this.numberOfRecordsInTransaction = numberOfRecordsInTransaction;
        this.numberOfPartitionsInTransaction = numberOfPartitionsInTransaction;
        this.valueCaptureType = valueCaptureType;
        this.columnTypes = new LinkedHashMap<>(columnTypes);
    }

    public String getTable() {
        return table;
    }

    public ChangeType getChangeType() {
        return changeType;
    }

    /**
     * Primary key columns to values: in key order from MUTABLE_KEY_RANGE streams; records of
     * IMMUTABLE_KEY_RANGE streams give the key as a JSON object, so there the order is the JSON
     * object's (names sorted), not the key's.
     */
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
                && Objects.equals(keys, e.keys)
                && Objects.equals(newValues, e.newValues)
                && Objects.equals(oldValues, e.oldValues)
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
                table, keys, commitTimestamp, serverTransactionId, recordSequence, modNumber);
    }

    @Override
    public String toString() {
        return changeType
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
