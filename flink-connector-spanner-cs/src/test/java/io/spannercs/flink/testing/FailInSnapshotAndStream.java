package io.spannercs.flink.testing;

import io.spannercs.flink.format.ChangeEvent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.MapFunction;

/**
 * Fails a job once after a number of snapshot rows and once after a number of changes (replays
 * after a restore counted too), so a test sees a restore in the middle of the snapshot and one in
 * the middle of the stream. The counters are static: one test at a time, {@link #reset} first.
 */
public final class FailInSnapshotAndStream implements MapFunction<ChangeEvent, ChangeEvent> {
    private static final AtomicInteger SNAPSHOT_ROWS = new AtomicInteger();
    private static final AtomicInteger CHANGES = new AtomicInteger();
    private static final List<String> FAILED = Collections.synchronizedList(new ArrayList<>());
    private static volatile int snapshotLimit;
    private static volatile int changeLimit;

    /** Arms one failure after {@code snapshotRows} snapshot rows and one after {@code changes}. */
    public static void reset(int snapshotRows, int changes) {
        SNAPSHOT_ROWS.set(0);
        CHANGES.set(0);
        FAILED.clear();
        snapshotLimit = snapshotRows;
        changeLimit = changes;
    }

    /** The failures injected so far, "snapshot" or "stream", in order. */
    public static List<String> failed() {
        return new ArrayList<>(FAILED);
    }

    @Override
    public ChangeEvent map(ChangeEvent e) {
        if (e.isSnapshot()) {
            if (SNAPSHOT_ROWS.incrementAndGet() == snapshotLimit) {
                FAILED.add("snapshot");
                throw new IllegalStateException("Injected failure in the snapshot");
            }
        } else if (CHANGES.incrementAndGet() == changeLimit) {
            FAILED.add("stream");
            throw new IllegalStateException("Injected failure in the stream");
        }
        return e;
    }
}
