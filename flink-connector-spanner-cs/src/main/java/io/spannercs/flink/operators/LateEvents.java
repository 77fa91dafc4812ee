package io.spannercs.flink.operators;

import io.spannercs.flink.format.ChangeEvent;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/** Applies a {@link LateEventPolicy} to one late event. */
final class LateEvents {
    private LateEvents() {}

    /**
     * @param mainOutput the operator's main output; null for operators whose output is not a
     *     ChangeEvent, which do not accept {@link LateEventPolicy#EMIT_IMMEDIATELY}
     */
    static void handle(
            LateEventPolicy policy,
            ChangeEvent event,
            long watermark,
            KeyedProcessFunction<?, ChangeEvent, ?>.Context ctx,
            Collector<ChangeEvent> mainOutput) {
        switch (policy) {
            case FAIL:
                throw new IllegalStateException(
                        "Late change event at or below the watermark "
                                + watermark
                                + " ms: "
                                + event
                                + ". The source's watermarks never make events late; check the"
                                + " watermark strategy and setLowWatermarkCap.");
            case EMIT_IMMEDIATELY:
                mainOutput.collect(event);
                return;
            case SIDE_OUTPUT:
            default:
                ctx.output(ChangeEventOrdering.LATE_EVENTS, event);
        }
    }
}
