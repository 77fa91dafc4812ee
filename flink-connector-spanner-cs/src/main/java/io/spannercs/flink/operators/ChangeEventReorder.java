package io.spannercs.flink.operators;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventTypeInfo;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.ListTypeInfo;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Emits each row's changes in commit order, released by the watermark. Key the stream by {@link
 * ChangeEventOrdering#keyOf} (or use {@link ChangeEventOrdering#inCommitOrder}).
 *
 * <p>Each event waits in keyed state, in a bucket per commit millisecond with an event-time timer
 * at that millisecond. When the watermark reaches the millisecond, the bucket is emitted sorted by
 * {@link ChangeEventOrdering#COMMIT_ORDER} and removed. Flink fires a key's timers in timestamp
 * order, so a key's output is in commit order whatever order its events arrived in, provided none
 * arrives after the watermark passed it. The state therefore holds exactly the events whose commit
 * timestamp is above the watermark: it grows with the watermark's lag, not with the stream's
 * length, and is empty at the end of a bounded stream.
 *
 * <p>An event at or below the watermark when it arrives cannot be put in order any more; it is
 * handled by the {@link LateEventPolicy} and counted in the {@code lateEvents} metric. The source's
 * own watermarks never make an event late.
 */
@PublicEvolving
public final class ChangeEventReorder
        extends KeyedProcessFunction<String, ChangeEvent, ChangeEvent> {
    private static final long serialVersionUID = 1L;

    private final LateEventPolicy latePolicy;

    private transient MapState<Long, List<ChangeEvent>> pending;
    private transient Counter lateEvents;

    /** Late events go to {@link ChangeEventOrdering#LATE_EVENTS}. */
    public ChangeEventReorder() {
        this(LateEventPolicy.SIDE_OUTPUT);
    }

    public ChangeEventReorder(LateEventPolicy latePolicy) {
        this.latePolicy = latePolicy;
    }

    @Override
    public void open(OpenContext openContext) {
        pending =
                getRuntimeContext()
                        .getMapState(
                                new MapStateDescriptor<>(
                                        "pending-by-commit-millis",
                                        Types.LONG,
                                        new ListTypeInfo<>(ChangeEventTypeInfo.INSTANCE)));
        lateEvents = getRuntimeContext().getMetricGroup().counter("lateEvents");
    }

    @Override
    public void processElement(ChangeEvent event, Context ctx, Collector<ChangeEvent> out)
            throws Exception {
        long millis = event.getCommitTimestamp().toEpochMilli();
        long watermark = ctx.timerService().currentWatermark();
        if (millis <= watermark) {
            lateEvents.inc();
            LateEvents.handle(latePolicy, event, watermark, ctx, out);
            return;
        }
        List<ChangeEvent> bucket = pending.get(millis);
        if (bucket == null) {
            bucket = new ArrayList<>();
            ctx.timerService().registerEventTimeTimer(millis);
        }
        bucket.add(event);
        pending.put(millis, bucket);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<ChangeEvent> out)
            throws Exception {
        List<ChangeEvent> bucket = pending.get(timestamp);
        if (bucket == null) {
            return;
        }
        bucket.sort(ChangeEventOrdering.COMMIT_ORDER);
        for (ChangeEvent e : bucket) {
            out.collect(e);
        }
        pending.remove(timestamp);
    }
}
