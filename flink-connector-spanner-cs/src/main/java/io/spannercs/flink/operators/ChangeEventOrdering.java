package io.spannercs.flink.operators;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventTypeInfo;
import io.spannercs.flink.source.record.RecordSequences;
import java.math.BigDecimal;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.util.OutputTag;

/**
 * Commit order of change events, the key a row's changes share, and {@link
 * #inCommitOrder(DataStream)}: the usual way to restore per-key commit order after a shuffle.
 */
@PublicEvolving
public final class ChangeEventOrdering {
    /**
     * Commit order: commit timestamp, then server transaction id, record sequence (as Spanner
     * orders them, segment by segment) and mod number. One row changes at most once per
     * transaction, so for one key the commit timestamp alone decides; the rest makes the order
     * total and deterministic.
     */
    public static final Comparator<ChangeEvent> COMMIT_ORDER =
            Comparator.comparing(ChangeEvent::getCommitTimestamp)
                    .thenComparing(ChangeEvent::getServerTransactionId)
                    .thenComparing(ChangeEvent::getRecordSequence, RecordSequences.ORDER)
                    .thenComparingInt(ChangeEvent::getModNumber);

    /** Side output of late events under {@link LateEventPolicy#SIDE_OUTPUT}. */
    public static final OutputTag<ChangeEvent> LATE_EVENTS =
            new OutputTag<>("spanner-late-change-events", ChangeEventTypeInfo.INSTANCE);

    private ChangeEventOrdering() {}

    /**
     * The row a change is about, as a string: table and primary key values. Equal rows give equal
     * strings and different rows different ones, whatever the key types (BYTES keys are compared by
     * content, NUMERIC keys by value); each part is length-prefixed, so no value can be mistaken
     * for a separator.
     */
    public static String keyOf(ChangeEvent event) {
        StringBuilder b = new StringBuilder();
        append(b, 's', event.getTable());
        for (Map.Entry<String, Object> key : event.getKeys().entrySet()) {
            appendValue(b, key.getValue());
        }
        return b.toString();
    }

    /**
     * Keys the stream by row and emits each row's changes in commit order, each once its commit
     * timestamp is at or below the watermark; late events go to {@link #LATE_EVENTS}. Use the
     * source's own watermarks ({@code WatermarkStrategy.noWatermarks()} on the source). Give the
     * returned operator a {@code uid} for savepoints; none is set here, so that a job can use this
     * more than once.
     */
    public static SingleOutputStreamOperator<ChangeEvent> inCommitOrder(
            DataStream<ChangeEvent> events) {
        return inCommitOrder(events, LateEventPolicy.SIDE_OUTPUT);
    }

    /** Like {@link #inCommitOrder(DataStream)}, with a choice for late events. */
    public static SingleOutputStreamOperator<ChangeEvent> inCommitOrder(
            DataStream<ChangeEvent> events, LateEventPolicy latePolicy) {
        return events.keyBy(ChangeEventOrdering::keyOf, Types.STRING)
                .process(new ChangeEventReorder(latePolicy), ChangeEventTypeInfo.INSTANCE)
                .name("Reorder by commit timestamp");
    }

    private static void appendValue(StringBuilder b, Object v) {
        if (v == null) {
            b.append('n');
        } else if (v instanceof byte[] bytes) {
            append(b, 'b', Base64.getEncoder().encodeToString(bytes));
        } else if (v instanceof BigDecimal d) {
            // 1.0 and 1.00 are the same NUMERIC key.
            append(b, 'd', d.stripTrailingZeros().toPlainString());
        } else if (v instanceof List<?> list) {
            b.append('l').append(list.size()).append(':');
            for (Object element : list) {
                appendValue(b, element);
            }
        } else {
            // A table's key columns keep their types, so the text alone tells values apart.
            append(b, 'v', v.toString());
        }
    }

    private static void append(StringBuilder b, char tag, String text) {
        String s = String.valueOf(text);
        b.append(tag).append(s.length()).append(':').append(s);
    }
}
