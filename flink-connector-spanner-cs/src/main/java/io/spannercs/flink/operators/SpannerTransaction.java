package io.spannercs.flink.operators;

import io.spannercs.flink.format.ChangeEvent;
import java.io.Serializable;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * One committed transaction as the change stream describes it: its row changes from every table and
 * partition, in the order Spanner gives them within the transaction (record sequence, then mod
 * number). Built by {@link TransactionAssembler}; serialized by {@link
 * SpannerTransactionSerializer}.
 */
@PublicEvolving
@TypeInfo(SpannerTransactionTypeInfo.Factory.class)
public final class SpannerTransaction implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String serverTransactionId;
    private final Instant commitTimestamp;
    private final String transactionTag;
    private final boolean systemTransaction;
    private final long numberOfRecordsInTransaction;
    private final long numberOfPartitionsInTransaction;
    private final List<ChangeEvent> events;

    /**
     * @param events the row changes, in transaction order; the list is copied
     */
    public SpannerTransaction(
            String serverTransactionId,
            Instant commitTimestamp,
            String transactionTag,
            boolean systemTransaction,
            long numberOfRecordsInTransaction,
            long numberOfPartitionsInTransaction,
            List<ChangeEvent> events) {
        this.serverTransactionId = serverTransactionId;
        this.commitTimestamp = commitTimestamp;
        this.transactionTag = transactionTag;
        this.systemTransaction = systemTransaction;
        this.numberOfRecordsInTransaction = numberOfRecordsInTransaction;
        this.numberOfPartitionsInTransaction = numberOfPartitionsInTransaction;
        this.events = List.copyOf(events);
    }

    public String getServerTransactionId() {
        return serverTransactionId;
    }

    public Instant getCommitTimestamp() {
        return commitTimestamp;
    }

    public String getTransactionTag() {
        return transactionTag;
    }

    /** Whether a system transaction (TTL delete, backfill) made the changes. */
    public boolean isSystemTransaction() {
        return systemTransaction;
    }

    /** Data change records of the transaction in the change stream, over all partitions. */
    public long getNumberOfRecordsInTransaction() {
        return numberOfRecordsInTransaction;
    }

    /** Partitions holding records of the transaction. */
    public long getNumberOfPartitionsInTransaction() {
        return numberOfPartitionsInTransaction;
    }

    /** The row changes, ordered by record sequence and mod number; unmodifiable. */
    public List<ChangeEvent> getEvents() {
        return events;
    }

    /** Distinct data change records among the events (their record sequences). */
    public int getNumberOfRecordsReceived() {
        Set<String> sequences = new HashSet<>();
        for (ChangeEvent e : events) {
            sequences.add(e.getRecordSequence());
        }
        return sequences.size();
    }

    /** Whether every record the change stream counts for the transaction is here. */
    public boolean isComplete() {
        return getNumberOfRecordsReceived() == numberOfRecordsInTransaction;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SpannerTransaction)) {
            return false;
        }
        SpannerTransaction t = (SpannerTransaction) o;
        return systemTransaction == t.systemTransaction
                && numberOfRecordsInTransaction == t.numberOfRecordsInTransaction
                && numberOfPartitionsInTransaction == t.numberOfPartitionsInTransaction
                && Objects.equals(serverTransactionId, t.serverTransactionId)
                && Objects.equals(commitTimestamp, t.commitTimestamp)
                && Objects.equals(transactionTag, t.transactionTag)
                && events.equals(t.events);
    }

    @Override
    public int hashCode() {
        return Objects.hash(serverTransactionId, commitTimestamp, events.size());
    }

    @Override
    public String toString() {
        return "Transaction "
                + serverTransactionId
                + " @"
                + commitTimestamp
                + " ("
                + events.size()
                + " changes in "
                + numberOfRecordsInTransaction
                + " records)";
    }
}
