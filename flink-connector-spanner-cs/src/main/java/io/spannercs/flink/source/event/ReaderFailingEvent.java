package io.spannercs.flink.source.event;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * Reader to enumerator: this reader has failed with {@code cause} and waits for {@link
 * EventsStoppedEvent} before its task fails.
 *
 * <p>Why: an event Flink cannot deliver to a task that has just failed makes the JobManager fail
 * that task with "An OperatorEvent from an OperatorCoordinator to a task was lost". When that
 * arrives before the task's own failure, it replaces the real cause in the job's result, and the
 * cause survives only in the TaskManager's log. The enumerator sends such a reader nothing more.
 */
@Internal
public record ReaderFailingEvent(String cause) implements SourceEvent {
    /** Longest cause carried; the whole one is in the failed task's own exception. */
    public static final int MAX_CAUSE_LENGTH = 2000;

    public ReaderFailingEvent {
        cause = cause == null ? "" : cause;
        if (cause.length() > MAX_CAUSE_LENGTH) {
            cause = cause.substring(0, MAX_CAUSE_LENGTH) + "...";
        }
    }

    /** Sent as its binary form: see {@link SerializedEvent}. */
    private Object writeReplace() {
        return SerializedEvent.of(this);
    }
}
