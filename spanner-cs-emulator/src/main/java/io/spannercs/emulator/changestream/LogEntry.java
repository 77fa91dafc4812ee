package io.spannercs.emulator.changestream;

/**
 * One record in a partition's log, ordered by (timestamp, sequence). The payload is either a {@code
 * com.google.spanner.v1.ChangeStreamRecord} or a legacy {@link ChildPartitionsRecord}.
 *
 * @param terminal whether the partition's query ends after this record
 */
public record LogEntry(long micros, long sequence, Object payload, boolean terminal) {

    /** Whether this entry comes after the position (timestamp, sequence). */
    boolean after(long posMicros, long posSequence) {
        return micros > posMicros || (micros == posMicros && sequence > posSequence);
    }
}
