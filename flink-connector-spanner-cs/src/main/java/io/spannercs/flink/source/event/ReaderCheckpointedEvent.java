package io.spannercs.flink.source.event;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Reader to enumerator: this reader has taken its part of checkpoint {@code checkpointId}.
 *
 * <p>Why: Flink holds every event a coordinator sends a subtask from the coordinator's part of a
 * checkpoint until the subtask's part is done, and when the subtask fails in between, it neither
 * delivers nor fails what it held. The coordinator's part of the next checkpoint then waits for
 * those events until that checkpoint times out, and everything sent meanwhile waits with it. So the
 * enumerator sends a reader nothing from its own part of a checkpoint until the reader says this
 * (or the checkpoint completes or is aborted). Sent as the last thing of the reader's part: Flink's
 * own acknowledgement follows it on the same way, before anything else the task sends.
 */
@Internal
public record ReaderCheckpointedEvent(long checkpointId) implements SourceEvent {
    /** Sent as its binary form: see {@link SerializedEvent}. */
    private Object writeReplace() {
        return SerializedEvent.of(this);
    }
}
