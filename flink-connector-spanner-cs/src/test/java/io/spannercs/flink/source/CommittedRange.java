package io.spannercs.flink.source;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.emulator.testing.Await;
import java.time.Duration;
import java.time.Instant;

/**
 * Ends a test's read range by what the emulator has committed, not by a fixed window: a test lets
 * its workload write until the emulator's ground truth holds what every assertion needs, then fixes
 * the end just after the last commit it has seen (plus a short live tail where the test reads at
 * the head), so a bounded job over the range ends as soon as it has read it, however loaded the
 * machine is.
 */
public final class CommittedRange {
    /** Bounds a run whose workload or churn stalls; a passing run waits a few seconds. */
    public static final Duration WRITE_LIMIT = Duration.ofSeconds(90);

    private final SpannerEmulator emulator;
    private final String stream;
    private final Instant start;
    private final long churnAtStart;

    private CommittedRange(SpannerEmulator emulator, String stream, Instant start) {
        this.emulator = emulator;
        this.stream = stream;
        this.churnAtStart = emulator.database().changeStream(stream).churnEvents();
        this.start = start;
    }

    /**
     * A range of {@code stream} starting now. Call it before the workload starts, so the churn it
     * counts happened after the start.
     */
    public static CommittedRange startingNow(SpannerEmulator emulator, String stream) {
        return new CommittedRange(emulator, stream, Instant.now());
    }

    /** The range's start. */
    public Instant start() {
        return start;
    }

    /**
     * Waits until the stream records at least {@code minChanges} changes since the start (as the
     * emulator's ground truth says) and has gone through {@code minChurnEvents} partition splits,
     * merges or moves since the start.
     */
    public CommittedRange awaitWritten(int minChanges, int minChurnEvents) {
        return awaitWritten(minChanges, minChurnEvents, start);
    }

    /** Like {@link #awaitWritten(int, int)}, counting changes committed after {@code from}. */
    public CommittedRange awaitWritten(int minChanges, int minChurnEvents, Instant from) {
        ChangeStream cs = emulator.database().changeStream(stream);
        Await.until(
                minChanges
                        + " changes and "
                        + minChurnEvents
                        + " churn events on stream "
                        + stream
                        + " since "
                        + from,
                WRITE_LIMIT,
                () ->
                        cs.churnEvents() - churnAtStart >= minChurnEvents
                                && changesSince(from) >= minChanges,
                () ->
                        changesSince(from)
                                + " changes, "
                                + (cs.churnEvents() - churnAtStart)
                                + " churn events");
        return this;
    }

    /** Splits, merges and moves of the stream's partitions since the start. */
    public long churnEvents() {
        return emulator.database().changeStream(stream).churnEvents() - churnAtStart;
    }

    /** Changes the stream records from {@code from} to now. */
    public int changesSince(Instant from) {
        return GroundTruth.expectedAsSent(
                        emulator,
                        stream,
                        EmulatorSources.micros(from),
                        EmulatorSources.micros(Instant.now().plusSeconds(60)))
                .size();
    }

    /**
     * Just after the last commit so far (or now, whichever is later): every change committed before
     * this call is in a range ending here.
     */
    public Instant afterLastCommit() {
        Instant last = Instant.now();
        for (CommittedTransaction txn : emulator.database().groundTruth()) {
            if (txn.commitTimestamp().isAfter(last)) {
                last = txn.commitTimestamp();
            }
        }
        return last.plusMillis(1);
    }
}
