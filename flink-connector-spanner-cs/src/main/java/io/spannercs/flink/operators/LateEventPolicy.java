package io.spannercs.flink.operators;

import org.apache.flink.annotation.PublicEvolving;

/**
 * What the watermark-released operators do with a change event whose commit timestamp is at or
 * below the current watermark when it arrives.
 *
 * <p>The source never emits such an event: its watermarks come from heartbeats and are capped by
 * the enumerator's low watermark (see {@code docs/datastream-source.md}). A late event therefore
 * means the stream was changed on the way (a user watermark strategy, {@code
 * setLowWatermarkCap(false)}, a union with another stream) or a bug; every policy counts it in the
 * operator's {@code lateEvents} metric.
 */
@PublicEvolving
public enum LateEventPolicy {
    /**
     * Emit the event to the side output {@link ChangeEventOrdering#LATE_EVENTS}, so the main output
     * keeps its order guarantee. The default.
     */
    SIDE_OUTPUT,
    /**
     * Emit the event on the main output at once, out of order, so that nothing needs a side output.
     */
    EMIT_IMMEDIATELY,
    /** Fail the task, naming the event and the watermark. */
    FAIL
}
