package io.spannercs.flink.source.enumerator;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * Readers inside a checkpoint's window: from the enumerator's part of checkpoint N until the
 * reader's part of it. Flink holds every event a coordinator sends a subtask in that window; when
 * the subtask fails inside it, Flink neither delivers what it held nor fails it, and the
 * coordinator's part of the next checkpoint waits for those events until that checkpoint times out
 * (ten minutes by default), holding everything sent to the restarted reader meanwhile. So the
 * enumerator sends a reader inside a window nothing: no event, no split, not the end of the splits.
 *
 * <p>A window closes when the reader says it took its part ({@code ReaderCheckpointedEvent}), when
 * the checkpoint completes or is aborted (Flink lets what it held go then), and when the subtask
 * registers again (a new task, which Flink holds nothing for). Not checkpointed.
 */
final class CheckpointWindows {
    /** Per reader, the checkpoint it has not taken its part of yet. */
    private final Map<Integer, Long> open = new HashMap<>();

    /** The enumerator took its part of {@code checkpointId}; these readers take theirs next. */
    void opened(long checkpointId, Collection<Integer> readers) {
        for (int reader : readers) {
            open.merge(reader, checkpointId, Math::max);
        }
    }

    /**
     * The reader took its part of {@code checkpointId}.
     *
     * @return whether that closed its window
     */
    boolean readerCheckpointed(int reader, long checkpointId) {
        Long waiting = open.get(reader);
        if (waiting == null || waiting > checkpointId) {
            return false;
        }
        open.remove(reader);
        return true;
    }

    /**
     * The checkpoint completed or was aborted: every window of it or an earlier one closes.
     *
     * @return whether any closed
     */
    boolean checkpointEnded(long checkpointId) {
        return open.values().removeIf(waiting -> waiting <= checkpointId);
    }

    /** The subtask registered again: a new task, outside any window. */
    void readerRegistered(int reader) {
        open.remove(reader);
    }

    boolean isOpen(int reader) {
        return open.containsKey(reader);
    }

    boolean anyOpen() {
        return !open.isEmpty();
    }
}
