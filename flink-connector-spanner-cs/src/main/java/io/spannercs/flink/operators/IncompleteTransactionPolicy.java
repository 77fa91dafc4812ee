package io.spannercs.flink.operators;

import org.apache.flink.annotation.PublicEvolving;

/**
 * What {@link TransactionAssembler} does with a transaction whose records, once the watermark
 * passed its commit timestamp, do not match {@code number_of_records_in_transaction} (or that holds
 * the same change twice). Either way it counts in the {@code incompleteTransactions} metric and is
 * logged.
 */
@PublicEvolving
public enum IncompleteTransactionPolicy {
    /**
     * Fail the task. The default: with the source's guarantees (no late records, exactly once) a
     * mismatch means lost or duplicated changes.
     */
    FAIL,
    /**
     * Emit the transaction as it is ({@link SpannerTransaction#isComplete()} tells). Needed when a
     * {@code ChangeFilter} on the source drops whole records, since Spanner's count includes them.
     */
    EMIT
}
