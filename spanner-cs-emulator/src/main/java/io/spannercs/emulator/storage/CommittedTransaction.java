package io.spannercs.emulator.storage;

import java.time.Instant;
import java.util.List;

/**
 * One committed transaction as the emulator's ground truth keeps it: every row change in the order
 * the mutations first touched the rows.
 */
public final class CommittedTransaction {
    private final String serverTransactionId;
    private final long commitMicros;
    private final String transactionTag;
    private final boolean systemTransaction;
    private final List<RowChange> changes;

    public CommittedTransaction(
            String serverTransactionId,
            long commitMicros,
            String transactionTag,
            boolean systemTransaction,
            List<RowChange> changes) {
        this.serverTransactionId = serverTransactionId;
        this.commitMicros = commitMicros;
        this.transactionTag = transactionTag;
        this.systemTransaction = systemTransaction;
        this.changes = List.copyOf(changes);
    }

    public String serverTransactionId() {
        return serverTransactionId;
    }

    /** Commit timestamp in microseconds since the epoch. */
    public long commitMicros() {
        return commitMicros;
    }

    public Instant commitTimestamp() {
        return Timestamps.toInstant(commitMicros);
    }

    public String transactionTag() {
        return transactionTag;
    }

    public boolean systemTransaction() {
        return systemTransaction;
    }

    public List<RowChange> changes() {
        return changes;
    }
}
