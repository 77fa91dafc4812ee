package io.spannercs.flink.operators;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventTypeInfo;
import io.spannercs.flink.source.record.RecordSequences;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Assembles whole transactions: keyed by server transaction id, it collects a transaction's change
 * events from every table and partition and emits one {@link SpannerTransaction} when the watermark
 * reaches the commit timestamp.
 *
 * <p><b>Why the watermark decides completeness.</b> {@code number_of_records_in_transaction} counts
 * data change records, and a record holds one or more mods (each one change event); an event does
 * not say how many mods its record has, so counting events cannot tell when a transaction is
 * complete. The watermark can: the source emits a watermark at or above a commit timestamp only
 * after every partition has emitted everything up to it, and never makes a record late. So when the
 * timer at the commit millisecond fires, every record of the transaction has arrived. The count is
 * then checked: the distinct record sequences (unique within a transaction, over all partitions)
 * must equal {@code number_of_records_in_transaction}, and no change (record sequence, mod number)
 * may appear twice; otherwise the {@link IncompleteTransactionPolicy} applies.
 *
 * <p><b>State</b> holds the events of transactions committed above the watermark, nothing else:
 * each transaction's state is cleared when it is emitted. <b>Order:</b> each transaction is emitted
 * once; parallel instances emit independently, so transactions leave in commit order only with
 * parallelism 1 (timers fire in timestamp order); otherwise re-sort downstream by commit timestamp
 * on the watermark. Late events (only possible with other watermarks than the source's) are handled
 * by a {@link LateEventPolicy}; {@link LateEventPolicy#EMIT_IMMEDIATELY} is not supported here.
 */
@PublicEvolving
public final class TransactionAssembler
        extends KeyedProcessFunction<String, ChangeEvent, SpannerTransaction> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(TransactionAssembler.class);

    /** Order of changes within a transaction, as Spanner defines it. */
    static final Comparator<ChangeEvent> TRANSACTION_ORDER =
            Comparator.comparing(ChangeEvent::getRecordSequence, RecordSequences.ORDER)
                    .thenComparingInt(ChangeEvent::getModNumber);

    private final IncompleteTransactionPolicy incompletePolicy;
    private final LateEventPolicy latePolicy;

    private transient ListState<ChangeEvent> pending;
    private transient Counter lateEvents;
    private transient Counter incompleteTransactions;

    /** Fails on incomplete transactions; late events go to the side output. */
    public TransactionAssembler() {
        this(IncompleteTransactionPolicy.FAIL, LateEventPolicy.SIDE_OUTPUT);
    }

    /**
     * @param latePolicy {@link LateEventPolicy#SIDE_OUTPUT} or {@link LateEventPolicy#FAIL}
     */
    public TransactionAssembler(
            IncompleteTransactionPolicy incompletePolicy, LateEventPolicy latePolicy) {
        if (latePolicy == LateEventPolicy.EMIT_IMMEDIATELY) {
            throw new IllegalArgumentException(
                    "A late event cannot be emitted as a transaction; use SIDE_OUTPUT or FAIL");
        }
        this.incompletePolicy = incompletePolicy;
        this.latePolicy = latePolicy;
    }

    /**
     * Keys the events by server transaction id and assembles transactions with the default
     * policies. Use the source's own watermarks ({@code WatermarkStrategy.noWatermarks()}).
     */
    public static SingleOutputStreamOperator<SpannerTransaction> transactions(
            DataStream<ChangeEvent> events) {
        return transactions(events, new TransactionAssembler());
    }

    /** Like {@link #transactions(DataStream)}, with a configured assembler. */
    public static SingleOutputStreamOperator<SpannerTransaction> transactions(
            DataStream<ChangeEvent> events, TransactionAssembler assembler) {
        return events.keyBy(ChangeEvent::getServerTransactionId, Types.STRING)
                .process(assembler, SpannerTransactionTypeInfo.INSTANCE)
                .name("Assemble transactions")
                .uid("spanner-transaction-assembler");
    }

    @Override
    public void open(OpenContext openContext) {
        pending =
                getRuntimeContext()
                        .getListState(
                                new ListStateDescriptor<>(
                                        "transaction-events", ChangeEventTypeInfo.INSTANCE));
        lateEvents = getRuntimeContext().getMetricGroup().counter("lateEvents");
        incompleteTransactions =
                getRuntimeContext().getMetricGroup().counter("incompleteTransactions");
    }

    @Override
    public void processElement(ChangeEvent event, Context ctx, Collector<SpannerTransaction> out)
            throws Exception {
        long millis = event.getCommitTimestamp().toEpochMilli();
        long watermark = ctx.timerService().currentWatermark();
        if (millis <= watermark) {
            lateEvents.inc();
            LateEvents.handle(latePolicy, event, watermark, ctx, null);
            return;
        }
        // Registering the same timer again is a no-op, so no flag is kept for it.
        ctx.timerService().registerEventTimeTimer(millis);
        pending.add(event);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<SpannerTransaction> out)
            throws Exception {
        List<ChangeEvent> events = new ArrayList<>();
        Iterable<ChangeEvent> stored = pending.get();
        if (stored != null) {
            stored.forEach(events::add);
        }
        pending.clear();
        if (events.isEmpty()) {
            return;
        }
        events.sort(TRANSACTION_ORDER);
        ChangeEvent first = events.get(0);
        SpannerTransaction txn =
                new SpannerTransaction(
                        first.getServerTransactionId(),
                        first.getCommitTimestamp(),
                        first.getTransactionTag(),
                        first.isSystemTransaction(),
                        first.getNumberOfRecordsInTransaction(),
                        first.getNumberOfPartitionsInTransaction(),
                        events);
        String problem = consistencyProblem(txn);
        if (problem != null) {
            incompleteTransactions.inc();
            String message =
                    "Transaction "
                            + txn.getServerTransactionId()
                            + " at watermark "
                            + timestamp
                            + " ms: "
                            + problem;
            if (incompletePolicy == IncompleteTransactionPolicy.FAIL) {
                throw new IllegalStateException(message);
            }
            LOG.warn("{}; emitted as it is", message);
        }
        out.collect(txn);
    }

    /** Why the transaction is not exactly its records, or null when it is. */
    static String consistencyProblem(SpannerTransaction txn) {
        Set<String> changes = new HashSet<>();
        for (ChangeEvent e : txn.getEvents()) {
            if (!changes.add(e.getRecordSequence() + "/" + e.getModNumber())) {
                return "change "
                        + e.getRecordSequence()
                        + "/"
                        + e.getModNumber()
                        + " arrived twice";
            }
        }
        int received = txn.getNumberOfRecordsReceived();
        if (received != txn.getNumberOfRecordsInTransaction()) {
            return received
                    + " of "
                    + txn.getNumberOfRecordsInTransaction()
                    + " data change records arrived";
        }
        return null;
    }
}
