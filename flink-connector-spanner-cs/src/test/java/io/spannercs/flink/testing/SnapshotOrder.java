package io.spannercs.flink.testing;

import io.spannercs.flink.format.ChangeEvent;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Checks the hand-off order of snapshot rows and changes in a job's output. */
public final class SnapshotOrder {
    private SnapshotOrder() {}

    /**
     * The changes that came before the snapshot row of their key, in the order the job emitted the
     * events (the collected order is that order at the sink; a key's events come from one source
     * subtask at a time). Keys the snapshot does not have are not counted.
     */
    public static int changesBeforeTheirSnapshotRow(List<ChangeEvent> events) {
        Set<String> snapshotKeys = new HashSet<>();
        events.stream().filter(ChangeEvent::isSnapshot).forEach(e -> snapshotKeys.add(key(e)));
        Set<String> seen = new HashSet<>();
        int violations = 0;
        for (ChangeEvent e : events) {
            String k = key(e);
            if (e.isSnapshot()) {
                seen.add(k);
            } else if (snapshotKeys.contains(k) && !seen.contains(k)) {
                violations++;
            }
        }
        return violations;
    }

    private static String key(ChangeEvent e) {
        return e.getTable() + "|" + e.getKeys();
    }
}
